"""The table log: signed entries, each naming the id of the entry before it.

A replica accepts an entry only if it extends its current head (``prev`` is the head's
id) and carries its author's next sequence number. Two different signed entries from
one author with the same sequence number are proof of equivocation. Pure: no I/O.
"""

from __future__ import annotations

from trutnet.protocol.blame import Blame
from trutnet.protocol.envelope import GENESIS, Entry


class LogError(Exception):
    """An entry that does not extend the log; ``blame`` says who is at fault, if anyone."""

    def __init__(self, rule: str, message: str, blame: Blame | None = None) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.blame = blame


class TableLog:
    """An append-only, hash-chained sequence of entries."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._next_seq: dict[bytes, int] = {}
        self._by_author_seq: dict[tuple[bytes, int], Entry] = {}
        self._position: dict[bytes, int] = {}  # entry id -> index

    @property
    def head(self) -> bytes:
        return self.entries[-1].id if self.entries else GENESIS

    def position(self, entry_id: bytes) -> int | None:
        """The index of the entry with id ``entry_id``, or None if it is not here."""
        return self._position.get(entry_id)

    def next_seq(self, author: bytes) -> int:
        return self._next_seq.get(author, 0)

    def equivocation(self, entry: Entry) -> Blame | None:
        """A blame if ``entry`` conflicts with an entry of the same author and sequence."""
        known = self._by_author_seq.get((entry.author, entry.seq))
        if known is None or known.wire == entry.wire:
            return None
        return Blame(
            entry.seat,
            "equivocation",
            f"two entries with sequence number {entry.seq}",
            (known.wire, entry.wire),
        )

    def check(self, entry: Entry) -> None:
        """Raise LogError unless ``entry`` extends this log."""
        blame = self.equivocation(entry)
        if blame is not None:
            raise LogError("equivocation", blame.detail, blame)
        if (entry.author, entry.seq) in self._by_author_seq:
            raise LogError("duplicate", "entry already in the log")
        if entry.prev != self.head:
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

    def append(self, entry: Entry) -> None:
        self.check(entry)
        self.entries.append(entry)
        self._next_seq[entry.author] = entry.seq + 1
        self._by_author_seq[(entry.author, entry.seq)] = entry
        self._position[entry.id] = len(self.entries) - 1

    def __len__(self) -> int:
        return len(self.entries)
