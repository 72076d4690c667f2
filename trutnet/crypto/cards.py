"""Card encodings: N distinct group elements that anyone can derive, for any deck.

Card ``i`` of the deck named ``name`` is ``hash_to_point("trutnet/v1/card/" + name,
u16(i))``. Built-in decks: ``french32`` (32 cards) and ``spanish40`` (40 cards); any
other name makes a custom deck of any size. The crypto layer does not know what the
cards are: an index is all it returns.
"""

from __future__ import annotations

from functools import cache

from trutnet.crypto.errors import CryptoError
from trutnet.crypto.group import Point, hash_to_point

BUILTIN_DECKS = {"french32": 32, "spanish40": 40}
MAX_DECK = 1024


@cache
def deck_points(name: str, size: int) -> tuple[Point, ...]:
    """The encodings of cards 0..size-1 of deck ``name`` (cached)."""
    if BUILTIN_DECKS.get(name, size) != size:
        raise CryptoError(f"deck {name} has {BUILTIN_DECKS[name]} cards, not {size}")
    if not 0 <= size <= MAX_DECK or not name or len(name) > 64:  # 0: carried cards only
        raise CryptoError("deck size 0..1024 and a name of 1..64 characters")
    domain = b"trutnet/v1/card/" + name.encode()
    points = tuple(hash_to_point(domain, i.to_bytes(2, "big")) for i in range(size))
    if len(set(points)) != size:  # never happens; would break decryption
        raise CryptoError("card encodings collide")
    return points


class CardTable:
    """Maps a decrypted point back to its card index."""

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.points = deck_points(name, size)
        self._index = {bytes(p): i for i, p in enumerate(self.points)}

    def __len__(self) -> int:
        return len(self.points)

    def index_of(self, point: Point) -> int:
        if point.is_identity or bytes(point) not in self._index:
            raise CryptoError("the decrypted point is not a card of this deck")
        return self._index[bytes(point)]
