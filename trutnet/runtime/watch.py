"""Watching a table: a spectator's process (asyncio, I/O edge).

:func:`watch` follows a table live as a replica with no seat
(:class:`~trutnet.protocol.spectator.Spectator`). It runs the same runtime as a seat,
so it fetches the log from the start when it arrives mid-game (a sync from the genesis
head, 9.2), buffers what runs ahead and asks again for gaps, exactly like a newcomer
that follows a full table. What it never does: write an entry, offer to take a seat,
vote, answer a sync, or say ``done``; it reads the votes and offers on a stalled seat
(checked as a seat's runtime checks them) so that its screen shows them, and the seats'
``done`` (so that it knows when every seat finished and left before it caught up). It holds no
ElGamal key, so no share round ever has it as an owner, and it knows no card that the
log does not show to everyone.

It says it is there with its signed presence on ``watchers/<fp>`` (retained; its last
will, and its clean exit, clear it), which the players' screens list; it signs it
again, naming the head it has reached, as it follows the log (every
:data:`PRESENCE_EVERY` seconds, or every :data:`PRESENCE_ENTRIES` heads when the table
goes faster), so the players see a live spectator, not a stale or replayed message
(``docs/protocol.md`` 9.2).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from trutnet.crypto.identity import Identity, fingerprint
from trutnet.i18n import _
from trutnet.net import topics
from trutnet.net.broker import Endpoint
from trutnet.net.mqtt_link import MqttLink
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.envelope import GENESIS, MessageError, parse_entry
from trutnet.protocol.sealed_table import TableSeal
from trutnet.protocol.spectator import Spectator, watcher_message
from trutnet.runtime.events import CaughtUp, Connected
from trutnet.runtime.lobby_watch import Follow, JoinError, watch_lobby
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import Hooks, JoinSetup, SeatResult, _result
from trutnet.runtime.table_runtime import TableRuntime

PRESENCE_EVERY = 0.5  # seconds at most between two presences naming a new head...
# ...or sooner, once the log has moved this many entries: a fast table (bots) must not
# outrun the players' live window (LIVE_HEADS) between two presences
PRESENCE_ENTRIES = 16


class WatchRuntime(TableRuntime):
    """The runtime of a spectator: it reads the table and says only that it is there
    (and what its person says in the chat)."""

    spectating = True

    def __init__(
        self,
        table_id: bytes,
        link: MqttLink,
        seat: LocalSeat,
        options: Options | None = None,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        fp = fingerprint(seat.identity.public)
        self.watcher_topic = topics.watcher(table_id, fp)
        self.watcher_wire = watcher_message(seat.identity, table_id, seat.name)
        self._said_head = GENESIS  # the head our last presence named
        self._reading = GENESIS  # the head the last seat's entry received extends
        self._moved = 0  # heads read since our last presence
        self._renew = asyncio.Event()  # set once they are PRESENCE_ENTRIES
        if link.will is None:  # the broker clears our presence if we vanish
            link.will = (self.watcher_topic, b"")
        super().__init__(table_id, link, [seat], options, on_event)
        # The log, the notices, the votes (shown, never acted on), the spectators and
        # the seats' ``done`` (read, never said: it tells a spectator that every seat
        # finished and left before its log caught up, 9.2); syncs are the seats' business.
        theirs = topics.sync(table_id)
        link.subscriptions[:] = [t for t in link.subscriptions if t != theirs]
        self.caught_up = False  # has read the log up to where the table is
        self._caught_up_at: float | None = None  # when (``time.monotonic()``)
        self._before_the_game = False  # came while the lobby was open: nothing to catch up

    async def _on_connect(self) -> None:
        endpoint = self.link.endpoint
        self.connected_once = True
        self.emit(Connected(endpoint.url if endpoint else None))
        await self.link.publish(self.watcher_topic, self.watcher_wire, retain=True, wait=5)
        await self.sync.ask()

    async def run(self, join_names: bool = False) -> None:
        presence = asyncio.create_task(self._renew_presence())
        try:
            await super().run(join_names)
        finally:
            await stop_tasks(presence)

    async def _renew_presence(self) -> None:
        """Say again that we are here, naming the head the table's latest entry extends
        (as received: checking the proofs may lag behind it), whenever it moved (at most
        every ``PRESENCE_EVERY`` s): the players list a presence only while the head it
        names is recent."""
        seat = self.seats[0]
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._renew.wait(), PRESENCE_EVERY)
            self._renew.clear()
            head = self._reading
            if head == self._said_head or not self.link.connected.is_set():
                continue
            self._moved = 0
            wire = watcher_message(seat.identity, self.table_id, seat.name, head)
            if await self.link.publish(self.watcher_topic, wire, retain=True, wait=2):
                self._said_head, self.watcher_wire = head, wire

    def _on_sync(self, payload: bytes) -> None:
        """A spectator answers no sync: the seats do (a crowd of spectators would
        multiply every answer)."""

    async def _maybe_replace(self, stalled: int) -> None:
        """A spectator reads the votes (:meth:`stall` shows them) and never writes."""

    async def _stalled(self, stalled: int, waited: float) -> None:
        """A spectator never offers to take a seat (7.7) and never votes."""

    async def _linger(self) -> None:
        """Nobody waits for a spectator's ``done``: it leaves at once."""

    def lobby_status(self, status: str) -> None:
        """The lobby's status, while the spectator waits for the ``open``: a spectator
        there while seats are still free has the whole log as it is written."""
        replica = self.replica
        if status == "open" and (replica is None or replica.state is None):
            self._before_the_game = True

    def ingest(self, wire: bytes) -> bool:
        """As a seat's runtime; also notes when the spectator has caught up: an entry
        that came live and waited for the log's earlier entries has been applied, and
        nothing waits any more."""
        waiting = bool(self.buffer)
        replica = self.replica
        with contextlib.suppress(MessageError):
            entry = parse_entry(wire, self.table_id)
            if replica is not None and entry.author in replica.seats:
                if entry.prev != self._reading:
                    self._moved += 1
                    if self._moved >= PRESENCE_ENTRIES:
                        self._renew.set()
                self._reading = entry.prev
        advanced = super().ingest(wire)
        if advanced and not self.buffer and (waiting or self._before_the_game):
            self._now_caught_up()
        return advanced

    async def _idle(self) -> None:
        """Nothing came for a while: if the log has begun and no live entry waits for
        missing ones, the spectator is as far as the table (a quiet table sends nothing
        live to wait for; entries that wait say it is still behind, as on a busy
        machine whose sync answers come slowly)."""
        replica = self.replica
        if replica is not None and replica.state is not None and not self.buffer:
            self._now_caught_up()
        await super()._idle()

    def _now_caught_up(self) -> None:
        replica = self.replica
        if self.caught_up or replica is None or replica.state is None:
            return
        self.caught_up = True
        self._caught_up_at = time.monotonic()
        self.emit(CaughtUp(len(replica.log), replica.round_number() + 1))

    def stalled_on_arrival(self) -> bool:
        """A spectator that came after the game began and has seen no entry since it
        caught up cannot tell how long the table has waited: only since when it is here."""
        return (
            not self._before_the_game
            and self._caught_up_at is not None
            and self.last_progress <= self._caught_up_at
        )

    async def leave(self) -> None:
        """Clear our presence (a clean exit: the will is not sent)."""
        with contextlib.suppress(Exception):
            await self.link.publish(self.watcher_topic, b"", retain=True, wait=2)


async def watch(
    table_id: bytes,
    endpoints: list[Endpoint],
    setup: JoinSetup | None = None,
    *,
    hooks: Hooks | None = None,
    on_event: Callable[[str, dict[str, Any]], None] | None = None,
) -> SeatResult:
    """Follow ``table_id`` until its game is over; :class:`JoinError` when there is no
    table to follow (no host answers, or it left before the game started). Of
    ``setup`` it takes the name, identity, options, lobby timeout and a sealed table's
    key. The result names no seat; its ``state_hash`` is the players' own."""
    setup = setup or JoinSetup(name="Spectator")
    name, identity, options = setup.name, setup.identity, setup.options
    lobby_timeout = setup.lobby_timeout
    hooks = hooks or Hooks()
    seat = LocalSeat(identity or Identity.generate(os.urandom), name, None)
    seat.peer = Spectator(table_id)  # type: ignore[assignment]  # a peer with no seat
    link = MqttLink(endpoints, [], f"watch-{table_id.hex()[:8]}")
    if setup.table_key is not None:  # a sealed table, watched by its invitation (9.9, 9.10)
        link.seal = TableSeal(setup.table_key, os.urandom)
    runtime = WatchRuntime(table_id, link, seat, options, on_event)
    hooks.attach(runtime, seat)
    game = asyncio.create_task(runtime.run())
    lobby = asyncio.create_task(
        watch_lobby(
            table_id,
            endpoints[0],
            seat,
            lobby_timeout,
            Follow(spectator=True, on_status=runtime.lobby_status, on_clock=runtime.clock.follow),
            link.seal,
        )
    )
    try:
        done, _pending = await asyncio.wait([game, lobby], return_when=asyncio.FIRST_COMPLETED)
        if lobby in done and lobby.exception() is not None:
            raise lobby.exception()  # type: ignore[misc]
        await game
    finally:
        await stop_tasks(lobby, game)
        await runtime.leave()
        await link.close()
    if runtime.replica is None or runtime.replica.state is None:
        raise JoinError(
            _("gave up before the table opened: no game to watch")
            if runtime.gave_up
            else _("stopped before the table opened: no game to watch")
        )
    return _result(runtime)
