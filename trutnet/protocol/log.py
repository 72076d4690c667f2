"""The table log: signed entries, each naming the id of the entry before it.

A replica accepts an entry only if it extends its current head (``prev`` is the head's
id) and carries its author's next sequence number. Two different signed entries from
one author with the same sequence number extending the same entry are proof of
equivocation. (The same author and number after two different entries is not: the
only fork an honest author can see is a stalled seat's entry overridden by a
``void``, 7.8, after which it writes its next entry again.) Pure: no I/O.
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
        self._index: dict[bytes, int] = {}  # entry id -> position

    @property
    def head(self) -> bytes:
        return self.entries[-1].id if self.entries else GENESIS

    def next_seq(self, author: bytes) -> int:
        return self._next_seq.get(author, 0)

    def index_of(self, entry_id: bytes) -> int | None:
        """The position of the entry with this id, if it is in the log."""
        return self._index.get(entry_id)

    def known(self, entry: Entry) -> Entry | None:
        """The logged entry with ``entry``'s author and sequence number, if any."""
        return self._by_author_seq.get((entry.author, entry.seq))

    def equivocation(self, entry: Entry) -> Blame | None:
        """A blame if ``entry`` conflicts with an entry of the same author and sequence
        that extends the same entry."""
        known = self._by_author_seq.get((entry.author, entry.seq))
        if known is None or known.wire == entry.wire or known.prev != entry.prev:
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
        known = self._by_author_seq.get((entry.author, entry.seq))
        if known is not None and known.wire == entry.wire:
            raise LogError("duplicate", "entry already in the log")
        if known is not None:
            raise LogError("chain", "entry of another branch (7.8)")
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
        self._index[entry.id] = len(self.entries)
        self.entries.append(entry)
        self._next_seq[entry.author] = entry.seq + 1
        self._by_author_seq[(entry.author, entry.seq)] = entry

    def __len__(self) -> int:
        return len(self.entries)
