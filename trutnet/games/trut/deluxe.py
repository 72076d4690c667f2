"""Trut Deluxe for people: the special cards' names and powers, and the lines that
narrate their events (die results included) [T23-T47]."""

from __future__ import annotations

from typing import Any, Protocol

from trutnet.engine.games.trut.deluxe.cards import TABLE, letters_for

NAMES = {letter: row[1] for letter, row in TABLE.items()}


class _Speaker(Protocol):
    def seat(self, seat: int) -> str: ...

    def team(self, team: int | None) -> str: ...


def help_lines(bonus_cards: bool = True) -> list[str]:
    """One line per special card: letter, name, value, power, ruling."""
    lines = []
    for letter in letters_for(bonus_cards):
        _, name, value, power, rule = TABLE[letter]
        lines.append(f"{letter} {name} {value}: {power} [{rule}]")
    return lines


WEASEL_OUTCOMES = {
    1: "swaps a card with",
    2: "gives -2 to the card in this trick of",
    3: "has the hand replaced from the stock of",
    4: "picks blind the next card of",
    5: "calls a Trut d'Office on",
    6: "takes the Petits of",
}


def narrate_deluxe(event: dict[str, Any], say: _Speaker) -> list[str] | None:
    """Lines for a Deluxe event, or None for an event that is not one."""
    kind = event["event"]
    if kind == "prepare":
        return [f"  the special cards are shuffled: {event['dealt']} dealt, 2 each [T25]"]
    if kind == "prepare_again":
        return ["  a seat was replaced: the special cards are prepared again [D22]"]
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
    if kind == "weasel_target":
        return [f"  {say.seat(event['seat'])}'s Weasel targets {say.seat(event['target'])} [T37]"]
    if kind == "weasel":
        what = WEASEL_OUTCOMES[event["outcome"]]
        return [f"  the Weasel ({event['outcome']}): {what} {say.seat(event['target'])} [T37]"]
    if kind == "weasel_swap":
        return [
            f"  {say.seat(event['seat'])} and {say.seat(event['target'])} swap a card, "
            "each seen by its new owner only [T37]"
        ]
    if kind == "weasel_replace":
        return [
            f"  {say.seat(event['seat'])} discards {event['discarded']} card(s) unseen and "
            f"draws {event['drawn']} [T37]"
        ]
    if kind == "weasel_force":
        return [f"  {say.seat(event['seat'])} must play the card picked blind next [T37]"]
    if kind == "weasel_fold":
        return [f"  {say.seat(event['seat'])}'s side folds its Trut: the hand ends [T37, T46]"]
    if kind == "weasel_petits":
        return [
            f"  {say.team(event['from'])} gives {event['petits']} Petit(s) to "
            f"{say.team(event['to'])} [T37]"
        ]
    if kind == "hedgehog":
        return [f"  the Hedgehog protects the Petits of {say.team(event['team'])} [T42]"]
    if kind == "hedgehog_ends":
        return [f"  {say.team(event['team'])} makes a Long: the Hedgehog's protection ends [T42]"]
    if kind == "hedgehog_aside":
        return ["  the Hedgehog is set aside by its team's tokens, not captured [T42]"]
    if kind == "hedgehog_stays":
        return [
            f"  the Hedgehog stays aside while it protects {say.team(event['team'])}: "
            "not among the specials dealt [T42]"
        ]
    if kind == "robin":
        what = "doubles its score" if event["doubled"] else "loses its Petits and a Long"
        return [f"  the Robin Red: {say.team(event['team'])} {what} [T43]"]
    return None


# The heuristic bot's preference when it keeps one of its two specials [T25]: cards
# that win tricks or pay prizes first, then the Weasel's and the Hedgehog's tokens.
KEEP_ORDER = "BCQDIANKHGMOJRPEFL"


def bot_choice(obs: Any) -> Any:
    """The heuristic bot's Deluxe decision (a ``choose`` or ``power`` phase):
    keep the best special (:data:`KEEP_ORDER`); steal whenever it can (with 3 players,
    from the opponent with the most tokens); hit the opponents' strongest Figure with
    the Badger; give -1 to the opponents' strongest card with the Bat, else pass; aim
    the Weasel at the opponent whose team holds the most Petits (T37, outcome 6's
    sake), give it the weakest card, pick blind the first position."""
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
    team_of = {s: t for t, seats in enumerate(obs.teams) for s in seats}
    targets = [a for a in powers if a.verb == "target"]
    if targets:  # T37: the most Petits to take (outcome 6), then the most cards

        def takes(action: Any) -> tuple[int, int]:
            seat = int(action.args[0])
            team = team_of[seat]
            return (0 if obs.protected == team else obs.petits[team], obs.hand_sizes[seat])

        return max(targets, key=takes)
    gives = [a for a in powers if a.verb == "give"]
    if gives:  # T37 (1): the weakest card goes

        def given(action: Any) -> int:
            text = action.args[0].split("@")[0]
            return parse_any_card(text).strength if text else 99

        return min(gives, key=given)
    steals = [a for a in powers if a.verb == "steal"]
    if steals:
        if len(steals) == 1:
            return steals[0]
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
