"""Sync for one process's table (docs/protocol.md 9.2): :class:`SyncServer` asks for
what follows this log's head, notes each request seen on the ``sync`` topic, and
answers from a task of its own, never from the receive loop: one peer for the table,
only the entries after the head asked for, each at most once a second whatever the
number of requests (:class:`~trutnet.runtime.sync_answers.SyncAnswers`), at no more
than :data:`SYNC_BYTES_PER_SECOND`. Answers are verified like any entry by whoever
reads them, so a lying peer is caught.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from typing import TYPE_CHECKING

from trutnet.net import topics
from trutnet.protocol.envelope import GENESIS
from trutnet.runtime.sync_answers import (
    SyncAnswers,
    parse_sync_request,
    parting_position,
    rank,
    recent_void,
    sync_request,
)

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime

MAX_SYNC_ANSWER = 2000  # entries at most in one answer, and how far back a void is told
SYNC_BYTES_PER_SECOND = 256 * 1024  # at most this much log re-sent per second (9.2)
# A finished peer lingers while a peer behind its log has asked for it this recently (s):
# a newcomer or a spectator still catching up gets the end before the table leaves
CATCHING_UP = 5.0


class SyncServer:
    """The sync requests of one table runtime's process: asked, seen, answered."""

    def __init__(self, table: TableRuntime) -> None:
        self.table = table
        self.answers = SyncAnswers()  # the sync requests to see answered
        self.wanted = asyncio.Event()  # something to send: wakes :meth:`serve`
        self.asked_head: bytes | None = None  # the head of this peer's last request
        self.behind_asked = float("-inf")  # when a peer behind this log last asked for it
        self._void_answered = 0.0
        self._void_pending: bytes | None = None  # a void to tell a peer off our log (7.8)

    async def ask(self) -> None:
        """Ask for what follows this log's head; asked again for the same head (nothing
        came), with this log's length too, so that a log that parted from the table's
        is answered from where it parted (9.2)."""
        table = self.table
        table.stats.syncs_sent += 1
        head, replica = table.head(), table.replica
        again = head == self.asked_head and replica is not None
        self.asked_head = head
        body = sync_request(head, len(replica.log) if again and replica is not None else None)
        await table.link.publish(topics.sync(table.table_id), body, wait=5)

    def on_request(self, payload: bytes) -> None:
        """Note a sync request; :meth:`serve` answers it."""
        head, at = parse_sync_request(payload)
        table = self.table
        replica = table.replica
        if replica is None:
            if table.open_wire is None or head != GENESIS:
                return
            start = 0
        elif head == GENESIS:
            start = 0
        else:
            start = replica.log.index_of(head)
            if start is None:
                # 7.8: maybe a replaced seat that wrote at its place: tell it (at most 1/s)
                void = self.recent_void()
                now = time.monotonic()
                if void is not None:
                    if now - self._void_answered >= 1.0:
                        self._void_answered = now
                        self._void_pending = void
                        self.wanted.set()
                    return
                # the asker's log parted from ours (9.2): our entries from its last
                # position on, which show it where (an equivocation's proof, 7.2)
                start = parting_position(at, len(replica.log))
                if start is None:
                    return  # not in our log: someone else may answer
            else:
                start += 1
        if replica is not None and start < len(replica.log):
            self.behind_asked = time.monotonic()  # someone is catching up: linger for it
        seats = table.local_seats()
        players = replica.n if replica is not None else 1
        mine = rank(start, seats, players) if replica is not None else 0  # the host has the open
        self.answers.asked(start, time.monotonic(), mine)
        self.wanted.set()

    def recent_void(self) -> bytes | None:
        """What a replaced seat that wrote at its place needs (7.8): the last ``void``
        or ``abandon``, if it is among the last :data:`MAX_SYNC_ANSWER` entries."""
        replica = self.table.replica
        return None if replica is None else recent_void(replica, MAX_SYNC_ANSWER)

    def log_wire(self, position: int) -> bytes | None:
        """The wire of log entry ``position`` (past the log's end: the entries held in the
        unordered round in progress, in seat order), or None past the end."""
        replica = self.table.replica
        if replica is None:
            return self.table.open_wire if position == 0 else None
        entries = replica.log.entries
        if position < len(entries):
            return entries[position].wire
        held = replica.held()  # then what came of the unordered round in progress (7.2)
        return held[position - len(entries)] if position - len(entries) < len(held) else None

    def log_id(self, position: int) -> bytes | None:
        wire = self.log_wire(position)
        return None if wire is None else hashlib.sha256(wire).digest()

    def knows(self, entry_id: bytes) -> bool:
        """Whether ``entry_id`` is in the log here, or held in the round in progress."""
        replica = self.table.replica
        if replica is None:
            opened = self.table.open_wire
            return opened is not None and hashlib.sha256(opened).digest() == entry_id
        if replica.log.index_of(entry_id) is not None:
            return True
        return any(hashlib.sha256(w).digest() == entry_id for w in replica.held())

    def read(self, wire: bytes) -> None:
        """An entry on the ``log`` topic, which the table has just taken (or not): what
        went by answers sync requests."""
        entry_id = hashlib.sha256(wire).digest()
        known = self.knows(entry_id)
        self.table.ingest(wire)
        if known or self.knows(entry_id):
            self.answers.went_by(entry_id, time.monotonic(), again=known)

    def wrote(self, wire: bytes) -> None:
        """A local seat published ``wire``: no need to send it again at once."""
        self.answers.published(hashlib.sha256(wire).digest(), time.monotonic(), False)

    def catching_up(self) -> bool:
        """A peer behind this log (a newcomer, a spectator, a seat) asked for it lately."""
        window = max(CATCHING_UP, 4 * self.table.options.gap_timeout)
        return time.monotonic() - self.behind_asked < window

    async def serve(self) -> None:
        """Send the answers due, for as long as the table runs."""
        table = self.table
        budget = float(SYNC_BYTES_PER_SECOND)
        last = time.monotonic()
        wake: float | None = None
        while True:
            with contextlib.suppress(TimeoutError):
                wait = None if wake is None else max(0.0, wake - time.monotonic())
                await asyncio.wait_for(self.wanted.wait(), wait)
            self.wanted.clear()
            if self._void_pending is not None:
                void, self._void_pending = self._void_pending, None
                await table.link.publish(topics.log(table.table_id), void, wait=5)
            positions, wake = self.answers.due(self.log_id, time.monotonic(), MAX_SYNC_ANSWER)
            if positions:
                table.stats.syncs_answered += 1
                self.wanted.set()  # look again at once: there may be more
            for position in positions:
                wire = self.log_wire(position)
                if wire is None:
                    break
                now = time.monotonic()
                budget = min(SYNC_BYTES_PER_SECOND, budget + (now - last) * SYNC_BYTES_PER_SECOND)
                last = now
                if budget < len(wire):
                    await asyncio.sleep((len(wire) - budget) / SYNC_BYTES_PER_SECOND)
                    budget = float(len(wire))
                    last = time.monotonic()
                budget -= len(wire)
                entry_id = hashlib.sha256(wire).digest()
                self.answers.published(entry_id, time.monotonic(), answer=True)
                table.stats.resent += 1
                await table.link.publish(topics.log(table.table_id), wire, wait=5)
