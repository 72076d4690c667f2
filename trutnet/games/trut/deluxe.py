"""Trut Deluxe for people: the special cards' names and powers, and the lines that
narrate their events (die results included) [T23-T47]."""

from __future__ import annotations

from typing import Any, Protocol

from trutnet.engine.games.trut.deluxe.cards import NOT_PLAYED_YET, TABLE, letters_for

NAMES = {letter: row[1] for letter, row in TABLE.items()}


class _Speaker(Protocol):
    def seat(self, seat: int) -> str: ...

    def team(self, team: int | None) -> str: ...


def help_lines(bonus_cards: bool = True) -> list[str]:
    """One line per special card: letter, name, value, power, ruling."""
    lines = []
    for letter in letters_for(bonus_cards):
        _, name, value, power, rule = TABLE[letter]
        star = "*" if letter in NOT_PLAYED_YET else ""
        lines.append(f"{letter} {name} {value}: {power} [{rule}]{star}")
    lines.append("* not played yet by this version: the card counts its value only")
    return lines


def narrate_deluxe(event: dict[str, Any], say: _Speaker) -> list[str] | None:
    """Lines for a Deluxe event, or None for an event that is not one."""
    kind = event["event"]
    if kind == "prepare":
        return [f"  the special cards are shuffled: {event['dealt']} dealt, 2 each [T25]"]
    if kind == "keep_special":
        return [f"  {say.seat(event['seat'])} keeps one special card, unseen [T25]"]
    if kind == "die":
        name = NAMES.get(event["for"], event["for"])
        return [f"  die for the {name}: {event['value']}"]
    if kind == "power":
        return [f"  {say.seat(event['seat'])}: {event['action']}"]
    if kind == "badger":
        return [f"  the waiting Badger hits {event['card']}: -{event['value']} [T39]"]
    if kind == "prizes":
        cards = ", ".join(NAMES[c] for c in event["cards"])
        return [
            f"  {say.team(event['team'])} captures {cards}: "
            f"+{event['petits']} Petit(s), +{event['longs']} Long(s) [T32]"
        ]
    if kind == "jay_pot":
        return [f"  {say.team(event['team'])} takes the Jay pot: {event['petits']} Petits [T41]"]
    if kind == "robin":
        what = "doubles its score" if event["doubled"] else "loses its Petits and a Long"
        return [f"  the Robin Red: {say.team(event['team'])} {what} [T43]"]
    return None
