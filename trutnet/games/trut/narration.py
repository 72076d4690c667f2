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

from trutnet.client.view import ARROW, plural
from trutnet.games.trut.deluxe import card_name, narrate_deluxe
from trutnet.games.trut.rules.state import TrutState

WORDS = {
    "accept": "Joue ! (accepts)",
    "fold": "Je me couche (folds)",
}
TRUT_KINDS = {
    "call": "calls Trut!",
    "office": "must Trut: Trut d'office",
    "fortial": "truts au Fortial",
    "weasel": "must Trut: the Weasel's Trut d'Office",
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
            return "You"
        if self.names is not None and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def seats(self, seats: Sequence[int]) -> str:
        """Several seats: ``Ana, Bob and Eve`` (or ``seats 0, 1 and 2``)."""
        if self.names is None:
            words = [str(s) for s in seats]
            return "seats " + _and(words) if len(words) > 1 else self.seat(seats[0])
        return _and([self.seat(s) for s in seats])

    def team(self, team: int | None) -> str:
        if team is None:
            return "nobody"
        seats = self.state.teams[team]
        if len(seats) == 1:
            return self.seat(seats[0])
        if self.names is None:
            return "team " + "+".join(map(str, seats))
        return " & ".join(self.seat(s) for s in seats)

    def team_verb(self, team: int | None, verb: str) -> str:
        """``Ana wins``, ``Ana & Bob win``, ``team 0+2 wins`` (a team is one subject)."""
        if team is None:
            return f"nobody {verb}s"
        seats = self.state.teams[team]
        many = (self.names is not None and len(seats) > 1) or self.me in seats
        return f"{self.team(team)} {verb if many else verb + 's'}"

    def tokens(self, longs: Sequence[int], petits: Sequence[int]) -> str:
        return " | ".join(
            f"{self.team(team)}: {plural(longs[team], 'Long')} {plural(petits[team], 'Petit')}"
            for team in range(len(self.state.teams))
        )


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


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
    if kind == "draw":
        return [f"  draw for Donneur: {say.seat(event['seat'])} shows {card_symbol(event['card'])}"]
    if kind == "draw_tie":
        return [f"  tie between {say.seats(event['seats'])}: draw again"]
    if kind == "draw_restart":
        return ["  the draw ran out of cards: a full deck again"]
    if kind == "first_dealer":
        return [f"  {say.seat(event['seat'])} is the first Donneur"]
    if kind == "deal":
        lines = [f"Hand {event['hand'] + 1}: Donneur {say.seat(event['dealer'])}"]
        if show_hands and state.known:
            for seat in range(state.n):
                cards = [state.known[p] for p in state.holdings[seat] if p in state.known]
                held = " ".join(card_symbol(str(c)) for c in cards)
                lines.append(f"  {say.seat(seat)} holds {held}")
        return lines
    if kind == "fortial":
        return [f"  {say.team(event['team'])} is au Fortial"]
    if kind == "fortial_decision":
        return [f"  {say.seat(event['seat'])} (au Fortial): {event['word']}"]
    if kind == "chanson":
        return [f"  la Chanson! {say.seat(event['singer'])} is asked to sing"]
    if kind == "sing_ask":
        word = "sings" if event["word"] == "sing" else "does not sing"
        return [f"  {say.seat(event['seat'])} {word}"]
    if kind == "sing_agree":
        return [f"  {say.seat(event['seat'])} {event['word']}s"]
    if kind == "sing_draw":
        return [f"  everyone draws {plural(event['count'], 'card')} from the stock"]
    if kind == "keep":
        discarded = event["discarded"]
        return [f"  {say.seat(event['seat'])} keeps 3, discards {discarded} unseen"]
    if kind == "trut":
        if event["kind"] == "chanson":
            return ["  the hand is played as an accepted Trut, no fold"]
        if event["kind"] == "weasel":  # told with the Weasel's die (outcome 5)
            return []
        return [f"  {say.seat(event['seat'])} {TRUT_KINDS[event['kind']]}"]
    if kind == "answer":
        return [f"  {say.seat(event['seat'])}: {WORDS[event['word']]}"]
    if kind == "folded_out":
        return [f"  {say.seat(event['seat'])} is out of this hand"]
    if kind == "trut_accepted":
        return []
    if kind in ("play", "hand_void"):
        return []
    if kind == "trick":
        shown = ", ".join(f"{say.seat(s)} {card_symbol(c)}" for s, c in event["cards"])
        if event["patte"]:
            result = "patté"
        elif event["by_sum"]:
            result = f"won by {say.team(event['team'])} on the sum"
        else:
            result = f"won by {say.seat(event['winner'])}"
        return [f"  trick {event['number']}: {shown} {ARROW} {result}"]
    if kind == "hand_end":
        score = say.tokens(event["longs"], event["petits"])
        return [f"  {ARROW} {hand_result(event, say)}", f"    score: {score}"]
    if kind == "game_end":
        return [f"Game over: {say.team_verb(event['winner'], 'win')}"]
    deluxe = narrate_deluxe(event, say)
    return deluxe if deluxe is not None else [f"  {event}"]


def hand_result(event: dict[str, Any], say: Speaker) -> str:
    """How a hand ended, in one phrase (a ``hand_end`` event)."""
    result = event["result"]
    if result == "void":
        return "the hand is void: nobody scores, same Donneur"
    if result == "pourrie":
        return "pourrie: nobody scores, same Donneur"
    if result == "fold":
        return f"{say.team_verb(event['team'], 'win')} by fold"
    if result == "target":
        return "a card's gain reached the target: the game ends at once"
    if result == "fortial_pass":
        return "au Fortial, nobody truts: the opponents score"
    return f"{say.team_verb(event['team'], 'win')} the hand"
