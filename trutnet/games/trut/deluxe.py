"""Trut Deluxe for people: the special cards' names and powers, and the lines that
narrate their events (die results included) [T23-T47]. Deluxe's rules are
:mod:`trutnet.games.trut.rules.deluxe`: the variant is ``deluxe`` in each half of the
package, a package of rules and one module of the front-end."""

from __future__ import annotations

from typing import Any, Protocol

from trutnet.client.view import plural
from trutnet.games.trut.rules.actions import parse_any_card
from trutnet.games.trut.rules.deluxe.cards import TABLE, Special, letters_for

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


def card_name(notation: str) -> str:
    """A card for people: ``10♠``; a special card by its name, as the help names it
    (``Falcon``), never by its letter."""
    card = parse_any_card(notation)
    return NAMES[card.letter] if isinstance(card, Special) else card.symbol


def power_lines(seat: int, action: str, say: _Speaker) -> list[str]:
    """A special card's power used (T36-T40), in words: the Weasel's choices are told
    by its own events (its target, its die, what it does), not twice."""
    verb, *args = action.split()
    who = say.seat(seat)
    if verb == "pass":
        return [f"  {who} does not use the power"]
    if verb == "steal":
        whom = f"the team of {say.seat(int(args[0]))}" if args else "the opponents"
        return [f"  {who}'s Magpie steals from {whom}"]
    if verb == "hit":
        return [f"  {who}'s Badger hits {card_name(args[0])}"]
    if verb == "bat":
        return [f"  {who}'s Bat gives {args[1]} to {card_name(args[0])}"]
    return []  # target, give, force: the Weasel's events say them


def narrate_deluxe(event: dict[str, Any], say: _Speaker) -> list[str] | None:
    """Lines for a Deluxe event, or None for an event that is not one."""
    kind = event["event"]
    if kind == "prepare":
        return [f"  the special cards are shuffled: {event['dealt']} dealt, 2 each"]
    if kind == "prepare_again":
        return ["  a seat was replaced: the special cards are prepared again"]
    if kind == "keep_special":
        return [f"  {say.seat(event['seat'])} keeps one special card, unseen"]
    if kind == "die":
        name = NAMES.get(event["for"], event["for"])
        return [f"  die for the {name}: {event['value']}"]
    if kind == "falcon":
        partners, holder = event["partners"], say.seat(event["seat"])
        look = f", who sees the cards of {', '.join(say.seat(s) for s in partners)}"
        return [f"  the table finds the Falcon in the hand of {holder}{look * bool(partners)}"]
    if kind == "nutria":
        card = card_name(event["card"])
        return [f"  the Nutria of {say.seat(event['seat'])} is replaced by {card}"]
    if kind == "michao":
        return [f"  {say.seat(event['seat'])} sings Michao! +1 Long"]
    if kind == "hare":
        return [f"  the Hare draws {card_name(event['card'])} from the stock: +{event['value']}"]
    if kind == "power":
        return power_lines(event["seat"], event["action"], say)
    if kind == "badger":
        return [f"  the waiting Badger hits {card_name(event['card'])}: -{event['value']}"]
    if kind == "prizes":
        if not event["cards"]:  # the Jay pot alone: its own line told it
            return []
        cards = ", ".join(NAMES[c] for c in event["cards"])
        gains = [f"+{plural(event[k], k[:-1].title())}" for k in ("petits", "longs") if event[k]]
        return [f"  {say.team(event['team'])} captures {cards}: {', '.join(gains)}"]
    if kind == "jay_pot":
        return [
            f"  {say.team(event['team'])} takes the Jay pot: {plural(event['petits'], 'Petit')}"
        ]
    if kind == "weasel_target":
        return [f"  {say.seat(event['seat'])}'s Weasel targets {say.seat(event['target'])}"]
    if kind == "weasel":
        what = WEASEL_OUTCOMES[event["outcome"]]
        return [f"  the Weasel ({event['outcome']}): {what} {say.seat(event['target'])}"]
    if kind == "weasel_swap":
        return [
            f"  {say.seat(event['seat'])} and {say.seat(event['target'])} swap a card, "
            "each seen by its new owner only"
        ]
    if kind == "weasel_replace":
        return [
            f"  {say.seat(event['seat'])} discards {plural(event['discarded'], 'card')} unseen"
            f" and draws {event['drawn']}"
        ]
    if kind == "weasel_force":
        return [f"  {say.seat(event['seat'])} must play the card picked blind next"]
    if kind == "weasel_fold":
        return [f"  {say.seat(event['seat'])}'s side folds its Trut: the hand ends"]
    if kind == "weasel_petits":
        return [
            f"  {say.team(event['from'])} gives {plural(event['petits'], 'Petit')} to "
            f"{say.team(event['to'])}"
        ]
    if kind == "hedgehog":
        return [f"  the Hedgehog protects the Petits of {say.team(event['team'])}"]
    if kind == "hedgehog_ends":
        return [f"  {say.team(event['team'])} makes a Long: the Hedgehog's protection ends"]
    if kind == "hedgehog_aside":
        return ["  the Hedgehog is set aside by its team's tokens, not captured"]
    if kind == "hedgehog_stays":
        return [
            f"  the Hedgehog stays aside while it protects {say.team(event['team'])}: "
            "not among the specials dealt"
        ]
    if kind == "robin":
        what = "doubles its score" if event["doubled"] else "loses its Petits and a Long"
        return [f"  the Robin Red: {say.team(event['team'])} {what}"]
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
    from trutnet.games.trut.rules.actions import PASS, Keep, Power, parse_any_card

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
