"""The entry types of a table's log (docs/protocol.md 7.3): which a seat's program
writes by itself (:data:`AUTOMATIC`) and which a seat decides (:data:`DECISIONS`), and
the largest entry of each type (:func:`size_limit`: far above honest sizes, far below
the cap; a larger deck's shuffle and a larger locate's rounds are allowed more).
"""

from __future__ import annotations

from typing import Any

from trutnet.crypto import Blinds
from trutnet.protocol.locate import share_batch_size

AUTOMATIC = (
    "keys",
    "commit",
    "reveal",
    "shuffle",
    "shares",
    "blind",
    "unblind",
    "unseal",
    "checkpoint",
    "result",
)
DECISIONS = ("act", "seal")
# Largest entry of each type, in bytes (7.3)
TYPE_LIMITS = {
    "open": 4096,
    "keys": 512,
    "commit": 512,
    "reveal": 512,
    "shuffle": 16384,
    "shares": 8192,
    "blind": 16384,
    "unblind": 8192,
    "act": 4096,
    "seal": 512,
    "unseal": 4096,
    "checkpoint": 512,
    "void": 8192,
    "abandon": 4096,
    "result": 512,
}
SHUFFLE_BYTES_PER_CARD = 196  # 8.7: a shuffle message is 2 + 196 N + 160 bytes
MAX_ACTION = 1024  # characters of a decision's notation


def size_limit(kind: str, decks: Any, locating: Any) -> int | None:
    """The largest entry of type ``kind`` in bytes now (None: no such type), given the
    table's decks (a :class:`~.shares.DeckLedger`) and the locate in progress."""
    limit = TYPE_LIMITS.get(kind)
    if kind == "shuffle" and decks.specs:  # a larger deck has a larger shuffle
        largest = decks.total  # a deck grows by carried cards to all decks' at most
        limit = max(TYPE_LIMITS["shuffle"], SHUFFLE_BYTES_PER_CARD * largest + 1024)
    if kind in ("blind", "unblind") and locating is not None:  # K positions
        count = len(locating.positions)
        size = Blinds.size(count) if kind == "blind" else share_batch_size(count)
        limit = max(TYPE_LIMITS[kind], size + 1024)
    return limit
