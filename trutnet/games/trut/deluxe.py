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
    if kind == "falcon":
        partners, holder = event["partners"], say.seat(event["seat"])
        look = f", who sees the cards of {', '.join(say.seat(s) for s in partners)}"
        return [
            f"  the table finds the Falcon in the hand of {holder}{look * bool(partners)} [T33]"
        ]
    if kind == "nutria":
        return [f"  the Nutria of {say.seat(event['seat'])} is replaced by {event['card']} [T35]"]
    if kind == "michao":
        return [f"  {say.seat(event['seat'])} sings Michao! +1 Long [T44]"]
    if kind == "hare":
        return [f"  the Hare draws {event['card']} from the stock: +{event['value']} [T34]"]
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


# The heuristic bot's preference when it keeps one of its two specials [T25]: cards
# that win tricks or pay prizes first, cards with no power yet last.
KEEP_ORDER = "BCQDIANKGOJRPMEFHL"


def bot_choice(obs: Any) -> Any:
    """The heuristic bot's Deluxe decision (a ``choose`` or ``power`` phase):
    keep the best special (:data:`KEEP_ORDER`); steal whenever it can (with 3 players,
    from the opponent with the most tokens); hit the opponents' strongest Figure with
    the Badger; give -1 to the opponents' strongest card with the Bat, else pass."""
    from trutnet.engine.games.trut.actions import PASS, Keep, Power, parse_any_card

    legal = list(obs.legal)
    if obs.phase == "michao":  # T44: a free Long, always sing
        return next(a for a in legal if str(a) == "michao")
    if obs.phase == "choose":
        keeps = [a for a in legal if isinstance(a, Keep) and a.refs[0].card is not None]
        if keeps:
            return min(keeps, key=lambda a: KEEP_ORDER.index(str(a.refs[0].card)))
        return legal[0]
    mine = set(obs.teams[obs.team])
    owner = {str(card): seat for seat, card in obs.trick}

    def opponent_strength(action: Any) -> int:
        card = next(c for s, c in obs.trick if str(c) == action.args[0])
        return card.strength if owner[action.args[0]] not in mine else -99

    powers = [a for a in legal if isinstance(a, Power)]
    steals = [a for a in powers if a.verb == "steal"]
    if steals:
        if len(steals) == 1:
            return steals[0]
        team_of = {s: t for t, seats in enumerate(obs.teams) for s in seats}
        return max(
            steals,
            key=lambda a: (
                obs.longs[team_of[int(a.args[0])]] * 3 + obs.petits[team_of[int(a.args[0])]]
            ),
        )
    picks = [a for a in powers if a.verb == "pick" and "@" in a.args[0] and a.args[0][0] != "@"]
    if picks:  # T35: the strongest of the two cards
        return max(picks, key=lambda a: parse_any_card(a.args[0].split("@")[0]).strength)
    hits = [a for a in powers if a.verb == "hit"]
    if hits:
        return max(hits, key=opponent_strength)
    bats = [a for a in powers if a.verb == "bat" and a.args[1] == "-1"]
    bats = [a for a in bats if owner[a.args[0]] not in mine]
    if bats:
        return max(bats, key=opponent_strength)
    return PASS if PASS in legal else legal[0]
