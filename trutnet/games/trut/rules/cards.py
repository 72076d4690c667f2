"""Trut's deck: French-suited playing cards, their identities, notation, Trut strength
and printed values.

A :class:`Card` is a small immutable value with a readable notation (``7h``, ``10s``,
``As``) that parses and prints back unchanged (decision D1 in ``docs/games/trut.md``).
Cards have a stable index 0..31 (suit-major), which is what other layers use to
encode a card. Nothing here knows about any game's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from trutnet.engine.errors import NotationError

RANKS: tuple[str, ...] = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("c", "d", "h", "s")
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}

# T1: strength, high to low: 7 > 8 > A > K > Q > J > 10 > 9. Suits never matter.
_STRENGTH = {"9": 0, "10": 1, "J": 2, "Q": 3, "K": 4, "A": 5, "8": 6, "7": 7}
# T1: printed values of the Robin Red edition.
_PRINTED = {"9": 1, "10": 2, "J": 3, "Q": 4, "K": 5, "A": 6, "8": 7, "7": 8}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card of the 32-card deck, identified by rank and suit."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in _STRENGTH or self.suit not in SUIT_NAMES:
            raise NotationError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def strength(self) -> int:
        """Trut strength, 0 (a nine) to 7 (a seven) [T1]."""
        return _STRENGTH[self.rank]

    @property
    def value(self) -> int:
        """Printed value, 1 (a nine) to 8 (a seven) [T1]."""
        return _PRINTED[self.rank]

    @property
    def index(self) -> int:
        """Stable index 0..31: ``suit * 8 + rank``, in the orders of SUITS and RANKS."""
        return SUITS.index(self.suit) * 8 + RANKS.index(self.rank)

    @property
    def symbol(self) -> str:
        """Rank and suit symbol, for people: ``7♥``."""
        return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"

    def __str__(self) -> str:
        return f"{self.rank}{self.suit}"

    def __repr__(self) -> str:
        return f"Card({self})"

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``7h``, ``10s``, ``As``... (exact, case-sensitive, D1)."""
        return parse_card(text)


@cache
def _card_table() -> dict[str, Card]:
    return {f"{r}{s}": Card(r, s) for s in SUITS for r in RANKS}


def parse_card(text: str) -> Card:
    """Parse one card in canonical notation; anything else is a NotationError."""
    card = _card_table().get(text)
    if card is None:
        raise NotationError(f"not a card: {text!r} (expected rank 7 8 9 10 J Q K A + suit c d h s)")
    return card


def card_from_index(index: int) -> Card:
    """The card with stable index ``index`` (0..31)."""
    if not 0 <= index < 32:
        raise NotationError(f"card index out of range: {index}")
    return FULL_DECK[index]


FULL_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
"""The 32 cards in index order."""


def format_cards(cards: tuple[Card, ...] | list[Card], symbols: bool = False) -> str:
    """Space-separated notation (or symbols, for people) of several cards."""
    return " ".join(c.symbol if symbols else str(c) for c in cards)
