"""The ``notice`` topic of one process's table runtime (docs/protocol.md 7.7, 9.7): a
stall report once per seat and point the table waits at, a seat's word that its person
left, the seats that want a rematch and where the host says it is,
and the notices of the other seats (:func:`~trutnet.protocol.notices.read_notice`),
each shown as a ``notice`` event naming its author.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.net import topics
from trutnet.protocol.envelope import sign_entry
from trutnet.protocol.notices import NEXT_KEY, read_notice
from trutnet.protocol.table import TablePeer
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.events import NoticeRead, StallReported

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime


class NoticeBoard:
    """The notices one table runtime's process signs and reads."""

    def __init__(self, table: TableRuntime) -> None:
        self.table = table
        self.left: dict[int, int] = {}  # seat -> log length when it said it left the table
        self.rematch: set[int] = set()  # the seats that want a rematch (9.7)
        # the rematch's table, broker, and (a sealed table's) key
        self.rematch_at: tuple[bytes, str, bytes | None] | None = None
        self._reported: tuple[int, int] | None = None  # (seat, log length) reported stalled

    def moved(self) -> None:
        """The table moved: a stall from now on is a new one."""
        self._reported = None

    async def say_leaving(self) -> None:
        """The person quits mid-game: each local seat signs that it left (a ``left``
        notice), so that the others' screens say so instead of "left, or lost?"."""
        table = self.table
        replica = table.replica
        if replica is None or replica.state is None or table.done():
            return
        for peer in table.peers:
            if peer.seated():
                body = {"kind": "left", "seat": peer.seat, "since_entry": len(replica.log)}
                await self.publish(peer, body, wait=2)

    async def want_rematch(self) -> None:
        """The person wants a rematch (9.7): each seat this process plays says so (the
        bots it seated follow their host)."""
        table = self.table
        replica = table.replica
        if replica is None or replica.phase != "done":
            return
        for peer in table.peers:
            if peer.seated():
                body = {"kind": "rematch", "seat": peer.seat, "since_entry": len(replica.log)}
                self.rematch.add(peer.seat)
                await self.publish(peer, body, wait=5)

    def rematch_agreed(self) -> bool:
        """Every seat of the finished game wants a rematch."""
        replica = self.table.replica
        return replica is not None and set(range(replica.n)) <= self.rematch

    async def announce_rematch(
        self, table_id: bytes, broker: str, key: bytes | None = None
    ) -> bool:
        """The host's seat (0) names the rematch's table (and, ``key``, the key a sealed
        table's next one is sealed with: the notice is sealed too, 9.7); False if it is
        not played here."""
        host = next((p for p in self.table.peers if p.seated() and p.seat == 0), None)
        if host is None:
            return False
        body = {"kind": "rematch_table", "seat": 0, "table": table_id, "broker": broker}
        if key is not None:
            body[NEXT_KEY] = key
        await self.publish(host, body, wait=5)
        return True

    async def report_stall(self, seat: int, waiting_for: Any, waited: float) -> bool:
        """The table has waited ``waited`` seconds for ``seat``: said once for this point
        of the log (a ``stall`` event, and a notice signed by a local seat); False when
        it was said already."""
        table = self.table
        entries = len(table.replica.log) if table.replica is not None else 0
        if self._reported == (seat, entries):
            return False
        self._reported = (seat, entries)
        notice = {
            "kind": "stall",
            "seat": seat,
            "waiting_for": list(waiting_for),
            "since_entry": entries,
            "seconds": round(waited),
        }
        table.emit(StallReported(seat, list(waiting_for), entries, round(waited)))
        reporter = next((p for p in table.peers if p.seated()), None)
        if reporter is not None:
            await self.publish(reporter, notice, wait=5)
        return True

    async def publish(self, peer: TablePeer, body: dict[str, Any], wait: float) -> None:
        """Publish ``body`` on the ``notice`` topic, signed by ``peer``'s seat at our head."""
        table = self.table
        signed = sign_entry(
            peer.identity,
            table=table.table_id,
            seat=peer.seat,
            seq=0,
            prev=table.head(),
            type="notice",
            body=body,
        )
        await table.link.publish(topics.notice(table.table_id), signed.wire, wait=wait)

    def read(self, payload: bytes) -> None:
        """A signed notice from a seat, shown as a ``notice`` event naming its author;
        a seat that left is noted (:attr:`left`)."""
        replica = self.table.replica
        if replica is None:
            raise UntrustedInput("a notice before the table opened")
        seat, body = read_notice(payload, self.table.table_id, replica.seats)
        if body["kind"] == "left":
            self.left[seat] = body["since_entry"]
        if body["kind"] == "rematch" and replica.phase == "done":
            self.rematch.add(seat)
        if body["kind"] == "rematch_table" and seat in self.rematch:
            self.rematch_at = (body["table"], body["broker"], body.get(NEXT_KEY))
        # a key is never shown: the event goes to screens and --json lines
        self.table.emit(NoticeRead(seat, {k: v for k, v in body.items() if k != NEXT_KEY}))
