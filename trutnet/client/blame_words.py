"""A blame in the person's words: who the table stopped on, and what they did.

A blame record (docs/protocol.md 7.5) names a seat, a rule id and an English detail.
The rule id is a protocol token, the same at every replica; this module turns it into
a phrase of the person's language (:data:`RULES`) and the seat into its player's name,
so that a French screen says in French who cheated and how. The detail stays in the
record, in the transcript and in ``trutnet verify``'s report, where it is evidence.
A rule the game's own engine names is a ruling id of the game's annex (``T37``,
``K21``, ``L6``): the move broke that ruling.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trutnet.i18n import N_, _

# Every rule id a replica can blame a seat on (docs/protocol.md 7.5), in a phrase that
# follows the seat's name
RULES = {
    "equivocation": N_("signed two different entries for one place in the log"),
    "identity": N_("signed an entry as another seat"),
    "turn": N_("wrote out of turn"),
    "sequence": N_("signed its entries out of their order"),
    "fork": N_("voted at a point of the log and then wrote past it"),
    "stalled": N_("stopped answering, and the table went on without it"),
    "shuffle-proof": N_("shuffled with a proof that does not check"),
    "hidden": N_("shuffled or asked for cards the game does not deal that way"),
    "shares": N_("opened cards other than those asked for"),
    "share-proof": N_("opened a card with a proof that does not check"),
    "key-proof": N_("took a key it cannot prove it holds"),
    "blind": N_("blinded cards other than those asked for"),
    "blind-proof": N_("blinded cards with a proof that does not check"),
    "reveal": N_("showed a card that is none of the deck's"),
    "commitment": N_("opened a value other than the one it committed to"),
    "seal": N_("opened a choice it never sealed"),
    "decision": N_("made a move the game does not allow now"),
    "chance": N_("drew a chance the game does not allow"),
    "engine": N_("wrote when the game asks for nothing"),
    "checkpoint": N_("signed a state of the game that is not the table's"),
    "result": N_("signed a result that is not the game's"),
    "votes": N_("replaced or dropped a seat without the votes for it"),
    "offer": N_("took a seat with an offer that does not hold"),
    "schema": N_("sent an entry that is not well formed"),
    "notation": N_("sent a move that cannot be read"),
    "seat": N_("wrote for a seat that is not its own"),
    "over": N_("wrote after the game was over"),
}
OTHER = N_("broke the protocol")
RULING = re.compile(r"[A-Z]{1,2}[0-9]{1,3}")  # a ruling id of a game's annex


def rule_said(rule: str) -> str:
    """What breaking ``rule`` means, in the current language."""
    if RULING.fullmatch(rule):
        return _("made a move the rules forbid (ruling {rule})").format(rule=rule)
    return _(RULES.get(rule, OTHER))


def seat_said(seat: int, names: Sequence[str]) -> str:
    """The player at ``seat``: their name when the table gave one."""
    if 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return _("seat {n}").format(n=seat)


def blame_said(seat: int, rule: str, names: Sequence[str] = (), token: bool = True) -> str:
    """One line: who is blamed, and for what (``Bob shuffled with a proof that does
    not check [shuffle-proof]``); the rule id stays, a token to look up, unless
    ``token`` is false (a screen's row, where the width is short)."""
    who, what = seat_said(seat, names), rule_said(rule)
    if not token:
        return _("{who} {what}").format(who=who, what=what)
    return _("{who} {what} [{rule}]").format(who=who, what=what, rule=rule)
