"""Lutin & Troll's narration: the public actions told as a person reads them.

The engine's history holds actions without their author (``play hand/3``, ``take
b6``). :class:`Narrator` replays it in a state of its own, one action at a time, and
keeps for each what it changed (:class:`Told`): who acted, the card shown, the combat
result, the manche won, a continuation (L14), the game's end. Replaying a history is
what every replica does (a sealed choice is replayed sealed), so a seat, a spectator
and ``trutnet verify`` tell the same story.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import EngineError
from trutnet.games.lutin.rules.actions import (
    BonusPick,
    Dealt,
    Discard,
    First,
    Seal,
    Show,
    Take,
    TokenPlay,
)
from trutnet.games.lutin.rules.cards import kind
from trutnet.i18n import N_, _, ngettext

NAMES = {  # shown translated: card_name
    "g2": N_("Lutin 2"), "g3": N_("Farfadet 3"), "g4": N_("Korrigan 4"), "g5": N_("Elfe 5"),
    "g6": N_("Gnome 6"), "g7": N_("Gnome 7"), "g8": N_("Gnome 8"), "b4": N_("Kobold 4"),
    "b5": N_("Gobelin 5"), "b6": N_("Troll 6"), "nymph": N_("Nymph"), "harpy": N_("Harpy"),
    "mandragore": N_("Mandragore"),
}  # fmt: skip
EFFECTS = {  # L20, in a few words (shown translated: effect)
    "white": {
        "t11": N_("green->blue"), "t12": N_("blue->green"), "t13": N_("both cards void"),
        "t21": N_("+4 own green"), "t22": N_("own blue x2"), "t23": N_("+4 HP"),
        "t31": N_("-5 their green"), "t32": N_("-4 their blue"), "t33": N_("-5 HP to them"),
    },
    "black": {
        "t11": N_("swap with défausse"), "t12": N_("their card = 0"),
        "t13": N_("cancel their token"), "t21": N_("swap with hand"),
        "t22": N_("result x2"), "t23": N_("+1 VP if < 4"), "t31": N_("winner loses"),
        "t32": N_("loser wins manche"), "t33": N_("-1 VP them if > 2"),
    },
}  # fmt: skip


def card_name(card: str | None) -> str:
    """``Troll 6`` for ``b6`` (and for a lettered copy of the initiation decks, L31)."""
    if card is None:
        return "??"
    name = NAMES.get(kind(card) or card)
    return card if name is None else _(name)


def effect(power: str | None, token: str | None) -> str | None:
    """A token's effect in a few words (L20), as the screen says it; None if unknown."""
    said = EFFECTS.get(power or "", {}).get(token or "")
    return None if said is None else _(said)


def shown(card: str) -> str:
    """A card as the log names it: ``Troll 6``, ``Harpy`` (the screen's name too)."""
    return card_name(card)


@dataclass(frozen=True)
class Moment:
    """What the narration reads of a state."""

    phase: str
    attacker: int
    table: tuple[tuple[int, str], ...]
    last: Any
    vp: tuple[int, ...]
    hp: tuple[int, ...]
    manche: int
    hands: int
    winner: int | None
    power: str | None
    to_show: tuple[int, ...] = (0, 0)  # each seat's unplayed cards still to open (L15)

    @classmethod
    def of(cls, state: Any) -> Moment:
        queue = getattr(state, "queue", ())
        to_show = tuple(sum(1 for s, _ in queue if s == seat) for seat in range(2))
        return cls(
            state.phase, state.attacker, tuple(state.table), state.last, tuple(state.vp),
            tuple(state.hp), state.manche, state.hands, state.winner, state.power, to_show,
        )  # fmt: skip


@dataclass(frozen=True)
class Told:
    """One action of the history, its author (None: chance or unknown) and the state
    just before and after it (None when the history could not be replayed)."""

    seat: int | None
    action: Action
    before: Moment | None = None
    after: Moment | None = None


class Narrator:
    """The history as :class:`Told` events, replayed incrementally for a state that
    grows (a replica's), from the start for any other."""

    def __init__(self) -> None:
        self._state: Any = None
        self._shadow: Any = None
        self._events: list[Told] = []

    def events(self, state: Any) -> list[Told]:
        history = state.history()
        if state is not self._state or len(history) < len(self._events):
            self._state, self._events = state, []
            self._shadow = state.game.new_initial_state()
        for action in history[len(self._events) :]:
            self._events.append(self._replay(action))
        return list(self._events)

    def _replay(self, action: Action) -> Told:
        shadow = self._shadow
        if shadow is None:
            return Told(None, action)
        seat = shadow.current_seat()
        before = Moment.of(shadow)
        try:
            shadow.apply(action)
        except EngineError:  # told plainly from here on
            self._shadow = None
            return Told(None, action)
        return Told(seat if seat is not None and seat >= 0 else None, action, before,
                    Moment.of(shadow))  # fmt: skip


def token_label(power: str | None, action: TokenPlay | BonusPick | Discard) -> str:
    """``t13 (cancel their token)``, ``t11 b6 (swap with défausse)``, ``no token``."""
    if isinstance(action, TokenPlay) and action.source is None:
        return _("no token")
    name = action.name
    if name is None:
        return _("the bonus") if isinstance(action, TokenPlay) and action.source == "bonus" else "?"
    target = action.target if isinstance(action, TokenPlay) else None
    does = effect(power, name)
    text = name + (f" {target}" if target else "")
    return f"{text} ({does})" if does else text


def narrate(event: Told, names: Sequence[str] | None = None) -> list[str]:
    """Lines for one event, by the players' names (``seat 0`` without them)."""

    def who(seat: int | None) -> str:
        if seat is None:
            return _("someone")
        if names and seat < len(names):
            return names[seat]
        return _("seat {seat}").format(seat=seat)

    action, before, after, seat = event.action, event.before, event.after, event.seat
    if isinstance(action, First):
        return [_("{who} attacks first (a coin tossed jointly)").format(who=who(action.seat))]
    if isinstance(action, Dealt):
        if action.deck == "tokens":
            return [_("the 9 tokens are shuffled jointly: 3 each, 3 set aside unseen")]
        return [_("deck {deck} is shuffled jointly").format(deck=action.deck)]
    if before is None or after is None:  # the history could not be replayed
        return [] if str(action) == "seal" else [str(action)]
    lines = _action_lines(event, who)
    lines += _card_lines(before, after, seat, who)
    lines += _outcome_lines(before, after, who)
    return lines


def _action_lines(event: Told, who: Any) -> list[str]:
    action, before, seat = event.action, event.before, event.seat
    assert before is not None
    phase = before.phase
    if isinstance(action, Discard) and phase == "tdiscard_open":
        return [
            _("{who} discarded {token}: chosen in secret, now face up").format(
                who=who(seat), token=action.name
            )
        ]
    if isinstance(action, TokenPlay) and phase in ("window_open", "window_turn"):
        return [_("{who}: {what}").format(who=who(seat), what=token_label(before.power, action))]
    if isinstance(action, Seal) and phase == "bonus":
        return [_("{who} takes a face-up token as a secret bonus").format(who=who(seat))]
    if isinstance(action, BonusPick):
        return [
            _("{who}'s bonus is {token}").format(
                who=who(seat), token=token_label(before.power, action)
            )
        ]
    if isinstance(action, Take) and phase == "end_open":
        after = event.after
        more = after.to_show[seat] if after is not None and seat in (0, 1) else 0
        card = shown(action.card)
        if not more:  # two alike are two lines
            return [_("{who}'s unplayed card: {card}").format(who=who(seat), card=card)]
        return [
            ngettext(
                "{who}'s unplayed card: {card} ({n} more to show)",
                "{who}'s unplayed card: {card} ({n} more to show)",
                more,
            ).format(who=who(seat), card=card, n=more)
        ]
    if isinstance(action, Take) and phase == "swap_open":
        return [
            _("{who} takes {card} from its hand (t21)").format(
                who=who(seat), card=shown(action.card)
            )
        ]
    if isinstance(action, Show):
        cards = "  ".join(f"{who(int(p.deck[-1]))} {c}" for p, c in action.cards)
        return [_("unplayed cards: {cards}").format(cards=cards)]
    return []


def _card_lines(before: Moment, after: Moment, seat: int | None, who: Any) -> list[str]:
    """The card a play put on the table (its opening, in a base game)."""
    if before.phase not in ("attack", "riposte", "open"):
        return []
    if len(after.table) > len(before.table):
        s, card = after.table[len(before.table)]
    elif len(before.table) == 1 and after.last is not before.last and after.last is not None:
        s, card = 1 - after.last[0], after.last[2]  # the riposte, resolved at once
    else:
        return []
    if not before.table:
        return [_("{who} attacks with {card}").format(who=who(s), card=shown(card))]
    return [_("{who} ripostes with {card}").format(who=who(s), card=shown(card))]


def manche_ended(before: Moment, after: Moment) -> bool:
    """Whether the action ended a manche (a new one began, or the game ended)."""
    over = after.phase == "over" and before.phase != "over"
    return bool(before.manche) and (after.manche != before.manche or over)


def manche_winner(before: Moment, after: Moment) -> int | None:
    """The seat that won the manche the action ended: it opens the next (L8) and got
    its VP (a black t23 or t33 in the same combat may move VP too, L29)."""
    seat = after.attacker
    return seat if after.vp[seat] > before.vp[seat] else None


def _outcome_lines(before: Moment, after: Moment, who: Any) -> list[str]:
    lines = []
    if after.last is not None and after.last is not before.last:
        sa, ca, cb, d0, d1, win = after.last
        delta = (d0, d1)
        sb = 1 - sa
        won = _("nobody wins it") if win is None else _("{who} wins it").format(who=who(win))
        lines.append(
            _(
                "{a}'s {card_a} vs {b}'s {card_b}: {a} {delta_a:+d} HP, {b} {delta_b:+d} HP; "
                "{result}"
            ).format(
                a=who(sa),
                card_a=card_name(ca),
                b=who(sb),
                card_b=card_name(cb),
                delta_a=delta[sa],
                delta_b=delta[sb],
                result=won,
            )
        )
    vp0, vp1 = after.vp[0], after.vp[1]
    if manche_ended(before, after):
        won = manche_winner(before, after)
        if won is not None:
            lines.append(
                _("{who} wins manche {manche}: VP {vp0}-{vp1}").format(
                    who=who(won), manche=before.manche, vp0=vp0, vp1=vp1
                )
            )
        else:
            lines.append(_("manche {manche} ends: nobody wins it").format(manche=before.manche))
    elif after.vp != before.vp:
        lines.append(_("VP now {vp0}-{vp1}").format(vp0=vp0, vp1=vp1))
    if after.hands > before.hands and after.manche == before.manche and before.hands:
        lines.append(_("both hands empty, equal HP: 5 new cards each, same manche"))
    if after.phase == "over" and before.phase != "over":
        if after.winner is None:
            lines.append(_("game over: nobody wins, VP {vp0}-{vp1}").format(vp0=vp0, vp1=vp1))
        else:
            lines.append(
                _("game over: {who} wins, VP {vp0}-{vp1}").format(
                    who=who(after.winner), vp0=vp0, vp1=vp1
                )
            )
    return lines
