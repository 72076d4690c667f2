"""Truco's cards (rulings K2-K4): the 40-card Spanish deck and its notation, the
trick strength of each card, and the envido and flor values of a hand.

A card is rank then suit letter, lowercase: ``1e``, ``7o``, ``12c``, ``10b`` (K2);
these 40 strings are the only accepted forms. The deck's encoding order (a card's
index, ``docs/protocol.md``) is suit by suit (e, b, o, c), ranks 1-7, 10, 11, 12.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import combinations

from trutnet.engine.hidden import Deck

SUITS = ("e", "b", "o", "c")  # espada, basto, oro, copa (K2)
SUIT_NAMES = {"e": "espadas", "b": "bastos", "o": "oros", "c": "copas"}
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
CARDS = tuple(f"{r}{s}" for s in SUITS for r in RANKS)
DECK_NAME = "spanish40"
DECK = Deck(DECK_NAME, CARDS)
CARD_SET = frozenset(CARDS)
POSITIONS = tuple(DECK.position(i) for i in range(len(CARDS)))  # spanish40@0 .. @39

# K3: trick strength, 13 = highest (1e) .. 0 = lowest (4s); one level ties.
_LEVEL_OF_RANK = {3: 9, 2: 8, 12: 6, 11: 5, 10: 4, 6: 2, 5: 1, 4: 0}
_BRAVAS = {"1e": 13, "1b": 12, "7e": 11, "7o": 10, "1o": 7, "1c": 7, "7c": 3, "7b": 3}
LEVEL = {c: _BRAVAS.get(c, _LEVEL_OF_RANK.get(int(c[:-1]), -1)) for c in CARDS}


def rank(card: str) -> int:
    return int(card[:-1])


def suit(card: str) -> str:
    return card[-1]


def value(card: str) -> int:
    """K4: a card's envido value: its number for 1-7, 0 for 10, 11, 12."""
    r = rank(card)
    return r if r <= 7 else 0


VALUE = {c: value(c) for c in CARDS}


def envido(cards: Iterable[str]) -> int:
    """K4: 20 + the two highest values of a suit held at least twice, else the
    highest single value (0-7 or 20-33)."""
    best = 0
    top: dict[str, int] = {}  # the highest value seen of each suit
    for card in cards:
        worth = VALUE[card] if card in VALUE else value(card)
        kind = card[-1]
        if kind in top:
            high, low = max(top[kind], worth), min(top[kind], worth)
            best = max(best, 20 + high + low)
            top[kind] = high
        else:
            top[kind] = worth
            best = max(best, worth)
    return best


def is_flor(cards: Iterable[str]) -> bool:
    """K4: three cards of one suit."""
    cards = list(cards)
    return len(cards) == 3 and len({suit(c) for c in cards}) == 1


def flor(cards: Iterable[str]) -> int:
    """K4: a flor's value, 20 + the three values (20-38)."""
    return 20 + sum(value(c) for c in cards)


ENVIDO_VALUES = tuple(range(0, 8)) + tuple(range(20, 34))  # K20
FLOR_VALUES = tuple(range(20, 39))  # K20


@cache
def hands_declaring(kind: str, points: int) -> tuple[tuple[str, ...], ...]:
    """Every hand of three cards whose ``kind`` (``envido`` or ``flor``, K4) is worth
    ``points``, in the deck's order: what a sample draws from for a seat that declared
    them (K20) when random draws find none."""
    worth = flor if kind == "flor" else envido
    return tuple(
        hand
        for hand in combinations(CARDS, 3)
        if worth(hand) == points and (kind != "flor" or is_flor(hand))
    )


# K15: the signs partners make, each a card of a menu the table places face down:
# the four bravas, "a three", "a two", a false ace (1o or 1c), flor (only with the
# flor option), an envido of 30 or more, and nothing worth telling.
SIGNS = ("1e", "1b", "7e", "7o", "3", "2", "1f", "flor", "envido", "nada")
SIGN_MENU = Deck("truco-senas", SIGNS)
SIGN_MENU_NO_FLOR = Deck("truco-senas-no-flor", tuple(s for s in SIGNS if s != "flor"))
SIGNS_A_HAND = 3  # K15


def sign_for(cards: Iterable[str], flor_option: bool) -> str:
    """K15: the sign that tells the most of ``cards`` (a hand): its best brava, else a
    three or a two, else a false ace; a flor or an envido of 30 or more when it holds
    none of those; else nothing."""
    cards = list(cards)
    for card in ("1e", "1b", "7e", "7o"):
        if card in cards:
            return card
    if flor_option and is_flor(cards):
        return "flor"
    for number in ("3", "2"):
        if any(rank(c) == int(number) for c in cards):
            return number
    if any(c in ("1o", "1c") for c in cards):
        return "1f"
    return "envido" if envido(cards) >= 30 else "nada"


def sign_cards(sign: str) -> frozenset[str]:
    """K15: the cards one of which a hand holds when ``sign`` is true: the brava it
    names, the four cards of the rank it names (a three, a two), the false aces; none
    for a sign that tells something else (flor, envido, nothing)."""
    if sign in ("1e", "1b", "7e", "7o"):
        return frozenset((sign,))
    if sign in ("3", "2"):
        return frozenset(c for c in CARDS if rank(c) == int(sign))
    if sign == "1f":
        return frozenset(("1o", "1c"))
    return frozenset()


def sign_tells(cards: Iterable[str], sign: str, flor_option: bool) -> bool:
    """K15: whether a seat whose hand is ``cards`` (its three kept cards) could have made
    ``sign`` truly: it holds the brava it names, a card of the rank it names (a three,
    a two), a false ace (:func:`sign_cards`), a flor, an envido of 30 or more; *nada*
    says it holds nothing another sign would tell (:func:`sign_for`). What a reader's
    samples heed."""
    cards = list(cards)
    needed = sign_cards(sign)
    if needed:
        return not needed.isdisjoint(cards)
    if sign == "flor":
        return is_flor(cards)
    if sign == "envido":
        return envido(cards) >= 30
    return sign_for(cards, flor_option) == "nada"
