"""Readable text for Trut events, as shown by ``selfplay --verbose`` and the client log.

Events are the public dicts returned by ``TrutState.apply``; the narration reads the
state only for what everyone may see, plus the hands when it is given full knowledge.
"""

from __future__ import annotations

from typing import Any

from trutnet.engine.cards import format_cards, parse_card
from trutnet.engine.games.trut.state import TrutState

WORDS = {
    "accept": "Joue ! (accepts)",
    "fold": "Je me couche (folds)",
}
TRUT_KINDS = {
    "call": "calls Trut!",
    "office": "must Trut: Trut d'office [T18]",
    "fortial": "truts au Fortial [T15]",
}


def _tokens(state: TrutState, event: dict[str, Any]) -> str:
    parts = []
    for team, seats in enumerate(state.teams):
        name = "seat " + "+".join(str(s) for s in seats)
        parts.append(f"{name}: {event['longs'][team]} Longs {event['petits'][team]} Petits")
    return " | ".join(parts)


def _team_name(state: TrutState, team: int | None) -> str:
    if team is None:
        return "nobody"
    seats = state.teams[team]
    return f"seat {seats[0]}" if len(seats) == 1 else "team " + "+".join(map(str, seats))


def narrate(event: dict[str, Any], state: TrutState, show_hands: bool = True) -> list[str]:
    """Lines of text for one event; ``state`` is the state right after the action."""
    kind = event["event"]
    if kind == "draw":
        return [f"  draw for Donneur: seat {event['seat']} shows {event['card']}"]
    if kind == "draw_tie":
        return [f"  tie between seats {', '.join(map(str, event['seats']))}: draw again [T3]"]
    if kind == "draw_restart":
        return ["  the draw ran out of cards: a full deck again [D2]"]
    if kind == "first_dealer":
        return [f"  seat {event['seat']} is the first Donneur"]
    if kind == "deal":
        lines = [f"Hand {event['hand'] + 1}: Donneur seat {event['dealer']}"]
        if show_hands and state.known:
            for seat in range(state.n):
                cards = [state.known[p] for p in state.holdings[seat] if p in state.known]
                lines.append(f"  seat {seat} holds {format_cards(cards, symbols=True)}")
        return lines
    if kind == "fortial":
        return [f"  {_team_name(state, event['team'])} is au Fortial [T15]"]
    if kind == "fortial_decision":
        return [f"  seat {event['seat']} (au Fortial): {event['word']}"]
    if kind == "chanson":
        return [f"  la Chanson! seat {event['singer']} is asked to sing [T19]"]
    if kind == "sing_ask":
        word = "sings" if event["word"] == "sing" else "does not sing"
        return [f"  seat {event['seat']} {word}"]
    if kind == "sing_agree":
        return [f"  seat {event['seat']} {event['word']}s"]
    if kind == "sing_draw":
        return [f"  everyone draws {event['count']} card(s) from the stock"]
    if kind == "keep":
        return [f"  seat {event['seat']} keeps 3, discards {event['discarded']} unseen"]
    if kind == "trut":
        if event["kind"] == "chanson":
            return ["  the hand is played as an accepted Trut, no fold [T19]"]
        return [f"  seat {event['seat']} {TRUT_KINDS[event['kind']]}"]
    if kind == "answer":
        return [f"  seat {event['seat']}: {WORDS[event['word']]}"]
    if kind == "folded_out":
        return [f"  seat {event['seat']} is out of this hand [T20]"]
    if kind == "trut_accepted":
        return []
    if kind in ("play", "hand_void"):
        return []
    if kind == "trick":
        shown = ", ".join(f"{s}:{parse_card(c).symbol}" for s, c in event["cards"])
        if event["patte"]:
            result = "patté"
        elif event["by_sum"]:
            result = f"won by {_team_name(state, event['team'])} on the sum [T21]"
        else:
            result = f"won by seat {event['winner']}"
        return [f"  trick {event['number']}: {shown} -> {result}"]
    if kind == "hand_end":
        result = event["result"]
        if result == "void":
            head = "the hand is void: nobody scores, same Donneur [D16]"
        elif result == "pourrie":
            head = "pourrie: nobody scores, same Donneur [T7]"
        elif result == "fold":
            head = f"{_team_name(state, event['team'])} wins by fold [T11]"
        elif result == "fortial_pass":
            head = "au Fortial, nobody truts: the opponents score [T15]"
        else:
            head = f"{_team_name(state, event['team'])} wins the hand"
        return [f"  => {head}; {_tokens(state, event)}"]
    if kind == "game_end":
        return [f"Game over: {_team_name(state, event['winner'])} wins"]
    return [f"  {event}"]
