"""The peer runtime: one process's seats at one table, over MQTT (asyncio, I/O edge).

It owns what the sans-I/O protocol leaves out: the link, the clock, the files.
:class:`TableRuntime` coordinates; each concern is a room of its own, given the
runtime it serves:

* Intake (here): entries from the broker go to every local seat's
  :class:`TablePeer`. An entry that does not extend the head waits in a bounded
  buffer (the entries of an unordered round all name one head: they wait side by
  side); duplicates are ignored. Every accepted entry is appended to the seat's store
  (fsync) before anything else happens, so a seat killed at any point resumes from
  its files. Every message comes from anyone who can reach the broker: one that
  breaks a handler is dropped and counted, and the pump never stops.
* Writing (here, with :mod:`~trutnet.runtime.decisions`): what a local seat owes,
  an automatic step, its bot's decision (thought out in a worker thread, so that the
  loop goes on meanwhile: :mod:`~trutnet.runtime.bot_thinking`) or its person's queued
  one, signed, saved, then published.
* Sync (:mod:`~trutnet.runtime.sync_server`, 9.2): a gap that does not fill by
  itself is asked for; requests are answered from the log, by one peer, at a bounded
  rate. Nothing relies on the broker keeping what a peer missed.
* Brokers (:mod:`~trutnet.runtime.succession`, 9.3), a seat the table waits for
  (:mod:`~trutnet.runtime.notice_board` reports it, :mod:`~trutnet.runtime.replacement`
  offers and votes, 7.7), the end (:mod:`~trutnet.runtime.table_end`: ``done``, and
  lingering so that a peer behind still gets the end), what a screen shows of the
  table's health (:mod:`~trutnet.runtime.table_health`) and the bench's stamps
  (:mod:`~trutnet.runtime.stamps`).
* The chat (:mod:`~trutnet.runtime.table_chat`, 9.6) and the signs
  (:mod:`~trutnet.runtime.table_signs`, 9.8): signed, beside the log, never in it.
* Spectators announce themselves on the ``watchers`` topic; a signed presence is
  listed (:attr:`TableRuntime.watchers`, a ``watchers`` event), the rest dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import msgpack

from trutnet.crypto.identity import fingerprint
from trutnet.net import topics
from trutnet.net.mqtt_link import MqttLink
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.envelope import GENESIS, MessageError, parse_entry
from trutnet.protocol.lobby import join_request
from trutnet.protocol.spectator import Watchers
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.bot_thinking import Thinking
from trutnet.runtime.decisions import owed_entry
from trutnet.runtime.events import (
    Connected,
    Disconnected,
    EntryRejected,
    Event,
    Following,
    GaveUp,
    RehostFailed,
    Watching,
)
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.notice_board import NoticeBoard
from trutnet.runtime.options import Options
from trutnet.runtime.replacement import Replacement
from trutnet.runtime.stamps import RuntimeStats, Stamps
from trutnet.runtime.succession import Succession
from trutnet.runtime.sync_server import SyncServer
from trutnet.runtime.table_chat import TableChat
from trutnet.runtime.table_clock import TableClock
from trutnet.runtime.table_end import TableEnd
from trutnet.runtime.table_health import (
    Connection,
    Stall,
    connection_of,
    give_up_period,
    stall_at,
    stranded_why,
)
from trutnet.runtime.table_signs import TableSigns

log = logging.getLogger("trutnet.runtime")
MAX_BUFFERED = 512  # entries kept while waiting for the one they extend
MAX_REJECTED = 100  # the last refusals kept for the result's statistics


class TableRuntime:
    """Runs the local seats of one table until the game is over."""

    spectating = False  # a spectator's runtime (``trutnet watch``) says True

    def __init__(
        self,
        table_id: bytes,
        link: MqttLink,
        seats: list[LocalSeat],
        options: Options | None = None,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.table_id, self.link, self.seats = table_id, link, seats
        self.options = options or Options()
        self.on_event = on_event or (lambda kind, data: None)
        # prev (the head an entry names) -> entry id -> the entries waiting for it
        self.buffer: dict[bytes, dict[bytes, bytes]] = {}
        self.stats = RuntimeStats()
        self._progress = asyncio.Event()
        self.last_progress = time.monotonic()
        self.open_wire: bytes | None = None
        self.gave_up = False
        self.gave_up_why: str | None = None  # what the result says when this peer gave up
        self.stamps = Stamps(self.options.stamp_entries)  # for ``trutnet bench network``
        # The local seats' replicas check each proof once between them (one process).
        restored = [s.peer.replica.checked for s in seats if s.peer is not None]
        self.checked = restored[0] if restored else CheckedProofs()
        link.on_connect = self._on_connect
        # Presence (9.1): retained "online" on connect; the broker publishes the will,
        # "offline", if this process dies or loses its connection.
        me = seats[0].identity
        self.presence_topic = topics.presence(table_id, fingerprint(me.public))
        self.presence = {"name": seats[0].name, "key": me.public}
        if link.will is None:
            link.will = (self.presence_topic, msgpack.packb({**self.presence, "status": "offline"}))
        # The rooms: sync (9.2), brokers (9.3), replacing a seat (7.7), the end (9.2)
        self.sync = SyncServer(self)
        self.succession = Succession(self, list(link.endpoints()))
        link.use_endpoints(self.succession.candidates)
        self.replacement = Replacement(self)
        self.end = TableEnd(self, topics.done(table_id, fingerprint(me.public)))
        self.on_over: Callable[[], None] | None = None  # the game is over (before lingering)
        self.watchers = Watchers(table_id)  # the spectators, as their signed presence says
        self.keep_serving = False  # a person's screen is up: answer syncs until it leaves
        self.running = False  # between the start and the end of run()
        self.started = time.monotonic()
        self.connected_once = False
        self.notices = NoticeBoard(self)  # the ``notice`` topic (7.7)
        self.chat, self.signs = TableChat(self), TableSigns(self)  # 9.6, 9.8
        self.clock = TableClock(self)  # the table's turn clock, if it has one (7.11)
        self.thinking = Thinking(self.wake)  # bots decide beside the event loop
        self._lost_reported: float | None = None  # the loss the ``disconnected`` event told
        for topic in (
            topics.done(table_id, "+"),
            topics.watcher(table_id, "+"),
            topics.log(table_id),
            topics.sync(table_id),
            topics.notice(table_id),
            topics.vote(table_id),
            topics.chat(table_id),
            topics.signs(table_id),
        ):
            if topic not in link.subscriptions:
                link.subscriptions.append(topic)

    # ------------------------------------------------------------ accessors

    @property
    def peers(self) -> list[TablePeer]:
        return [s.peer for s in self.seats if s.peer is not None]

    @property
    def replica(self):  # noqa: ANN201 - the first local replica
        peers = self.peers
        return peers[0].replica if peers else None

    def head(self) -> bytes:
        replica = self.replica
        return replica.log.head if replica is not None else GENESIS

    def done(self) -> bool:
        replica = self.replica
        return replica is not None and (replica.phase == "done" or replica.halted is not None)

    def stall(self) -> Stall | None:
        """The seat the table has waited for past the stall timeout, in a game, with
        the offers and votes on it (7.7); None while the table moves."""
        return stall_at(self, time.monotonic())

    def stalled_on_arrival(self) -> bool:
        """Has nothing moved since this process caught up with a game already under
        way? (A seat is there from the start, or resumes and is waited for itself.)"""
        return False

    def connection(self) -> Connection | None:
        """The broker this process cannot reach now, while it plays (or follows) a
        game; None while connected, and before the game or after it."""
        return connection_of(self)

    def ended_elsewhere(self) -> list[int]:
        """The other seats whose signed ``done`` names a head this log lacks (9.2)."""
        return self.end.ended_elsewhere()

    def over_elsewhere(self) -> bool:
        """Every other seat said its game is over at a head this log lacks."""
        return self.end.over_elsewhere()

    def waiting_for(self) -> set[int]:
        """Seats not yet known to have the whole log."""
        return self.end.waiting_for()

    def emit(self, event: Event) -> None:
        """Report ``event`` (:mod:`trutnet.runtime.events`) to whoever follows."""
        self.on_event(event.label(), event.data())

    def stop_lingering(self) -> None:
        """The person has left the end screen: leave now."""
        self.end.stopped.set()

    # The steps a spectator's runtime (:mod:`trutnet.runtime.watch`) does not take

    def _on_sync(self, payload: bytes) -> None:
        self.sync.on_request(payload)

    async def _on_vote(self, wire: bytes) -> None:
        stalled = self.replacement.read(wire)
        if stalled is not None:
            await self._maybe_replace(stalled)

    async def _maybe_replace(self, stalled: int) -> None:
        await self.replacement.maybe_replace(stalled)

    async def _stalled(self, stalled: int, waited: float) -> None:
        await self.replacement.waited(stalled, waited)

    async def _linger(self) -> None:
        await self.end.linger()

    # ------------------------------------------------------------- intake

    async def _on_connect(self) -> None:
        endpoint = self.link.endpoint
        self.connected_once = True
        self.emit(Connected(endpoint.url if endpoint else None))
        online = msgpack.packb({**self.presence, "status": "online"})
        await self.link.publish(self.presence_topic, online, retain=True, wait=5)
        await self.sync.ask()

    def _open_for_me(self, wire: bytes) -> list[LocalSeat]:
        """A joiner learns its seat from the ``open`` entry and starts its peer; returns
        the seats that took it (their peers have applied it)."""
        opened: list[LocalSeat] = []
        try:
            entry = parse_entry(wire, self.table_id)
        except MessageError:
            return opened
        if entry.type != "open" or entry.prev != GENESIS:
            return opened
        keys = entry.body.get("seats")
        if not isinstance(keys, list):
            return opened
        for seat in self.seats:
            mine = seat.identity.public
            # A newcomer that follows a table may still be named by another open (a
            # forged open could otherwise keep a joiner out of the real table).
            standby = seat.peer is not None and seat.peer.standby() and mine in keys
            if seat.peer is None or standby:
                # Not named: a newcomer that follows the game and may take a stalled seat (7.7)
                index = keys.index(mine) if mine in keys else 0
                rng = seat.rng or os.urandom
                peer = TablePeer(seat.identity, index, self.table_id, rng, self.checked)
                try:  # only the table's own host can open it (7.10): check before taking it
                    peer.receive(wire)
                except Rejected as exc:
                    self.stats.dropped += 1
                    log.debug("refused an open entry: %s", exc)
                    return opened
                seat.peer = peer
                opened.append(seat)
                if not peer.seated():  # said once: scripts wait for it, as for "connected"
                    self.emit(Following(len(keys)))
                if seat.store is not None:
                    seat.peer.on_secrets = seat.store.save_secrets
                    seat.store.save_secrets(seat.peer.secrets())
        return opened

    def ingest(self, wire: bytes) -> bool:
        """Offer one entry to every local seat; True if the log advanced."""
        self.stats.received += 1
        waiting = any(s.peer is None or s.peer.standby() for s in self.seats)
        opened = self._open_for_me(wire) if waiting else []
        advanced = False
        for seat in self.seats:
            peer = seat.peer
            if peer is None:
                continue
            if any(seat is o for o in opened):
                advanced = True
                self.persist(seat)
                continue
            try:
                entry = peer.receive(wire)
            except Rejected as exc:
                if exc.rule == "chain":
                    self._hold(wire)
                elif exc.rule not in ("duplicate", "over", "halted"):
                    self.stats.dropped += 1
                    self.stats.rejected = [*self.stats.rejected[-(MAX_REJECTED - 1) :], str(exc)]
                    if exc.blame is not None:  # unsigned junk is counted, not announced
                        self.emit(EntryRejected.of(seat.peer.seat if seat.peer else None, exc))
                continue
            if entry is None:
                self.stats.duplicates += 1
                continue
            self.stamps.applied(entry)
            advanced = True
            self.persist(seat)
        if advanced:
            self.stamps.moved(self.replica)
            self.touch()
            self.replacement.tell_changes()
            for waiting in self.buffer.pop(self.head(), {}).values():
                self.ingest(waiting)
        return advanced

    def _hold(self, wire: bytes) -> None:
        """Keep an entry that does not extend the head until the head it names comes."""
        # Only seated keys get this far; still, a seat could flood: bounded.
        if sum(len(b) for b in self.buffer.values()) >= MAX_BUFFERED:
            self._drop_stale_buffer()
        if sum(len(b) for b in self.buffer.values()) < MAX_BUFFERED:
            with contextlib.suppress(MessageError):
                entry = parse_entry(wire)
                self.buffer.setdefault(entry.prev, {})[entry.id] = wire
                self.stats.buffered += 1

    def _drop_stale_buffer(self) -> None:
        """Forget buffered entries that extend an entry already behind the head: they
        can never apply."""
        replica = self.replica
        if replica is None:
            return
        head = replica.log.head
        for prev in [p for p in self.buffer if p != head and replica.log.index_of(p) is not None]:
            del self.buffer[prev]

    def persist(self, seat: LocalSeat) -> None:
        if seat.store is None or seat.peer is None:
            return
        stored = seat.store.count()
        for wire in seat.peer.replica.journal[stored:]:  # forks included (7.8)
            seat.store.append(wire)

    def wake(self) -> None:
        """Something local changed (a person decided): write now."""
        self._progress.set()

    def touch(self) -> None:
        self.last_progress = time.monotonic()
        self.notices.moved()
        self._progress.set()
        self.chat.room.heads.note(self.head())  # a message naming an old head: a replay
        self.signs.moved()
        self.clock.moved(self.last_progress)
        if self.watchers.note_head(self.head()):  # a presence not renewed goes stale
            self._watchers_changed()

    # -------------------------------------------------------------- output

    async def _write(self) -> bool:
        """Write every entry that a local seat owes now; True if any was written."""
        wrote = False
        if self.over_elsewhere():
            return False
        for seat in self.seats:
            peer = seat.peer
            if peer is None:
                continue
            late = peer.seat is not None and self.clock.bot_decides(peer.seat, time.monotonic())
            wire = owed_entry(seat, self.emit, late, self.thinking)
            if wire is None:
                continue
            self.stamps.signed(wire, peer.replica)
            self.stamps.note_cards(self.replica)
            self.persist(seat)
            for other in self.seats:  # the other local seats take it now
                if other is not seat and other.peer is not None:
                    self.ingest(wire)
                    break
            self.touch()
            # Logged and saved: if no broker takes it before the give-up period ends,
            # the others get it by sync once one does (9.2); so no wait for its ack.
            self.sync.wrote(wire)
            self.link.send(topics.log(self.table_id), wire, wait=self._patience())
            wrote = True
            await asyncio.sleep(0)  # the screen shows this entry before a bot thinks on
        return wrote

    def _patience(self) -> float:
        """How long a publish may wait for a broker: never past the give-up period."""
        left = give_up_period(self) - (time.monotonic() - self.last_progress)
        return max(0.1, min(30.0, left))

    def _level_local_seats(self) -> None:
        """Local seats back from their own files (a host and the bots it seated) may
        stand at different places of the log: a crash between one seat's write and the
        next's. Each takes what the most advanced one holds, as from the network, so that
        none waits for entries the table will not send again (a sync asks from one head)."""
        peers = [s.peer for s in self.seats if s.peer is not None]
        if len(peers) < 2:
            return
        ahead = max(peers, key=lambda p: len(p.replica.log))
        behind = min(len(p.replica.log) for p in peers)
        wires = [e.wire for e in ahead.replica.log.entries[behind:]] + list(ahead.replica.held())
        for wire in wires:
            self.ingest(wire)
        for seat in self.seats:
            self.persist(seat)

    # --------------------------------------------------------------- loops

    async def run(self, join_names: bool = False) -> None:
        """Play until the game is over (or the table stops on a blame)."""
        self.running = True
        self.started = time.monotonic()
        self._level_local_seats()
        self.clock.moved(self.started)  # a resumed seat's table may wait for a decision
        await self.link.start()
        # A host's link was up in the lobby, which read no spectator's presence: again.
        await self.link.resubscribe(topics.watcher(self.table_id, "+"))
        pump = asyncio.create_task(self._pump())
        watchdog = asyncio.create_task(self._watchdog())
        sender = asyncio.create_task(self.sync.serve())
        try:
            while not self.done():
                if join_names:
                    await self._request_seats()
                while await self._write():
                    pass
                if self.done():
                    break
                self._progress.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._progress.wait(), self.options.gap_timeout)
                if not self._progress.is_set() and await self._idle_or_give_up():
                    break
            if self.on_over is not None:
                self.on_over()
            if not self.gave_up:
                await self._linger()
        finally:
            self.running = False
            self.succession.stop()
            await stop_tasks(pump, watchdog, sender)
            await self.thinking.stop()

    async def _idle_or_give_up(self) -> bool:
        """The idle step, for no longer than the give-up period leaves; True to give up.

        With no broker, each publish of the idle step waits for a connection: the
        give-up period must not wait for them (``--give-up-after 5`` means 5 seconds)."""
        left = give_up_period(self) - (time.monotonic() - self.last_progress)
        if left > 0:
            idle = asyncio.create_task(self._idle())
            done, _ = await asyncio.wait({idle}, timeout=left)
            if idle in done:
                idle.result()  # its error, if any, is the run's
            else:
                await stop_tasks(idle)
        now = time.monotonic()
        waited = now - self.last_progress
        stranded = stranded_why(self)
        # stranded by the seats' done: the follow timeout runs from when they said it
        since = max(self.last_progress, self.end.stranded_since() or self.last_progress)
        if stranded is not None and now - since > min(
            self.options.follow_timeout, self.options.give_up_after
        ):
            self.gave_up_why = stranded
        elif waited <= self.options.give_up_after:
            return False
        self.emit(GaveUp(round(waited), self.gave_up_why))
        self.gave_up = True
        return True

    async def _request_seats(self) -> None:
        for seat in self.seats:
            if seat.peer is None:
                await self.link.publish(
                    topics.join(self.table_id),
                    join_request(seat.identity, self.table_id, seat.name, seat.fallback),
                    wait=5,
                )

    async def _pump(self) -> None:
        """Hand each message to its topic's handler. Every byte here comes from anyone
        who can reach the broker: a message that a handler refuses, or that breaks it,
        is dropped and counted; the pump itself never stops."""
        while True:
            topic, payload = await self.link.inbox.get()
            try:
                await self._dispatch(topic, payload)
            except (UntrustedInput, MessageError, Rejected) as exc:
                self.stats.dropped += 1
                log.debug("dropped a message on %s: %s", topic, exc)
            except Exception:  # a bug met by hostile bytes: drop the message, keep going
                self.stats.dropped += 1
                log.exception("dropped a message on %s that broke its handler", topic)

    async def _dispatch(self, topic: str, payload: bytes) -> None:
        if topic == topics.log(self.table_id):
            self.sync.read(payload)
        elif topic == topics.sync(self.table_id):
            self._on_sync(payload)
        elif topic == topics.vote(self.table_id):
            await self._on_vote(payload)
        elif topic.startswith(topics.done(self.table_id, "")):
            self.end.read(topic, payload)
        elif topic == topics.notice(self.table_id):
            self.notices.read(payload)
        elif topic == topics.chat(self.table_id):
            self.chat.read(payload)
        elif topic == topics.signs(self.table_id):
            self.signs.read(payload)
        elif topic.startswith(topics.watcher(self.table_id, "")):
            self._on_watcher(topic, payload)

    def _on_watcher(self, topic: str, payload: bytes) -> None:
        """A spectator's presence, or its departure (an empty payload): listed only if
        signed by the key its topic names (:class:`~trutnet.protocol.spectator.Watchers`
        raises :class:`UntrustedInput` for anything else, which the pump drops)."""
        fp = topic[len(topics.watcher(self.table_id, "")) :]
        if self.watchers.receive(fp, payload):
            self._watchers_changed()

    def _watchers_changed(self) -> None:
        """The ``watchers`` event: the live spectators listed, how many more, and how
        far the log is (a spectator that goes stale is dropped as the log moves on)."""
        replica = self.replica
        listed, more = self.watchers.view()
        entries = len(replica.log) if replica is not None else 0
        watchers = [w.to_dict() for w in listed]
        self.emit(Watching(watchers, more, entries))

    async def _watchdog(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(0.5 if not failures else self.options.rehost_after * failures)
            self._report_connection()
            try:
                await self.succession.step()
                failures = 0
            except Exception as exc:  # e.g. the fallback port is taken: back off, say so
                failures = min(failures + 1, 10)
                self.emit(RehostFailed(str(exc)))

    def _report_connection(self) -> None:
        """The ``disconnected`` event, once per loss of the broker during the game (the
        ``connected`` event says when it is back)."""
        lost = self.connection()
        if lost is None or lost.since == self._lost_reported:
            return
        self._lost_reported = lost.since
        self.emit(Disconnected(lost.url, lost.ever))

    # ------------------------------------------------------- the end (9.2)

    def local_seats(self) -> set[int]:
        return {p.seat for p in self.peers if p.seated()}

    # --------------------------------------------------- replacing a seat (7.7)

    def ingest_local(self, author: TablePeer, wire: bytes) -> None:
        """An entry that a local seat just signed: every other local seat takes it."""
        for seat in self.seats:
            if seat.peer is not None and seat.peer is not author:
                self.ingest(wire)
                break
        for seat in self.seats:
            self.persist(seat)
        self.touch()

    async def _idle(self) -> None:
        """Nothing happened for a while: fill gaps, report a stalled seat, vote."""
        self.replacement.tell_changes()
        if self.buffer or self.replica is None:
            await self.sync.ask()
        replica = self.replica
        if replica is None:
            return
        expected = replica.expected()
        if expected is None:
            return
        now = time.monotonic()
        waited = now - self.last_progress
        self.clock.ran_out(now)
        stalled = self.clock.policy().report(waited)
        reported = stalled and await self.notices.report_stall(expected[0], expected[1], waited)
        if not reported and waited >= 2 * self.options.gap_timeout:  # once said: fill gaps
            await self.sync.ask()
        if expected[0] not in self.local_seats() and not self.over_elsewhere():
            await self._stalled(expected[0], waited)
        self.replacement.release_holds()
