"""The end of a game as one process sees it (docs/protocol.md 9.2), sans-I/O: the
``done`` message its seats sign at the head of the finished log
(:func:`done_message`), and the others' read into a :class:`DoneBoard` (only a seat's
own signature counts, and only for the head it names), which says which seats are not
yet known to have the whole log, which ended past what this log has, and whether every
other seat did. The time is given, never read: the runtime's table end and
``trutnet sim`` ask the same board.

"Done" only decides how long a finished process stays around to answer syncs, never
what anyone accepts: a forged or stale one changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgpack

from trutnet.crypto import Identity
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.replica import TableReplica
from trutnet.protocol.untrusted import UntrustedInput, unpack

MAX_DONE_BYTES = 16 * 1024  # a done message: at most 16 signed entries
MAX_DONE_ENTRIES = 16
TAKEN_KEPT = 64  # done messages remembered as read (a table's seats say one each)
GRACE = 1.0  # seconds a seat a moment behind the others has to read their last entries


def done_message(table_id: bytes, head: bytes, seats: Iterable[tuple[Identity, int]]) -> bytes:
    """Every given seat's signed ``done`` (its identity, its seat): a vote-shaped
    message naming ``head``, the head of the finished log."""
    wires = [
        sign_entry(identity, table=table_id, seat=seat, seq=0, prev=head, type="done", body={}).wire
        for identity, seat in seats
    ]
    return msgpack.packb(wires, use_bin_type=True)


class DoneBoard:
    """The ``done`` messages of one table read by one process: the head each seat's
    signed ``done`` names, and when that head was first said."""

    def __init__(self, table_id: bytes) -> None:
        self.table_id = table_id
        self.heads: dict[int, bytes] = {}  # seat -> head its signed "done" names
        self.seen: dict[int, float] = {}  # seat -> when its "done" came (that head)
        # messages already taken whole: the same retained message comes again at every
        # re-subscription, and is not checked again (at most TAKEN_KEPT kept)
        self._taken: set[bytes] = set()

    def read(self, payload: bytes, replica: TableReplica | None, now: float) -> None:
        """Take a ``done`` message at time ``now``; :class:`UntrustedInput` (nothing
        taken from it past the bad entry) for one that is not a list of done entries
        signed by the seats' own keys. A message taken before changes nothing: it is
        not read again."""
        if payload in self._taken:
            return
        wires = unpack(payload, MAX_DONE_BYTES)
        if not isinstance(wires, list) or len(wires) > MAX_DONE_ENTRIES or replica is None:
            raise UntrustedInput("a done message is a list of signed done entries")
        for wire in wires:
            entry = parse_entry(wire, self.table_id)
            if entry.type != "done" or entry.seq != 0 or entry.body != {}:
                raise UntrustedInput("not a done entry")
            if entry.seat >= replica.n or replica.seats[entry.seat] != entry.author:
                raise UntrustedInput("a done entry signed by a key that is not the seat's")
            if self.heads.get(entry.seat) != entry.prev:
                self.seen[entry.seat] = now
            self.heads[entry.seat] = entry.prev
        if len(self._taken) >= TAKEN_KEPT:
            self._taken.clear()
        self._taken.add(payload)

    def waiting_for(self, replica: TableReplica | None, local: set[int]) -> set[int]:
        """The seats other than ``local`` not yet known to have the whole of
        ``replica``'s log (a seat that stopped the table, or that the game ended
        without, 7.7, is not waited for)."""
        if replica is None:
            return set()
        seats = set(range(replica.n)) - local
        if replica.halted is not None:
            seats.discard(replica.halted.seat)
        if replica.ended_without is not None:
            seats.discard(replica.ended_without.seat)
        head = replica.log.head
        return {s for s in seats if self.heads.get(s) != head}

    def ended_elsewhere(self, replica: TableReplica | None, now: float) -> list[int]:
        """The seats whose signed ``done`` names a head ``replica``'s log does not have,
        said more than :data:`GRACE` seconds before ``now``: their game ended (or
        stopped) past what this replica has read, as when a seat resumes into a game
        that ended while it was away. None while this replica's own game is over."""
        if replica is None or replica.state is None or finished(replica):
            return []
        old = now - GRACE
        return sorted(
            seat
            for seat, head in self.heads.items()
            if replica.log.index_of(head) is None and self.seen.get(seat, float("-inf")) < old
        )

    def over_elsewhere(self, replica: TableReplica | None, local: set[int], now: float) -> bool:
        """Every seat but ``local`` said its game is over at a head this log lacks:
        nothing this process writes can matter any more (one seat's word alone is not
        enough when there are others: it could silence a seat)."""
        if replica is None:
            return False
        others = set(range(replica.n)) - local
        return bool(others) and others <= set(self.ended_elsewhere(replica, now))

    def stranded(self, replica: TableReplica | None, local: set[int], now: float) -> bool:
        """Nothing more of this game will come: every seat but ``local`` said it is over
        at a head this log lacks (:meth:`over_elsewhere`), or, for a process that holds
        no seat (it writes nothing, so one seat's word is enough to stop following; a
        seat gone for good, which the others abandoned, never says one), any seat did."""
        return self.stranded_since(replica, local, now) is not None

    def stranded_since(
        self, replica: TableReplica | None, local: set[int], now: float
    ) -> float | None:
        """When this process became :meth:`stranded` (the moment the ``done`` that made
        it so was a :data:`GRACE` old), or None while it is not. A process waits its
        follow timeout from then, not from its last progress: a table that stalled for
        minutes and was then abandoned has its seats' ``done`` arrive long after the
        last entry, and they still answer the sync for what this log lacks."""
        ended = self.ended_elsewhere(replica, now)
        if replica is None or not ended:
            return None
        since = []
        if self.over_elsewhere(replica, local, now):  # the last of the others said it
            others = set(range(replica.n)) - local
            since.append(max(self.seen[s] for s in others) + GRACE)
        if not local:  # one seat's word is enough: the first that said it
            since.append(min(self.seen[s] for s in ended) + GRACE)
        return min(since) if since else None


def finished(replica: TableReplica) -> bool:
    """The replica's game is over: ended (``done``), or stopped by a blame."""
    return replica.phase == "done" or replica.halted is not None
