"""Readable text for Trut events, as shown by ``selfplay --verbose``, ``verify`` and the
client's log (through Trut's front-end, :mod:`trutnet.games.trut.frontend`).

Events are the public dicts returned by ``TrutState.apply``; the narration reads the
state only for what everyone may see, plus the hands when it is given full knowledge.
One notation everywhere: cards with suit symbols (``10♠``), one arrow (``→``), a seat
by its player's name when the names are known (``seat 2`` otherwise), a team by its
seats (``Ana & Bob``, or ``team 0+2``), and counted words in the singular for one
(``1 Petit``, ``2 Petits``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trutnet.client.view import ARROW
from trutnet.games.trut.deluxe import card_name, narrate_deluxe
from trutnet.games.trut.rules.state import TrutState
from trutnet.i18n import N_, _, ngettext

# A seat's answer to a Trut, by the event's word.
WORDS = {
    "accept": N_("{seat}: Joue ! (accepts)"),
    "fold": N_("{seat}: Je me couche (folds)"),
}
# A Trut called or forced, by its kind.
TRUT_KINDS = {
    "call": N_("{seat} calls Trut!"),
    "office": N_("{seat} must Trut: Trut d'office"),
    "fortial": N_("{seat} truts au Fortial"),
    "weasel": N_("{seat} must Trut: the Weasel's Trut d'Office"),
}
# A seat's decision au Fortial, and la Chanson's agreement, by the event's word.
FORTIAL_WORDS = {
    "trut": N_("{seat} (au Fortial): trut"),
    "pass": N_("{seat} (au Fortial): pass"),
}
SING_WORDS = {
    "agree": N_("{seat} agrees"),
    "refuse": N_("{seat} refuses"),
}
# A team's win, its verb agreed with its subject: one seat, several, the seat spoken
# to ("You"), or that seat with its partners ("You & Bob", in seat order).
WINS = {
    "game": (
        N_("Game over: {team} wins"),
        N_("Game over: {team} win"),
        N_("Game over: You win"),
        N_("Game over: {you_and_partners} win"),
    ),
    "fold": (
        N_("{team} wins by fold"),
        N_("{team} win by fold"),
        N_("You win by fold"),
        N_("{you_and_partners} win by fold"),
    ),
    "won": (
        N_("{team} wins the hand"),
        N_("{team} win the hand"),
        N_("You win the hand"),
        N_("{you_and_partners} win the hand"),
    ),
}


def card_symbol(notation: str) -> str:
    """A card for people: ``10s`` becomes ``10♠``; a Deluxe card its name, ``Falcon``."""
    return card_name(notation)


class Speaker:
    """Names seats and teams: by the players' names when given, else by seat numbers."""

    def __init__(
        self, state: TrutState, names: Sequence[str] | None = None, me: int | None = None
    ) -> None:
        self.state = state
        self.names = list(names) if names else None
        self.me = me  # the seat spoken to, as "You"

    def seat(self, seat: int) -> str:
        if seat == self.me:
            return _("You")
        if self.names is not None and 0 <= seat < len(self.names):
            return self.names[seat]
        return _("seat {seat}").format(seat=seat)

    def seats(self, seats: Sequence[int]) -> str:
        """Several seats: ``Ana, Bob and Eve`` (or ``seats 0, 1 and 2``)."""
        if self.names is None:
            words = [str(s) for s in seats]
            if len(words) > 1:
                return _("seats {seats}").format(seats=_and(words))
            return self.seat(seats[0])
        return _and([self.seat(s) for s in seats])

    def team(self, team: int | None) -> str:
        if team is None:
            return _("nobody")
        seats = self.state.teams[team]
        if len(seats) == 1:
            return self.seat(seats[0])
        if self.names is None:
            return _("team {seats}").format(seats="+".join(map(str, seats)))
        return " & ".join(self.seat(s) for s in seats)

    def wins(self, team: int | None, how: str) -> str:
        """``Ana wins the hand``, ``Ana & Bob win the hand``, ``team 0+2 wins the
        hand`` (a team is one subject): ``how`` is a key of :data:`WINS`."""
        one, many, you, you_and_partners = WINS[how]
        if team is None:
            return _(one).format(team=_("nobody"))
        seats = self.state.teams[team]
        if self.me in seats and len(seats) == 1:
            return _(you)
        several = self.names is not None and len(seats) > 1
        if self.me in seats and several:
            return _(you_and_partners).format(you_and_partners=self.team(team))
        return _(many if several or self.me in seats else one).format(team=self.team(team))

    def tokens(self, longs: Sequence[int], petits: Sequence[int]) -> str:
        line = _("{team}: {longs} {petits}")
        return " | ".join(
            line.format(
                team=self.team(team), longs=_longs(longs[team]), petits=_petits(petits[team])
            )
            for team in range(len(self.state.teams))
        )


def _longs(count: int) -> str:
    return ngettext("{n} Long", "{n} Longs", count).format(n=count)


def _petits(count: int) -> str:
    return ngettext("{n} Petit", "{n} Petits", count).format(n=count)


def _and(words: list[str]) -> str:
    if len(words) == 1:
        return words[0]
    return _("{first} and {last}").format(first=", ".join(words[:-1]), last=words[-1])


def narrate(
    event: dict[str, Any],
    state: TrutState,
    show_hands: bool = True,
    names: Sequence[str] | None = None,
) -> list[str]:
    """Lines of text for one event; ``state`` is the state right after the action.

    ``names`` (one per seat) replaces seat numbers by the players' names."""
    say = Speaker(state, names)
    kind = event["event"]
    before = _before_the_play(event, state, say, show_hands)
    if before is not None:
        return before
    if kind == "keep":
        line = _("{seat} keeps 3, discards {discarded} unseen")
        return ["  " + line.format(seat=say.seat(event["seat"]), discarded=event["discarded"])]
    if kind == "trut":
        if event["kind"] == "chanson":
            return ["  " + _("the hand is played as an accepted Trut, no fold")]
        if event["kind"] == "weasel":  # told with the Weasel's die (outcome 5)
            return []
        return ["  " + _(TRUT_KINDS[event["kind"]]).format(seat=say.seat(event["seat"]))]
    if kind == "answer":
        return ["  " + _(WORDS[event["word"]]).format(seat=say.seat(event["seat"]))]
    if kind == "folded_out":
        return ["  " + _("{seat} is out of this hand").format(seat=say.seat(event["seat"]))]
    if kind == "trut_accepted":
        return []
    if kind in ("play", "hand_void"):
        return []
    if kind == "trick":
        shown = ", ".join(f"{say.seat(s)} {card_symbol(c)}" for s, c in event["cards"])
        if event["patte"]:
            result = _("patté")
        elif event["by_sum"]:
            result = _("won by {team} on the sum").format(team=say.team(event["team"]))
        else:
            result = _("won by {seat}").format(seat=say.seat(event["winner"]))
        line = _("trick {number}: {cards} {arrow} {result}")
        return ["  " + line.format(number=event["number"], cards=shown, arrow=ARROW, result=result)]
    if kind == "hand_end":
        score = say.tokens(event["longs"], event["petits"])
        return [
            f"  {ARROW} {hand_result(event, say)}",
            "    " + _("score: {score}").format(score=score),
        ]
    if kind == "game_end":
        return [say.wins(event["winner"], "game")]
    deluxe = narrate_deluxe(event, say)
    return deluxe if deluxe is not None else [f"  {event}"]


def _before_the_play(
    event: dict[str, Any], state: TrutState, say: Speaker, show_hands: bool
) -> list[str] | None:
    """The lines of an event before a hand's play (the draw for Donneur, the deal, the
    Fortial, la Chanson), or None for another event."""
    kind = event["event"]
    if kind == "draw":
        line = _("draw for Donneur: {seat} shows {card}")
        return ["  " + line.format(seat=say.seat(event["seat"]), card=card_symbol(event["card"]))]
    if kind == "draw_tie":
        return ["  " + _("tie between {seats}: draw again").format(seats=say.seats(event["seats"]))]
    if kind == "draw_restart":
        return ["  " + _("the draw ran out of cards: a full deck again")]
    if kind == "first_dealer":
        return ["  " + _("{seat} is the first Donneur").format(seat=say.seat(event["seat"]))]
    if kind == "deal":
        line = _("Hand {number}: Donneur {seat}")
        lines = [line.format(number=event["hand"] + 1, seat=say.seat(event["dealer"]))]
        if show_hands and state.known:
            for seat in range(state.n):
                cards = [state.known[p] for p in state.holdings[seat] if p in state.known]
                held = " ".join(card_symbol(str(c)) for c in cards)
                lines.append(
                    "  " + _("{seat} holds {cards}").format(seat=say.seat(seat), cards=held)
                )
        return lines
    if kind == "fortial":
        return ["  " + _("{team} is au Fortial").format(team=say.team(event["team"]))]
    if kind == "fortial_decision":
        who, word = say.seat(event["seat"]), event["word"]
        if word in FORTIAL_WORDS:
            return ["  " + _(FORTIAL_WORDS[word]).format(seat=who)]
        return [f"  {who} (au Fortial): {word}"]
    if kind == "chanson":
        line = _("la Chanson! {seat} is asked to sing")
        return ["  " + line.format(seat=say.seat(event["singer"]))]
    if kind == "sing_ask":
        line = _("{seat} sings") if event["word"] == "sing" else _("{seat} does not sing")
        return ["  " + line.format(seat=say.seat(event["seat"]))]
    if kind == "sing_agree":
        who, word = say.seat(event["seat"]), event["word"]
        if word in SING_WORDS:
            return ["  " + _(SING_WORDS[word]).format(seat=who)]
        return [f"  {who} {word}s"]
    if kind == "sing_draw":
        count = event["count"]
        line = ngettext(
            "everyone draws {n} card from the stock",
            "everyone draws {n} cards from the stock",
            count,
        )
        return ["  " + line.format(n=count)]
    return None


def hand_result(event: dict[str, Any], say: Speaker) -> str:
    """How a hand ended, in one phrase (a ``hand_end`` event)."""
    result = event["result"]
    if result == "void":
        return _("the hand is void: nobody scores, same Donneur")
    if result == "pourrie":
        return _("pourrie: nobody scores, same Donneur")
    if result == "fold":
        return say.wins(event["team"], "fold")
    if result == "target":
        return _("a card's gain reached the target: the game ends at once")
    if result == "fortial_pass":
        return _("au Fortial, nobody truts: the opponents score")
    return say.wins(event["team"], "won")
