"""The table log: signed entries, each naming the head of the log it extends.

A replica accepts an entry only if it extends its current head (``prev`` is the
head) and carries its author's next sequence number. The head is the id of the last
entry, or, after an **unordered round** (7.2: a step every seat of a set writes at
once, such as ``checkpoint``), the round's digest: every entry of the round names
the head before it, and the round enters the log whole, in seat order
(:meth:`TableLog.append_round`), so the head still commits to every entry.

Two different signed entries from one author with the same sequence number
extending the same head are proof of equivocation. (The same author and number after
two different heads is not: the only fork an honest author can see is a stalled
seat's entry overridden by a ``void``, 7.8, after which it writes its next entry
again. Nor is a ``void``/``abandon`` beside its author's own entry of the round it
cuts short: the void overrides it.) Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from trutnet.protocol.blame import Blame
from trutnet.protocol.envelope import GENESIS, Entry

ROUND_DOMAIN = b"trutnet/v3/round"
OVERRIDES = ("void", "abandon")  # entries that may override a round in progress (7.8)


def round_digest(ids: Sequence[bytes]) -> bytes:
    """The head after an unordered round: SHA-256 of the domain and its entries' ids,
    in seat order (7.2)."""
    return hashlib.sha256(ROUND_DOMAIN + b"".join(ids)).digest()


class LogError(Exception):
    """An entry that does not extend the log; ``blame`` says who is at fault, if anyone."""

    def __init__(self, rule: str, message: str, blame: Blame | None = None) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.blame = blame


def equivocation_blame(known: Entry, entry: Entry) -> Blame | None:
    """A blame if ``known`` and ``entry`` are two different entries of one author with
    one sequence number extending one head (7.2); None otherwise. The evidence is the
    two entries in the order of their ids, so that every replica records the same
    blame whichever came first."""
    if (
        known.author != entry.author
        or known.seq != entry.seq
        or known.prev != entry.prev
        or known.wire == entry.wire
        or (known.type in OVERRIDES) != (entry.type in OVERRIDES)
    ):
        return None
    first, second = sorted((known, entry), key=lambda e: e.id)  # not in arrival order
    return Blame(
        entry.seat,
        "equivocation",
        f"two entries with sequence number {entry.seq}",
        (first.wire, second.wire),
    )


class TableLog:
    """An append-only, hash-chained sequence of entries."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._head = GENESIS
        self._next_seq: dict[bytes, int] = {}
        self._by_author_seq: dict[tuple[bytes, int], Entry] = {}
        self._index: dict[bytes, int] = {}  # entry id or round digest -> position

    @property
    def head(self) -> bytes:
        """What the next entry must name as ``prev``: the last entry's id, or the digest
        of the round that ends the log."""
        return self._head

    def next_seq(self, author: bytes) -> int:
        return self._next_seq.get(author, 0)

    def index_of(self, entry_id: bytes) -> int | None:
        """The position of the entry with this id (of the last entry of the round with
        this digest), if it is in the log."""
        return self._index.get(entry_id)

    def known(self, entry: Entry) -> Entry | None:
        """The logged entry with ``entry``'s author and sequence number, if any."""
        return self._by_author_seq.get((entry.author, entry.seq))

    def equivocation(self, entry: Entry) -> Blame | None:
        """A blame if ``entry`` conflicts with a logged entry of the same author and
        sequence that extends the same head."""
        known = self._by_author_seq.get((entry.author, entry.seq))
        return None if known is None else equivocation_blame(known, entry)

    def check(self, entry: Entry, head: bytes | None = None) -> None:
        """Raise LogError unless ``entry`` extends this log (at ``head``: the head)."""
        blame = self.equivocation(entry)
        if blame is not None:
            raise LogError("equivocation", blame.detail, blame)
        known = self._by_author_seq.get((entry.author, entry.seq))
        if known is not None and known.wire == entry.wire:
            raise LogError("duplicate", "entry already in the log")
        if known is not None:
            raise LogError("chain", "entry of another branch (7.8)")
        if entry.prev != (self._head if head is None else head):
            raise LogError("chain", "entry does not extend the head of the log")
        expected = self.next_seq(entry.author)
        if entry.seq != expected:
            raise LogError(
                "sequence",
                f"sequence number {entry.seq}, expected {expected}",
                Blame(
                    entry.seat,
                    "sequence",
                    f"sequence {entry.seq} instead of {expected}",
                    (entry.wire,),
                ),
            )

    def _add(self, entry: Entry) -> None:
        self._index[entry.id] = len(self.entries)
        self.entries.append(entry)
        self._next_seq[entry.author] = entry.seq + 1
        self._by_author_seq[(entry.author, entry.seq)] = entry

    def append(self, entry: Entry) -> None:
        self.check(entry)
        self._add(entry)
        self._head = entry.id

    def append_round(self, entries: Sequence[Entry]) -> None:
        """An unordered round, whole, in seat order: each entry names the head before
        the round; the head becomes the round's digest."""
        base = self._head
        for entry in entries:
            self.check(entry, base)
        for entry in entries:
            self._add(entry)
        self._head = round_digest([e.id for e in entries])
        self._index[self._head] = len(self.entries) - 1

    def __len__(self) -> int:
        return len(self.entries)
