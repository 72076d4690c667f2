"""Trut Deluxe for people: the special cards' names and powers, and the lines that
narrate their events (die results included) [T23-T47]. Deluxe's rules are
:mod:`trutnet.games.trut.rules.deluxe`: the variant is ``deluxe`` in each half of the
package, a package of rules and one module of the front-end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from trutnet.games.trut.rules.actions import parse_any_card
from trutnet.games.trut.rules.deluxe.cards import TABLE, Special, letters_for
from trutnet.i18n import N_, _, ngettext

NAMES = {letter: row[1] for letter, row in TABLE.items()}  # in English, as the rules say

# The special cards' names and powers as the rules' TABLE says them in English, marked
# here for the catalogs (the pure rules mark nothing); :func:`special_name` and
# :func:`help_lines` say them in the players' language.
CARD_WORDS = (
    N_("Owl"),
    N_("its captor's team gains 1 Petit"),
    N_("Wolf"),
    N_("highest value; Wolf + Fox + Weasel: sing Michao"),
    N_("Boar"),
    N_("its trick is patté, whatever the values"),
    N_("Snake"),
    N_("its captor gains 1 Long (+1 Petit if a Trut runs)"),
    N_("Falcon"),
    N_("shown at the start; its holder sees his partners' hands"),
    N_("Hare"),
    N_("adds the value of the next stock card"),
    N_("Magpie"),
    N_("may steal a Petit (else a Long) from the opponents"),
    N_("Weasel"),
    N_("target, die: 1 swap 2 -2 3 new hand 4 pick 5 Trut 6 Petits"),
    N_("Raven"),
    N_("loses a die of value when a Fox (Jack) shares its trick"),
    N_("Badger"),
    N_("rolls the die and subtracts it from a Figure"),
    N_("Jay"),
    N_("fills the Jay pot with a die of Petits, or wins the pot"),
    N_("Nutria"),
    N_("rolls the die and is replaced by a stock card"),
    N_("Hedgehog"),
    N_("its team's Petits safe until they make a Long; set aside"),
    N_("Robin Red"),
    N_("its captor doubles the hand's gains, or loses more"),
    N_("Eagle"),
    N_("every Figure in its trick is worth 0"),
    N_("Bat"),
    N_("may give +1 or -1 to another card of its trick"),
    N_("Chimera"),
    N_("its captor's team gains 1 Long"),
    N_("Trhulhu"),
    N_("the opponents' cards in its trick get -3"),
)


def special_name(letter: str) -> str:
    """A special card's name for people, in their language (``Falcon``)."""
    return _(NAMES[letter])


class _Speaker(Protocol):
    def seat(self, seat: int) -> str: ...

    def team(self, team: int | None) -> str: ...


def help_lines(bonus_cards: bool = True, say: Callable[[str], str] = _) -> list[str]:
    """One line per special card: letter, name, value, power, ruling (``say``: the
    words in the players' language; ``str``: in English, as the rules say them)."""
    lines = []
    for letter in letters_for(bonus_cards):
        _french, english, value, power, rule = TABLE[letter]
        line = say(N_("{letter} {name} {value}: {power} [{rule}]"))
        lines.append(
            line.format(letter=letter, name=say(english), value=value, power=say(power), rule=rule)
        )
    return lines


# The Weasel's die (T37), said of its target.
WEASEL_OUTCOMES = {
    1: N_("the Weasel ({outcome}): swaps a card with {target}"),
    2: N_("the Weasel ({outcome}): gives -2 to the card in this trick of {target}"),
    3: N_("the Weasel ({outcome}): has the hand replaced from the stock of {target}"),
    4: N_("the Weasel ({outcome}): picks blind the next card of {target}"),
    5: N_("the Weasel ({outcome}): calls a Trut d'Office on {target}"),
    6: N_("the Weasel ({outcome}): takes the Petits of {target}"),
}


def card_name(notation: str) -> str:
    """A card for people: ``10♠``; a special card by its name, as the help names it
    (``Falcon``), never by its letter."""
    card = parse_any_card(notation)
    return special_name(card.letter) if isinstance(card, Special) else card.symbol


def power_lines(seat: int, action: str, say: _Speaker) -> list[str]:
    """A special card's power used (T36-T40), in words: the Weasel's choices are told
    by its own events (its target, its die, what it does), not twice."""
    verb, *args = action.split()
    who = say.seat(seat)
    if verb == "pass":
        return ["  " + _("{who} does not use the power").format(who=who)]
    if verb == "steal":
        if args:
            line = _("{who}'s Magpie steals from the team of {seat}")
            return ["  " + line.format(who=who, seat=say.seat(int(args[0])))]
        return ["  " + _("{who}'s Magpie steals from the opponents").format(who=who)]
    if verb == "hit":
        return ["  " + _("{who}'s Badger hits {card}").format(who=who, card=card_name(args[0]))]
    if verb == "bat":
        line = _("{who}'s Bat gives {change} to {card}")
        return ["  " + line.format(who=who, change=args[1], card=card_name(args[0]))]
    return []  # target, give, force: the Weasel's events say them


# The Deluxe events told in one line: as is, of the seat they name, of the team
SAID = {
    "prepare_again": N_("a seat was replaced: the special cards are prepared again"),
    "hedgehog_aside": N_("the Hedgehog is set aside by its team's tokens, not captured"),
}
SAID_OF_A_SEAT = {
    "keep_special": N_("{seat} keeps one special card, unseen"),
    "michao": N_("{seat} sings Michao! +1 Long"),
    "weasel_force": N_("{seat} must play the card picked blind next"),
    "weasel_fold": N_("{seat}'s side folds its Trut: the hand ends"),
}
SAID_OF_A_TEAM = {
    "hedgehog": N_("the Hedgehog protects the Petits of {team}"),
    "hedgehog_ends": N_("{team} makes a Long: the Hedgehog's protection ends"),
    "hedgehog_stays": N_(
        "the Hedgehog stays aside while it protects {team}: not among the specials dealt"
    ),
}


def narrate_deluxe(event: dict[str, Any], say: _Speaker) -> list[str] | None:
    """Lines for a Deluxe event, or None for an event that is not one."""
    kind = event["event"]
    if kind in SAID:
        return ["  " + _(SAID[kind])]
    if kind in SAID_OF_A_SEAT:
        return ["  " + _(SAID_OF_A_SEAT[kind]).format(seat=say.seat(event["seat"]))]
    if kind in SAID_OF_A_TEAM:
        return ["  " + _(SAID_OF_A_TEAM[kind]).format(team=say.team(event["team"]))]
    if kind == "prepare":
        line = _("the special cards are shuffled: {dealt} dealt, 2 each")
        return ["  " + line.format(dealt=event["dealt"])]
    if kind == "die":
        letter = event["for"]
        card = special_name(letter) if letter in NAMES else letter
        return ["  " + _("die for the {name}: {value}").format(name=card, value=event["value"])]
    if kind == "falcon":
        partners, holder = event["partners"], say.seat(event["seat"])
        if partners:
            line = _(
                "the table finds the Falcon in the hand of {holder}, "
                "who sees the cards of {partners}"
            )
            seen = ", ".join(say.seat(s) for s in partners)
            return ["  " + line.format(holder=holder, partners=seen)]
        return [
            "  " + _("the table finds the Falcon in the hand of {holder}").format(holder=holder)
        ]
    if kind == "nutria":
        line = _("the Nutria of {seat} is replaced by {card}")
        return ["  " + line.format(seat=say.seat(event["seat"]), card=card_name(event["card"]))]
    if kind == "hare":
        line = _("the Hare draws {card} from the stock: +{value}")
        return ["  " + line.format(card=card_name(event["card"]), value=event["value"])]
    if kind == "power":
        return power_lines(event["seat"], event["action"], say)
    if kind == "badger":
        line = _("the waiting Badger hits {card}: -{value}")
        return ["  " + line.format(card=card_name(event["card"]), value=event["value"])]
    if kind == "prizes":
        if not event["cards"]:  # the Jay pot alone: its own line told it
            return []
        cards = ", ".join(special_name(c) for c in event["cards"])
        gains = []
        if event["petits"]:
            gains.append(ngettext("+{n} Petit", "+{n} Petits", event["petits"]))
            gains[-1] = gains[-1].format(n=event["petits"])
        if event["longs"]:
            gains.append(ngettext("+{n} Long", "+{n} Longs", event["longs"]))
            gains[-1] = gains[-1].format(n=event["longs"])
        line = _("{team} captures {cards}: {gains}")
        return [
            "  " + line.format(team=say.team(event["team"]), cards=cards, gains=", ".join(gains))
        ]
    if kind == "jay_pot":
        petits = event["petits"]
        line = ngettext(
            "{team} takes the Jay pot: {n} Petit", "{team} takes the Jay pot: {n} Petits", petits
        )
        return ["  " + line.format(team=say.team(event["team"]), n=petits)]
    if kind.startswith("weasel"):
        return _weasel_lines(kind, event, say)
    if kind == "robin":
        if event["doubled"]:
            line = _("the Robin Red: {team} doubles its score")
        else:
            line = _("the Robin Red: {team} loses its Petits and a Long")
        return ["  " + line.format(team=say.team(event["team"]))]
    return None


def _weasel_lines(kind: str, event: dict[str, Any], say: _Speaker) -> list[str] | None:
    """Lines for the Weasel's events (T37): its target, its die, what came of it."""
    if kind == "weasel_target":
        line = _("{seat}'s Weasel targets {target}")
        return ["  " + line.format(seat=say.seat(event["seat"]), target=say.seat(event["target"]))]
    if kind == "weasel":
        line = _(WEASEL_OUTCOMES[event["outcome"]])
        return ["  " + line.format(outcome=event["outcome"], target=say.seat(event["target"]))]
    if kind == "weasel_swap":
        line = _("{seat} and {target} swap a card, each seen by its new owner only")
        return ["  " + line.format(seat=say.seat(event["seat"]), target=say.seat(event["target"]))]
    if kind == "weasel_replace":
        discarded = event["discarded"]
        line = ngettext(
            "{seat} discards {n} card unseen and draws {drawn}",
            "{seat} discards {n} cards unseen and draws {drawn}",
            discarded,
        )
        return ["  " + line.format(seat=say.seat(event["seat"]), n=discarded, drawn=event["drawn"])]
    if kind == "weasel_petits":
        petits = event["petits"]
        line = ngettext(
            "{giver} gives {n} Petit to {taker}", "{giver} gives {n} Petits to {taker}", petits
        )
        giver, taker = say.team(event["from"]), say.team(event["to"])
        return ["  " + line.format(giver=giver, n=petits, taker=taker)]
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
