"""The end of a game for one process's table runtime (docs/protocol.md 9.2): every
local seat signs ``done`` at the head of the finished log (retained on the process's
``done`` topic); :class:`TableEnd` reads the others' into the protocol's
:class:`~trutnet.protocol.done.DoneBoard` (which seats are not yet known to have the
whole log, which ended past what this log has) at this process's clock, and keeps a
finished process answering syncs (:meth:`TableEnd.linger`) until nobody needs it any
more.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

from trutnet.net import topics
from trutnet.protocol.done import DoneBoard, done_message
from trutnet.runtime.events import Finished

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime


class TableEnd:
    """The ``done`` messages of one table, as one process sees them: a
    :class:`~trutnet.protocol.done.DoneBoard` read at this process's clock, and the
    lingering."""

    def __init__(self, table: TableRuntime, topic: str) -> None:
        self.table = table
        self.topic = topic  # this process's own ``done`` topic
        self.board = DoneBoard(table.table_id)
        self.stopped = asyncio.Event()  # the person has left the end screen

    def message(self) -> bytes:
        """Every local seat's signed ``done`` (not a newcomer following the table, not
        a replaced seat), naming the head of the finished log."""
        table = self.table
        seated = [(p.identity, p.seat) for p in table.peers if p.seated()]
        return done_message(table.table_id, table.head(), seated)

    def read(self, topic: str, payload: bytes) -> None:
        """Another process's ``done`` (its own topic and a cleared one are not)."""
        if topic == self.topic or not payload:
            return
        self.board.read(payload, self.table.replica, time.monotonic())

    def waiting_for(self) -> set[int]:
        """Seats not yet known to have the whole log."""
        return self.board.waiting_for(self.table.replica, self.table.local_seats())

    def ended_elsewhere(self) -> list[int]:
        """The other seats whose signed ``done`` names a head this log does not have."""
        return self.board.ended_elsewhere(self.table.replica, time.monotonic())

    def over_elsewhere(self) -> bool:
        """Every other seat said its game is over at a head this log lacks."""
        table = self.table
        return self.board.over_elsewhere(table.replica, table.local_seats(), time.monotonic())

    def stranded(self) -> bool:
        """Nothing more of this game will come to this process (``DoneBoard.stranded``)."""
        table = self.table
        return self.board.stranded(table.replica, table.local_seats(), time.monotonic())

    def stranded_since(self) -> float | None:
        """When this process became :meth:`stranded` (``time.monotonic()``), or None."""
        table = self.table
        return self.board.stranded_since(table.replica, table.local_seats(), time.monotonic())

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
