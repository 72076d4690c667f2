"""Lutin & Troll's expert mode: the power tokens and how a combat is resolved with them
(L19-L30; ``docs/games/lutin.md``).

The 9 tokens are the cells of the power card, ``t<row><column>`` (L20). White:
t11 green -> blue, t12 blue -> green, t13 both cards void, t21 +4 on one's green, t22
one's blue x2, t23 +4 HP, t31 -5 on the other's green, t32 -4 on the other's blue,
t33 -5 HP to the other. Black: t11 swap with one's défausse, t12 the other's card
becomes a green 0, t13 cancels the other's token, t21 swap with one's hand, t22 the
result doubled, t23 +1 VP (if < 4), t31 the winner loses, t32 the loser wins the
manche, t33 -1 VP to the other (if > 2).

The functions here are pure: the state gives them the two cards (by seat) and the
tokens played (by seat: name and target), and applies what they return.
"""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.hidden import Deck
from trutnet.games.lutin.rules.cards import RED, SEATS, colour, combat

TOKEN_NAMES = ("t11", "t12", "t13", "t21", "t22", "t23", "t31", "t32", "t33")  # L20
TOKEN_DECK = Deck("tokens", TOKEN_NAMES)
POWERS = {"expert-white": "white", "expert-black": "black"}  # L19
SIDES = ("own", "opp")  # white t11/t12: which card (L22)

Played = dict[int, tuple[str, str | None]]  # seat -> (token name, target)


def targets(power: str, name: str, defausse: list[str], slots: list[int]) -> list[str | None]:
    """The choices a token's effect needs (L22): white t11/t12 a card (own or the
    other's), black t11 a kind of one's défausse, black t21 a card of one's hand; a
    token whose effect finds nothing to act on is played without one."""
    if power == "white" and name in ("t11", "t12"):
        return list(SIDES)
    if power == "black" and name == "t11":
        return list(dict.fromkeys(defausse)) or [None]
    if power == "black" and name == "t21":
        return [f"hand/{k}" for k in slots] or [None]
    return [None]


@dataclass
class Result:
    """A combat's outcome: HP changes by seat (before L13's bounds), the winner, VP
    changes by seat (black t23/t33) and the seat that wins the manche (black t32)."""

    delta: list[int]
    winner: int | None
    vp: list[int]
    manche_to: int | None = None


def _card(col: str, val: int) -> str:
    return f"{'g' if col == 'green' else 'b'}{max(0, val)}"


def _by_seat(cards: dict[int, str]) -> tuple[list[int], int | None]:
    d0, d1, win = combat(cards[0], cards[1])
    return [d0, d1], win


def white(cards: dict[int, str], played: Played) -> Result:
    """L23, in its order."""
    names = {s: n for s, (n, _) in played.items()}
    if "t13" in names.values():  # (1) both cards void: no result, no winner
        delta, winner = [0, 0], None
    else:
        shown = {s: colour(c) for s, c in cards.items()}
        col = dict(shown)
        for s, (name, target) in played.items():  # (2) colours, as shown, both at once
            t = s if target == "own" else 1 - s
            if cards[t] in RED or name not in ("t11", "t12"):
                continue
            if name == "t11" and shown[t] == "green":
                col[t] = "blue"
            if name == "t12" and shown[t] == "blue":
                col[t] = "green"
        final = {}
        for s, card in cards.items():
            if card in RED:  # white tokens never change a red card
                final[s] = card
                continue
            val = int(card[1:])
            own, other = names.get(s), names.get(1 - s)
            if (own == "t21" and col[s] == "green") or (own == "t22" and col[s] == "blue"):
                val = val + 4 if own == "t21" else val * 2  # (3) the owner's first
            if other == "t31" and col[s] == "green":
                val -= 5
            if other == "t32" and col[s] == "blue":
                val -= 4
            final[s] = _card(col[s], val)  # no value below 0
        delta, winner = _by_seat(final)  # (4)
    for s, name in names.items():  # (5)
        if name == "t23":
            delta[s] += 4
        if name == "t33":
            delta[1 - s] -= 5
    return Result(delta, winner, [0, 0])


def cancelled(played: Played) -> set[int]:
    """Black t13 (L24 (1)): the seats whose token is cancelled."""
    t13 = [s for s, (n, _) in played.items() if n == "t13"]
    if len(t13) == 2:
        return set()  # two t13 cancel each other and nothing else
    return {1 - s for s in t13 if 1 - s in played}


def black(cards: dict[int, str], active: Played, vp: list[int]) -> Result:
    """L24 (3)-(9), on the cards after the swaps (2) and with the tokens still active
    after (1)."""
    names = {s: n for s, (n, _) in active.items()}
    final = dict(cards)
    for s, name in names.items():
        if name == "t12":  # (3) L26: the other's card becomes a green 0, red or not
            final[1 - s] = "g0"
    delta, winner = _by_seat(final)  # (4)
    if winner is not None and list(names.values()).count("t31") % 2:  # (5) L27
        delta = [delta[1], delta[0]]
        winner = 1 - winner
    delta = [d * 2 ** list(names.values()).count("t22") for d in delta]  # (6) L27
    change = [0] * SEATS
    for s, name in names.items():  # (8) L29, judged on the VP before the combat
        if name == "t23" and vp[s] < 4:
            change[s] += 1
        if name == "t33" and vp[1 - s] > 2:
            change[1 - s] -= 1
    manche_to = None
    if winner is not None and "t32" in names.values():  # (9) L28: the loser wins it
        manche_to = 1 - winner
    return Result(delta, winner, change, manche_to)
