"""Which broker a table's process uses, and who hosts one when it is lost
(docs/protocol.md 9.3): :class:`Succession` lists the candidates (the table's broker,
then every seat's fallback in seat order), starts this process's fallback broker once
its turn has come and no earlier candidate answers, stands down for an earlier live
one, and restarts a resumed host's own broker when it died with it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from trutnet.net.broker import BrokerError, EmbeddedBroker, Endpoint, parse_broker_url
from trutnet.runtime.events import Rehosted, RehostYielded

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime


class Succession:
    """The brokers of one table runtime's process."""

    def __init__(self, table: TableRuntime, base: list[Endpoint]) -> None:
        self.table = table
        self.base_endpoints = base  # the table's broker(s), as the process was given
        self.successor_broker: Any = None  # the broker this process started (9.3)
        self.own_broker: Endpoint | None = None  # the table's broker, ours to restart

    def candidates(self) -> list[Endpoint]:
        """The table's broker, then every seat's fallback broker in seat order (9.3)."""
        out = list(self.base_endpoints)
        replica = self.table.replica
        for fallback in replica.fallbacks if replica is not None else []:
            if not fallback:
                continue
            try:
                endpoint = parse_broker_url(fallback)
            except BrokerError:
                continue
            if endpoint not in out:
                out.append(endpoint)
        return out

    async def step(self) -> None:
        """After k-th-successor waits without a broker, start one at our fallback if
        no earlier candidate answers; a successor whose earlier candidate is alive again
        stands down, so that every peer ends on the earliest live broker."""
        table = self.table
        replica = table.replica
        if replica is None or table.done():
            return
        link = table.link
        mine = {p.seat for p in table.peers}
        if self.own_broker is not None:  # a resumed host whose broker died with it
            gone = self.successor_broker is None and link.disconnected_since is not None
            if gone and await first_reachable(self.candidates()) is None:
                await self._start(min(mine), self.own_broker)
            return
        earlier = list(self.base_endpoints)
        rank = 0
        for seat, fallback in enumerate(replica.fallbacks):
            if not fallback:
                continue
            rank += 1
            endpoint = parse_broker_url(fallback)
            if seat not in mine:
                earlier.append(endpoint)
                continue
            if self.successor_broker is not None:
                alive = await first_reachable(earlier)
                if alive is not None:  # stand down for an earlier live broker
                    self.stop()
                    table.emit(RehostYielded(seat, alive.url))
                return
            since = link.disconnected_since
            if since is None:
                return
            waited = asyncio.get_running_loop().time() - since
            if waited < table.options.rehost_after * (2 * rank - 1):
                return
            if await first_reachable(earlier, timeout=1.0) is None:
                await self._start(seat, endpoint)  # else the link will find it
            return

    async def _start(self, seat: int, endpoint: Endpoint) -> None:
        broker = EmbeddedBroker(endpoint.host, endpoint.port)
        await asyncio.get_running_loop().run_in_executor(None, broker.start)
        self.successor_broker = broker  # stopped once everyone is done (9.2)
        self.table.emit(Rehosted(seat, endpoint.url))

    def stop(self) -> None:
        """Stop the broker this process started, if any."""
        if self.successor_broker is not None:
            self.successor_broker.stop()
            self.successor_broker = None


async def first_reachable(endpoints: list[Endpoint], timeout: float = 0.5) -> Endpoint | None:
    """The first of ``endpoints`` where something listens, or None."""
    for endpoint in endpoints:
        if await reachable(endpoint, timeout):
            return endpoint
    return None


async def reachable(endpoint: Endpoint, timeout: float = 0.5) -> bool:
    """Whether something listens at ``endpoint``. A TCP connection to a local port
    nobody listens on can connect to itself (same source and destination port): that
    is not a broker."""
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(endpoint.host, endpoint.port), timeout
        )
    except (OSError, TimeoutError):
        return False
    alive = writer.get_extra_info("sockname") != writer.get_extra_info("peername")
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return alive
