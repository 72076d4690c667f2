"""The end of a game for one process's table runtime (docs/protocol.md 9.2): every
local seat signs ``done`` at the head of the finished log (retained on the process's
``done`` topic); :class:`TableEnd` reads the others' (only a seat's own signature
counts, and only for the head it names), says which seats are not yet known to have
the whole log, which ended past what this log has, and keeps a finished process
answering syncs (:meth:`TableEnd.linger`) until nobody needs it any more.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import msgpack

from trutnet.net import topics
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.untrusted import UntrustedInput, unpack
from trutnet.runtime.events import Finished

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime

MAX_DONE_BYTES = 16 * 1024  # a done message: at most 16 signed entries
GRACE = 1.0  # seconds a seat a moment behind the others has to read their last entries


class TableEnd:
    """The ``done`` messages of one table, as one process sees them."""

    def __init__(self, table: TableRuntime, topic: str) -> None:
        self.table = table
        self.topic = topic  # this process's own ``done`` topic
        self.heads: dict[int, bytes] = {}  # seat -> head its signed "done" names
        self.seen: dict[int, float] = {}  # seat -> when its "done" came (that head)
        self.stopped = asyncio.Event()  # the person has left the end screen

    def message(self) -> bytes:
        """Every local seat's signed ``done``: a vote-shaped message naming the head of
        the finished log."""
        table = self.table
        wires = []
        for peer in table.peers:
            if peer.seated():  # not a newcomer following the table, not a replaced seat
                signed = sign_entry(
                    peer.identity,
                    table=table.table_id,
                    seat=peer.seat,
                    seq=0,
                    prev=table.head(),
                    type="done",
                    body={},
                )
                wires.append(signed.wire)
        return msgpack.packb(wires, use_bin_type=True)

    def read(self, topic: str, payload: bytes) -> None:
        """ "Done" only decides how long a finished peer stays around, never what anyone
        accepts; still, only a seat's own signature counts it as done, and only for
        the head it names (a forged or stale "done" changes nothing)."""
        if topic == self.topic or not payload:
            return
        wires = unpack(payload, MAX_DONE_BYTES)
        replica = self.table.replica
        if not isinstance(wires, list) or len(wires) > 16 or replica is None:
            raise UntrustedInput("a done message is a list of signed done entries")
        for wire in wires:
            entry = parse_entry(wire, self.table.table_id)
            if entry.type != "done" or entry.seq != 0 or entry.body != {}:
                raise UntrustedInput("not a done entry")
            if entry.seat >= replica.n or replica.seats[entry.seat] != entry.author:
                raise UntrustedInput("a done entry signed by a key that is not the seat's")
            if self.heads.get(entry.seat) != entry.prev:
                self.seen[entry.seat] = time.monotonic()
            self.heads[entry.seat] = entry.prev

    def waiting_for(self) -> set[int]:
        """Seats not yet known to have the whole log."""
        table = self.table
        replica = table.replica
        if replica is None:
            return set()
        seats = set(range(replica.n)) - table.local_seats()
        if replica.halted is not None:
            seats.discard(replica.halted.seat)
        if replica.ended_without is not None:  # 7.7: the stalled seat is not waited for
            seats.discard(replica.ended_without.seat)
        head = table.head()
        return {s for s in seats if self.heads.get(s) != head}

    def ended_elsewhere(self) -> list[int]:
        """The other seats whose signed ``done`` names a head this log does not have:
        their game ended (or stopped) past what this replica has read, as when a seat
        resumes into a game that ended while it was away."""
        table = self.table
        replica = table.replica
        if replica is None or replica.state is None or table.done():
            return []
        old = time.monotonic() - GRACE
        return sorted(
            seat
            for seat, head in self.heads.items()
            if replica.log.index_of(head) is None and self.seen.get(seat, 0) < old
        )

    def over_elsewhere(self) -> bool:
        """Every other seat said its game is over at a head this log lacks: nothing
        this process writes can matter any more, and it writes nothing (one seat's
        word alone is not enough when there are others: it could silence a seat)."""
        replica = self.table.replica
        if replica is None:
            return False
        others = set(range(replica.n)) - self.table.local_seats()
        return bool(others) and others <= set(self.ended_elsewhere())

    async def linger(self) -> None:
        """Say "done" (retained), then keep answering syncs until every other seat has
        said it too, the broker is gone for ``rehost_after`` seconds, or ``linger``
        seconds have passed; a person's screen (``keep_serving``) keeps answering until
        the person leaves it. Re-subscribing fetches the retained messages again, in
        case a delivery was lost. (Not on the presence topic: a connection that does
        not close cleanly has its will overwrite what was retained there.)"""
        table = self.table
        link = table.link
        loop = asyncio.get_running_loop()
        done = self.message()
        said = await link.publish(self.topic, done, retain=True, wait=5)
        deadline = loop.time() + table.options.linger
        replica = table.replica
        serving = table.keep_serving and replica is not None and replica.halted is None

        def needed() -> bool:  # a seat lacks the end, or someone behind asked lately
            return bool(self.waiting_for()) or table.sync.catching_up()

        while serving or (needed() and loop.time() < deadline):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), 0.5)
            if self.stopped.is_set():
                break
            since = link.disconnected_since
            gone = since is not None and loop.time() - since > table.options.rehost_after
            if gone and not serving:
                break
            if not said:
                said = await link.publish(self.topic, done, retain=True, wait=1)
            await link.resubscribe(topics.done(table.table_id, "+"))
        table.emit(Finished(sorted(self.waiting_for())))
