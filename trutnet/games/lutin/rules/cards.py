"""Lutin & Troll's cards and the result of one combat (``docs/games/lutin.md``).

A player's deck (L2): 19 green cards (4 ``g2``, 4 ``g3``, 4 ``g4``, 4 ``g5``, ``g6``,
``g7``, ``g8``), 3 blue (``b4``, ``b5``, ``b6``) and 3 red (``nymph``, ``harpy``,
``mandragore``). Copies of a kind are interchangeable: the rules see multisets of kinds.
The table's decks (:data:`DECKS`, initiation only: L31) need a distinct notation per
card, so their copies are lettered (``g2a`` .. ``g2d``); :func:`kind` maps either form
to its kind.
"""

from __future__ import annotations

from collections import Counter

from trutnet.engine.hidden import Deck

SEATS = 2  # L1
HAND = 5  # L16
MAX_HP = 12  # L3
WIN_VP = 5  # L3

RED = ("nymph", "harpy", "mandragore")
DECK_LIST: tuple[str, ...] = (
    *("g2",) * 4,
    *("g3",) * 4,
    *("g4",) * 4,
    *("g5",) * 4,
    "g6",
    "g7",
    "g8",
    "b4",
    "b5",
    "b6",
    *RED,
)  # L2
KINDS: tuple[str, ...] = tuple(dict.fromkeys(DECK_LIST))
FULL_DECK: Counter[str] = Counter(DECK_LIST)


def _lettered() -> tuple[str, ...]:
    seen: Counter[str] = Counter()
    names = []
    for k in DECK_LIST:
        seen[k] += 1
        names.append(k + "abcd"[seen[k] - 1] if FULL_DECK[k] > 1 else k)
    return tuple(names)


COPY_NAMES = _lettered()
_KIND_OF = {**{n: k for n, k in zip(COPY_NAMES, DECK_LIST, strict=True)}, **{k: k for k in KINDS}}
DECKS = tuple(Deck(f"lutin{s}", COPY_NAMES) for s in range(SEATS))  # L31: a deck per seat


def kind(card: str) -> str | None:
    """The kind of a card notation (``g5``, ``g5c`` -> ``g5``), None if it is none."""
    return _KIND_OF.get(card)


def colour(card: str) -> str:
    """``green``, ``blue`` or ``red``."""
    return "red" if card in RED else "green" if card[0] == "g" else "blue"


def value(card: str) -> int:
    """A green or blue card's value; a red card has none (L12)."""
    if card in RED:
        raise ValueError("a red card has no value (L12)")
    return int(card[1:])


def combat(x: str, y: str) -> tuple[int, int, int | None]:
    """The card result of ``x`` against ``y``, whichever attacked (L9): the HP change
    of ``x``'s owner, of ``y``'s owner, and the winner (0: ``x``, 1: ``y``, None; L7)."""
    if x in RED and y in RED:
        return 0, 0, None  # L9: red cards cancel each other
    if y in RED:
        dy, dx, win = combat(y, x)
        return dx, dy, None if win is None else 1 - win
    if x in RED:
        v = value(y)
        if x == "nymph":
            return 0, 0, 0  # L9: the hit is cancelled; the red card still wins (L7)
        if x == "harpy":
            return 0, -v, 0  # L10: the hit is sent back to the card's owner
        return v, 0, 0  # L11: the Mandragore's owner takes back v HP
    cx, cy = colour(x), colour(y)
    vx, vy = value(x), value(y)
    if cx != cy:  # L9: the blue card always hits the green one, its value
        return (-vy, 0, 1) if cx == "green" else (0, -vx, 0)
    if vx == vy:
        return 0, 0, None  # L9: equal values, nothing
    return (vx - vy, 0, 1) if vx < vy else (0, vy - vx, 0)


Counts = list[int]  # a multiset of kinds: a count per kind, in KINDS order


def kinds_listed(counts: Counts) -> list[str]:
    """The kinds of a multiset, each as often as it counts, in ``KINDS`` order."""
    return [k for k, n in zip(KINDS, counts, strict=True) for _ in range(n)]
