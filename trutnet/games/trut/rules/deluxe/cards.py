"""The special cards of Trut Deluxe: letters, names, printed values [T23, T24, T27].

A :class:`Special` is a small immutable value like :class:`~trutnet.games.trut.rules.cards.Card`:
its notation is its letter (``A`` ... ``R``, the book's letters), which no normal
card's notation can be, so the two kinds of card mix in one deck (T26) and one
notation. Its ``strength`` is on T1's scale (a normal card's strength is its printed
value less one; T28: strength is value), so a Special and a Card compare directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from trutnet.engine.errors import NotationError
from trutnet.games.trut.rules.cards import Card

# letter: (French name, English name, printed value [T27], one-line power, ruling)
TABLE: dict[str, tuple[str, str, int, str, str]] = {
    "A": ("Chouette", "Owl", 4, "its captor's team gains 1 Petit", "T32"),
    "B": ("Loup", "Wolf", 9, "highest value; Wolf + Fox + Weasel: sing Michao", "T44"),
    "C": ("Sanglier", "Boar", 5, "its trick is patté, whatever the values", "T31"),
    "D": ("Couleuvre", "Snake", 2, "its captor gains 1 Long (+1 Petit if a Trut runs)", "T32"),
    "E": (
        "Faucon",
        "Falcon",
        6,
        "shown at the start; its holder sees his partners' hands",
        "T33",
    ),
    "F": ("Lièvre", "Hare", 1, "adds the value of the next stock card", "T34"),
    "G": ("Pie", "Magpie", 2, "may steal a Petit (else a Long) from the opponents", "T36"),
    "H": (
        "Belette",
        "Weasel",
        3,
        "target, die: 1 swap 2 -2 3 new hand 4 pick 5 Trut 6 Petits",
        "T37",
    ),
    "I": ("Corbeau", "Raven", 8, "loses a die of value when a Fox (Jack) shares its trick", "T38"),
    "J": ("Blaireau", "Badger", 4, "rolls the die and subtracts it from a Figure", "T39"),
    "K": ("Geai", "Jay", 3, "fills the Jay pot with a die of Petits, or wins the pot", "T41"),
    "L": ("Ragondin", "Nutria", 2, "rolls the die and is replaced by a stock card", "T35"),
    "M": (
        "Hérisson",
        "Hedgehog",
        3,
        "its team's Petits safe until they make a Long; set aside",
        "T42",
    ),
    "N": (
        "Rouge-Gorge",
        "Robin Red",
        3,
        "its captor doubles the hand's gains, or loses more",
        "T43",
    ),
    "O": ("Aigle", "Eagle", 5, "every Figure in its trick is worth 0", "T40"),
    "P": ("Chauve-souris", "Bat", 4, "may give +1 or -1 to another card of its trick", "T40"),
    "Q": ("Chimère", "Chimera", 2, "its captor's team gains 1 Long", "T32"),
    "R": ("Trhulhu", "Trhulhu", 3, "the opponents' cards in its trick get -3", "T40"),
}
BASIC_LETTERS = tuple("ABCDEFGHIJKLM")  # T23: the 13 special cards
BONUS_LETTERS = tuple("NOPQR")  # T23: the 5 bonus cards (option bonus_cards)
FIGURE_RANKS = frozenset({"J", "Q", "K"})  # T24: an Ace is not a Figure
FOX_RANK = "J"  # T24: the four Jacks are the Foxes


@dataclass(frozen=True, slots=True, order=True)
class Special:
    """One special card, named by its letter [T23]."""

    letter: str

    def __post_init__(self) -> None:
        if self.letter not in TABLE:
            raise NotationError(f"no special card {self.letter!r} (A-R)")

    @property
    def value(self) -> int:
        """Printed value [T27]."""
        return TABLE[self.letter][2]

    @property
    def strength(self) -> int:
        """On T1's scale, where a normal card's strength is its value less one [T28]."""
        return self.value - 1

    @property
    def name(self) -> str:
        return TABLE[self.letter][1]

    @property
    def french(self) -> str:
        return TABLE[self.letter][0]

    @property
    def power(self) -> str:
        """One line for people: what the card does, and its ruling."""
        return f"{TABLE[self.letter][3]} [{TABLE[self.letter][4]}]"

    @property
    def symbol(self) -> str:
        return f"{self.letter}:{self.name}"

    def __str__(self) -> str:
        return self.letter

    def __repr__(self) -> str:
        return f"Special({self.letter})"


AnyCard = Card | Special


@cache
def special(letter: str) -> Special:
    return Special(letter)


def letters_for(bonus_cards: bool, hedgehog_aside: bool = False) -> tuple[str, ...]:
    """The pool's cards, in index order (the ``specials`` deck's encodings) [T23];
    without the Hedgehog when a start position sets it aside (T42, D23)."""
    letters = BASIC_LETTERS + (BONUS_LETTERS if bonus_cards else ())
    return tuple(x for x in letters if x != "M") if hedgehog_aside else letters


def is_figure(card: AnyCard) -> bool:
    """T24: a J, Q or K of the 32 normal cards; no special card is a Figure."""
    return isinstance(card, Card) and card.rank in FIGURE_RANKS


def is_fox(card: AnyCard) -> bool:
    """T24 (Decision): the four Jacks are the Foxes."""
    return isinstance(card, Card) and card.rank == FOX_RANK


def is_letter(text: str) -> bool:
    return text in TABLE
