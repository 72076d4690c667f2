"""The peer runtime: one process's seats at one table, over MQTT (asyncio, I/O edge).

It owns what the sans-I/O protocol leaves out: the link, the clock, the files.

* Entries from the broker go to every local seat's :class:`TablePeer`. An entry that
  does not extend the head waits in a buffer (the entries of an unordered round all
  name one head: they wait side by side); a gap that does not fill by itself is
  asked for on the ``sync`` topic, and a peer answers from its own log (the answers
  are verified like everything else, so a lying peer is caught): one peer for the
  table, only what was asked, each entry at most once a second
  (:mod:`trutnet.runtime.sync_answers`). Duplicates are ignored. Nothing relies on
  the broker keeping what a peer missed.
* Every accepted entry is appended to the seat's store (fsync) before anything else
  happens, so a seat killed at any point resumes from its files.
* When a local seat must write, the runtime writes: automatic steps at once, game
  decisions from the seat's bot, or the person's decision that the terminal client
  queued (``LocalSeat.pending``), if it is legal.
* A seat that the table waits for longer than ``stall_timeout`` is reported to
  everyone on the ``notice`` topic: who, since when, waiting for what.
* Spectators announce themselves on the ``watchers`` topic; a signed presence is
  listed (:attr:`TableRuntime.watchers`, and a ``watchers`` event), anything else is
  dropped (:mod:`trutnet.protocol.spectator`).
* A finished peer does not leave at once: it says so (a retained ``done`` message)
  and keeps answering syncs until every other seat has said the same, so that a peer
  that missed the last entries can still fetch them (``docs/protocol.md`` 9.2); a
  person's screen (``keep_serving``) keeps answering until the person leaves it, so
  that a seat resumed later still learns how the game ended.
* What a screen shows of the table's health: :meth:`TableRuntime.stall` (the seat
  the table waits for past the stall timeout, the offers and votes on it, when this
  process votes to abandon), :meth:`TableRuntime.connection` (the broker lost, since
  when, and when this process gives up) and :meth:`TableRuntime.ended_elsewhere` (the
  seats whose ``done`` names a head this log lacks: a seat back after the game ended
  without it; once every other seat says so, this process writes and votes no more).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from trutnet.bots import Bot, decide
from trutnet.crypto.identity import Identity, fingerprint
from trutnet.net import topics
from trutnet.net.mqtt_link import MqttLink
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.envelope import GENESIS, Entry, MessageError, parse_entry, sign_entry
from trutnet.protocol.lobby import join_request
from trutnet.protocol.spectator import Watchers
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.protocol.untrusted import UntrustedInput, unpack
from trutnet.runtime.sync_answers import (
    SyncAnswers,
    parse_sync_request,
    parting_position,
    rank,
    sync_request,
)
from trutnet.store import PeerStore

log = logging.getLogger("trutnet.runtime")
MAX_SYNC_ANSWER = 2000
SYNC_BYTES_PER_SECOND = 256 * 1024  # at most this much log re-sent per second (9.2)
MAX_NOTICE_BYTES = 1024
MAX_BUFFERED = 512  # entries kept while waiting for the one they extend
MAX_REJECTED = 100  # the last refusals kept for the result's statistics
# A finished peer lingers while a peer behind its log has asked for it this recently (s):
# a newcomer or a spectator still catching up gets the end before the table leaves
CATCHING_UP = 5.0


@dataclass
class LocalSeat:
    """A seat played in this process: its identity, store, bot, and (once the table
    opens) its protocol peer."""

    identity: Identity
    name: str
    bot: Bot | None
    store: PeerStore | None = None
    peer: TablePeer | None = None
    rng: Callable[[int], bytes] | None = None
    fallback: str = ""  # where this seat would host the table if the broker is lost
    pending: str | None = None  # a person's decision, queued by the client until signed


@dataclass
class Options:
    stall_timeout: float = 30.0
    gap_timeout: float = 0.5
    linger: float = 30.0  # at most this long after the end, helping others finish
    rehost_after: float = 3.0  # seconds without any broker before a successor re-hosts
    void_timeout: float = 120.0  # seconds waiting for a seat before voting to replace it
    # 7.7: newcomers (key fingerprints, or "any") this process's seats accept in place of
    # a stalled partner; none by default, and then a stalled game is abandoned
    takers: tuple[str, ...] = ()
    give_up_after: float = 900.0  # seconds without any progress before this peer stops
    # A process that holds no seat (a newcomer following the table, 7.7) stops after this
    # long without progress when nothing can bring any: no broker (it cannot rehost), or
    # every seat said it finished at a point this log lacks
    follow_timeout: float = 60.0
    # ``trutnet bench network``: stamp every entry, when a local seat signed it and when
    # it was applied here (``TableRuntime.entries_signed``, ``entries_applied``)
    stamp_entries: bool = False


@dataclass
class Stall:
    """A seat the table has waited for longer than the stall timeout (7.7), as this
    process sees it; times are ``time.monotonic()``."""

    seat: int
    since: float  # the last progress of the table
    vote_at: float | None  # when this process's seats vote to abandon (None: they never do)
    replaceable: bool  # the seat has partners: a newcomer may take it
    offers: list[str]  # the names of the newcomers who offered to take it
    votes: dict[int, str]  # voter seat -> "abandon" or "newcomer"
    needed: int  # the votes a decision needs (a majority of the other seats)
    left: bool = False  # the seat signed that its player left the table (a quit, not a loss)
    # nothing moved since this process caught up with a game already under way: ``since``
    # is when it came, and the table may have waited longer (no message says how long)
    since_arrival: bool = False
    # the game is over and the seat has not signed it: an abandon closes the game
    # without that signature, and its winner stands (7.7)
    closing: bool = False


@dataclass
class Connection:
    """No broker now: the one last tried, since when (``time.monotonic()``), and
    when this process gives up if nothing moves."""

    url: str
    since: float
    ever: bool  # False: never connected since this process started
    give_up_at: float


@dataclass
class RuntimeStats:
    received: int = 0
    duplicates: int = 0
    buffered: int = 0
    syncs_sent: int = 0
    syncs_answered: int = 0
    resent: int = 0  # log entries sent again, answering sync requests
    dropped: int = 0  # messages that were malformed, unsigned or forged: counted, ignored
    rejected: list[str] = field(default_factory=list)


class TableRuntime:
    """Runs the local seats of one table until the game is over."""

    def __init__(
        self,
        table_id: bytes,
        link: MqttLink,
        seats: list[LocalSeat],
        options: Options | None = None,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.link = link
        self.seats = seats
        self.options = options or Options()
        self.on_event = on_event or (lambda kind, data: None)
        # prev (the head an entry names) -> entry id -> the entries waiting for it
        self.buffer: dict[bytes, dict[bytes, bytes]] = {}
        self.stats = RuntimeStats()
        self._progress = asyncio.Event()
        self._last_progress = time.monotonic()
        self._stall_reported: tuple[int, int] | None = None
        self.open_wire: bytes | None = None
        self.gave_up = False
        self.gave_up_why: str | None = None  # what the result says when this peer gave up
        self._hand = -1
        self.hand_started: list[float] = []  # when each hand began, seen from here
        # For ``trutnet bench network``, by play entry id (16 hex digits): when a local
        # seat signed the play, and when its card became known here. time.monotonic()
        # is one clock for every process of a machine (CLOCK_MONOTONIC on Linux).
        self.plays_signed: dict[str, float] = {}
        self.cards_known: dict[str, float] = {}
        # With ``Options.stamp_entries``, by entry id (16 hex digits), on the same clock
        self.entries_signed: dict[str, float] = {}
        self.entries_applied: dict[str, float] = {}
        self._plays_waiting: list[Entry] = []
        self._plays_scanned = 0
        link.on_connect = self._on_connect
        # Presence (9.1): retained "online" on connect; the broker publishes the will,
        # "offline", if this process dies or loses its connection.
        me = seats[0].identity
        self.presence_topic = topics.presence(table_id, fingerprint(me.public))
        self.presence = {"name": seats[0].name, "key": me.public}
        self.done_topic = topics.done(table_id, fingerprint(me.public))
        if link.will is None:
            link.will = (self.presence_topic, msgpack.packb({**self.presence, "status": "offline"}))
        self.base_endpoints = list(link.endpoints())
        link._endpoints = self.candidates
        self.successor_broker: Any = None
        self.own_broker: Any = None  # the table's broker, ours to restart if it is gone
        # 7.7: (stalled seat, head) -> voter -> vote; -> offer id -> offer
        self.votes: dict[tuple[int, bytes], dict[int, bytes]] = {}
        self.offers: dict[tuple[int, bytes], dict[bytes, bytes]] = {}
        # (stalled, head, voter) -> (taker voted for, when it was last said)
        self._voted: dict[tuple[int, bytes, int], tuple[bytes | None, float]] = {}
        self._vote_times: dict[tuple[int, bytes], float] = {}
        self._offered: dict[tuple[int, bytes], tuple[bytes, float]] = {}  # our offers
        self._told_replaced: set[int] = set()
        self._told_taken: set[int] = set()
        self._changes_seen = 0
        self._void_answered = 0.0
        self._asked_head: bytes | None = None  # the head of this peer's last sync request
        self._void_pending: bytes | None = None  # a void to tell a peer off our log (7.8)
        self.on_over: Callable[[], None] | None = None  # the game is over (before lingering)
        self._stop_lingering = asyncio.Event()
        self._answers = SyncAnswers()  # the sync requests to see answered (9.2)
        self._sync_wanted = asyncio.Event()
        self._done_heads: dict[int, bytes] = {}  # seat -> head its signed "done" names
        self._done_seen: dict[int, float] = {}  # seat -> when its "done" came (that head)
        self.watchers = Watchers(table_id)  # the spectators, as their signed presence says
        self.keep_serving = False  # a person's screen is up: answer syncs until it leaves
        self.running = False  # between the start and the end of run()
        self._started = time.monotonic()
        self._connected_once = False
        self._behind_asked = float("-inf")  # when a peer behind this log last asked for it
        self.left: dict[int, int] = {}  # seat -> log length when it said it left the table
        self._lost_reported: float | None = None  # the loss the ``disconnected`` event told
        for topic in (
            topics.done(table_id, "+"),
            topics.watcher(table_id, "+"),
            topics.log(table_id),
            topics.sync(table_id),
            topics.notice(table_id),
            topics.vote(table_id),
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
        from trutnet.protocol.replace import VoteError, parse_vote, partners, votes_needed

        replica = self.replica
        if replica is None or replica.state is None or self.done() or not self.running:
            return None
        expected = replica.expected()
        since = self._last_progress
        if expected is None or time.monotonic() - since < self.options.stall_timeout:
            return None
        seat = expected[0]
        if not replica.can_abandon(seat):
            return None
        team = bool(partners(seat, replica.team_of))
        voters = self.local_seats() - {seat}
        vote_at = None
        if voters and seat not in self.local_seats():  # the runtime's policy (7.7)
            vote_at = since + self.options.void_timeout * (2 if team else 1)
        key = (seat, replica.log.head)
        offers = []
        for wire in self.offers.get(key, {}).values():
            with contextlib.suppress(MessageError):
                offers.append(str(parse_entry(wire).body.get("name", "?"))[:20])
        votes: dict[int, str] = {}
        for voter, wire in self.votes.get(key, {}).items():
            with contextlib.suppress(VoteError, MessageError):
                taker = parse_vote(wire, self.table_id, replica.seats).taker
                votes[voter] = "abandon" if taker is None else "newcomer"
        left_at = self.left.get(seat)
        left = left_at is not None and not any(
            e.seat == seat for e in replica.log.entries[left_at:]
        )  # it said it left, and has written nothing since
        needed = votes_needed(replica.n)
        replaceable = team and replica.can_void(seat)  # not in the keys round, nor a draw
        return Stall(
            seat,
            since,
            vote_at,
            replaceable,
            offers,
            votes,
            needed,
            left,
            self._stalled_on_arrival(),
            replica.closing_without(seat),
        )

    def _stalled_on_arrival(self) -> bool:
        """Has nothing moved since this process caught up with a game already under
        way? (A seat is there from the start, or resumes and is waited for itself.)"""
        return False

    def ended_elsewhere(self) -> list[int]:
        """The other seats whose signed ``done`` (9.2) names a head this log does not
        have: their game ended (or stopped) past what this replica has read, as when
        a seat resumes into a game that ended while it was away."""
        replica = self.replica
        if replica is None or replica.state is None or self.done():
            return []
        # a second's grace: a seat a moment behind the others reads their last entries
        old = time.monotonic() - 1.0
        return sorted(
            seat
            for seat, head in self._done_heads.items()
            if replica.log.index_of(head) is None and self._done_seen.get(seat, 0) < old
        )

    def over_elsewhere(self) -> bool:
        """Every other seat said its game is over at a head this log lacks: nothing
        this process writes can matter any more, and it writes nothing (one seat's
        word alone is not enough when there are others: it could silence a seat)."""
        replica = self.replica
        if replica is None:
            return False
        others = set(range(replica.n)) - self.local_seats()
        return bool(others) and others <= set(self.ended_elsewhere())

    def connection(self) -> Connection | None:
        """The broker this process cannot reach now, while it plays (or follows) a
        game; None while connected, and before the game or after it."""
        if not self.running or self.done() or self.link.connected.is_set():
            return None
        endpoint = self.link.endpoint or (self.base_endpoints[0] if self.base_endpoints else None)
        lost = self.link.disconnected_since
        since = self._started if lost is None or not self._connected_once else lost
        return Connection(
            endpoint.url if endpoint is not None else "?",
            since,
            self._connected_once,
            self._last_progress + self._give_up_period(),
        )

    def _give_up_period(self) -> float:
        """How long without progress before this process stops: a process that holds no
        seat (a newcomer, a spectator) stops sooner with no broker to follow."""
        lost = not self.link.connected.is_set()
        follower = not self.local_seats()
        if follower and lost:
            return min(self.options.follow_timeout, self.options.give_up_after)
        return self.options.give_up_after

    # ------------------------------------------------------------ brokers

    def candidates(self) -> list[Any]:
        """The table's broker, then every seat's fallback broker in seat order (9.3)."""
        from trutnet.net.broker import BrokerError, parse_broker_url

        out = list(self.base_endpoints)
        replica = self.replica
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

    async def _maybe_rehost(self) -> None:
        """9.3: after k-th-successor waits without a broker, start one at our fallback if
        no earlier candidate answers; a successor whose earlier candidate is alive again
        stands down, so that every peer ends on the earliest live broker."""
        replica = self.replica
        if replica is None or self.done():
            return
        from trutnet.net.broker import parse_broker_url

        mine = {p.seat for p in self.peers}
        if self.own_broker is not None:  # a resumed host whose broker died with it
            gone = self.successor_broker is None and self.link.disconnected_since is not None
            if gone and await first_reachable(self.candidates()) is None:
                await self._start_broker(min(mine), self.own_broker)
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
                    self.stop_successor()
                    self.on_event("rehost_yielded", {"seat": seat, "to": alive.url})
                return
            since = self.link.disconnected_since
            if since is None:
                return
            waited = asyncio.get_running_loop().time() - since
            if waited < self.options.rehost_after * (2 * rank - 1):
                return
            if await first_reachable(earlier, timeout=1.0) is None:
                await self._start_broker(seat, endpoint)  # else the link will find it
            return

    async def _start_broker(self, seat: int, endpoint: Any) -> None:
        from trutnet.net.broker import EmbeddedBroker

        broker = EmbeddedBroker(endpoint.host, endpoint.port, password=self.link.password)
        await asyncio.get_running_loop().run_in_executor(None, broker.start)
        self.successor_broker = broker  # stopped once everyone is done (9.2)
        self.on_event("rehosted", {"seat": seat, "broker": endpoint.url})

    def stop_successor(self) -> None:
        if self.successor_broker is not None:
            self.successor_broker.stop()
            self.successor_broker = None

    # ------------------------------------------------------------- intake

    async def _on_connect(self) -> None:
        endpoint = self.link.endpoint
        self._connected_once = True
        self.on_event("connected", {"broker": endpoint.url if endpoint else None})
        online = msgpack.packb({**self.presence, "status": "online"})
        await self.link.publish(self.presence_topic, online, retain=True, wait=5)
        await self._ask_sync()

    async def _ask_sync(self) -> None:
        """Ask for what follows this log's head; asked again for the same head (nothing
        came), with this log's length too, so that a log that parted from the table's
        is answered from where it parted (9.2)."""
        self.stats.syncs_sent += 1
        head, replica = self.head(), self.replica
        again = head == self._asked_head and replica is not None
        self._asked_head = head
        body = sync_request(head, len(replica.log) if again and replica is not None else None)
        await self.link.publish(topics.sync(self.table_id), body, wait=5)

    def _on_sync(self, payload: bytes) -> None:
        """Note a sync request; the answer is sent by :meth:`_sync_sender`, never from
        the receive loop: by one peer for the table, only the entries after the head
        asked for, each at most once a second whatever the number of requests
        (:class:`~trutnet.runtime.sync_answers.SyncAnswers`), at no more than
        ``SYNC_BYTES_PER_SECOND``."""
        head, at = parse_sync_request(payload)
        replica = self.replica
        if replica is None:
            if self.open_wire is None or head != GENESIS:
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
                        self._sync_wanted.set()
                    return
                # the asker's log parted from ours (9.2): our entries from its last
                # position on, which show it where (an equivocation's proof, 7.2)
                start = parting_position(at, len(replica.log))
                if start is None:
                    return  # not in our log: someone else may answer
            else:
                start += 1
        if replica is not None and start < len(replica.log):
            self._behind_asked = time.monotonic()  # someone is catching up: linger for it
        seats = self.local_seats()
        players = replica.n if replica is not None else 1
        mine = (
            rank(start, seats, players) if replica is not None else 0
        )  # only the host has the open
        self._answers.asked(start, time.monotonic(), mine)
        self._sync_wanted.set()

    def _log_wire(self, position: int) -> bytes | None:
        """The wire of log entry ``position`` (past the log's end: the entries held in the
        unordered round in progress, in seat order), or None past the end."""
        replica = self.replica
        if replica is None:
            return self.open_wire if position == 0 else None
        entries = replica.log.entries
        if position < len(entries):
            return entries[position].wire
        held = replica.held()  # then what came of the unordered round in progress (7.2)
        return held[position - len(entries)] if position - len(entries) < len(held) else None

    def _log_id(self, position: int) -> bytes | None:
        wire = self._log_wire(position)
        return None if wire is None else hashlib.sha256(wire).digest()

    def _knows(self, entry_id: bytes) -> bool:
        """Whether ``entry_id`` is in the log here, or held in the round in progress."""
        replica = self.replica
        if replica is None:
            return (
                self.open_wire is not None and hashlib.sha256(self.open_wire).digest() == entry_id
            )
        if replica.log.index_of(entry_id) is not None:
            return True
        return any(hashlib.sha256(w).digest() == entry_id for w in replica.held())

    async def _sync_sender(self) -> None:
        budget = float(SYNC_BYTES_PER_SECOND)
        last = time.monotonic()
        wake: float | None = None
        while True:
            with contextlib.suppress(TimeoutError):
                wait = None if wake is None else max(0.0, wake - time.monotonic())
                await asyncio.wait_for(self._sync_wanted.wait(), wait)
            self._sync_wanted.clear()
            if self._void_pending is not None:
                void, self._void_pending = self._void_pending, None
                await self.link.publish(topics.log(self.table_id), void, wait=5)
            positions, wake = self._answers.due(self._log_id, time.monotonic(), MAX_SYNC_ANSWER)
            if positions:
                self.stats.syncs_answered += 1
                self._sync_wanted.set()  # look again at once: there may be more
            for position in positions:
                wire = self._log_wire(position)
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
                self._answers.published(entry_id, time.monotonic(), answer=True)
                self.stats.resent += 1
                await self.link.publish(topics.log(self.table_id), wire, wait=5)

    def _on_notice(self, payload: bytes) -> None:
        """A signed stall report from a seat (schema checked, then shown as a
        ``notice`` event naming its author)."""
        if len(payload) > MAX_NOTICE_BYTES:
            raise UntrustedInput(f"a notice is at most {MAX_NOTICE_BYTES} bytes")
        entry = parse_entry(payload, self.table_id)
        replica = self.replica
        if replica is None or entry.seat >= replica.n or replica.seats[entry.seat] != entry.author:
            raise UntrustedInput("a notice signed by a key that is not the seat's")
        body = entry.body
        if entry.type == "notice" and body.get("kind") == "left":
            if set(body) != {"kind", "seat", "since_entry"} or body["seat"] != entry.seat:
                raise UntrustedInput("a seat says only that it left itself")
            if type(body["since_entry"]) is not int or not 0 <= body["since_entry"] <= 10**6:
                raise UntrustedInput("a leaving notice names the entry it left at")
            self.left[entry.seat] = body["since_entry"]
            self.on_event("notice", {"from": entry.seat, "notice": dict(body)})
            return
        if (
            entry.type != "notice"
            or set(body) != {"kind", "seat", "waiting_for", "since_entry", "seconds"}
            or body["kind"] != "stall"
            or type(body["seat"]) is not int
            or type(body["since_entry"]) is not int
            or type(body["seconds"]) is not int
            or not isinstance(body["waiting_for"], list)
            or not all(isinstance(k, str) and len(k) <= 16 for k in body["waiting_for"])
        ):
            raise UntrustedInput("a notice is a stall report")
        self.on_event("notice", {"from": entry.seat, "notice": dict(body)})

    async def say_leaving(self) -> None:
        """The person quits mid-game: each local seat signs that it left (a ``left``
        notice), so that the others' screens say so instead of "left, or lost?"."""
        replica = self.replica
        if replica is None or replica.state is None or self.done():
            return
        for peer in self.peers:
            if peer.seated():
                body = {"kind": "left", "seat": peer.seat, "since_entry": len(replica.log)}
                await self._notice(peer, body, wait=2)

    async def _notice(self, peer: TablePeer, body: dict[str, Any], wait: float) -> None:
        """Publish ``body`` on the ``notice`` topic, signed by ``peer``'s seat at our head."""
        signed = sign_entry(
            peer.identity,
            table=self.table_id,
            seat=peer.seat,
            seq=0,
            prev=self.head(),
            type="notice",
            body=body,
        )
        await self.link.publish(topics.notice(self.table_id), signed.wire, wait=wait)

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
                peer = TablePeer(seat.identity, index, self.table_id, seat.rng or _urandom)
                try:  # only the table's own host can open it (7.10): check before taking it
                    peer.receive(wire)
                except Rejected as exc:
                    self.stats.dropped += 1
                    log.debug("refused an open entry: %s", exc)
                    return opened
                seat.peer = peer
                opened.append(seat)
                if not peer.seated():  # said once: scripts wait for it, as for "connected"
                    self.on_event("following", {"players": len(keys)})
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
                self._persist(seat)
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
                        self.on_event(
                            "rejected",
                            {
                                "seat": seat.peer.seat if seat.peer else None,
                                "error": str(exc),
                                "blame": str(exc.blame),
                            },
                        )
                continue
            if entry is None:
                self.stats.duplicates += 1
                continue
            if self.options.stamp_entries:
                self.entries_applied.setdefault(entry.id.hex()[:16], time.monotonic())
            advanced = True
            self._persist(seat)
        if advanced:
            self._note_cards()
            self._touch()
            self._notice_replaced()
            replica = self.replica
            if replica is not None and replica.state is not None:
                hand = replica.round_number()
                if hand != self._hand:
                    self._hand = hand
                    self.hand_started.append(time.monotonic())
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

    def _note_cards(self) -> None:
        """Stamp each play (a decision that reveals cards: an ``act`` or ``unseal`` that
        carries its author's shares, 7.4) whose cards this process now knows (a bench
        figure). Its cards are known once it is in the log and the replica no longer
        waits for a public round to reveal them (one decision at a time waits)."""
        replica = self.replica
        if replica is None:
            return
        entries = replica.log.entries
        start = min(self._plays_scanned, len(entries))  # a void may have cut the log (7.8)
        self._plays_waiting += [e for e in entries[start:] if _is_play(e)]
        self._plays_scanned = len(entries)
        if not self._plays_waiting:
            return
        now, last = time.monotonic(), self._plays_waiting[-1]
        pending = replica.pending  # a decision's public round: the last play waits for it
        waiting = [last] if pending is not None and pending[0] >= 0 else []
        for entry in self._plays_waiting:
            if entry not in waiting:
                self.cards_known.setdefault(entry.id.hex()[:16], now)
        self._plays_waiting = waiting

    def _stamp_signed(self, wire: bytes) -> None:
        """``Options.stamp_entries``: a local seat signed (and applied) ``wire`` now."""
        with contextlib.suppress(MessageError):
            key, now = parse_entry(wire).id.hex()[:16], time.monotonic()
            self.entries_signed.setdefault(key, now)
            self.entries_applied.setdefault(key, now)

    def _drop_stale_buffer(self) -> None:
        """Forget buffered entries that extend an entry already behind the head: they
        can never apply."""
        replica = self.replica
        if replica is None:
            return
        head = replica.log.head
        for prev in [p for p in self.buffer if p != head and replica.log.index_of(p) is not None]:
            del self.buffer[prev]

    def _persist(self, seat: LocalSeat) -> None:
        if seat.store is None or seat.peer is None:
            return
        stored = seat.store.count()
        for wire in seat.peer.replica.journal[stored:]:  # forks included (7.8)
            seat.store.append(wire)

    def wake(self) -> None:
        """Something local changed (a person decided): write now."""
        self._progress.set()

    def _touch(self) -> None:
        self._last_progress = time.monotonic()
        self._stall_reported = None
        self._progress.set()
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
            wire = peer.next_automatic()
            if wire is None and peer.decide():
                state = peer.replica.state
                assert state is not None
                if seat.bot is not None:
                    action = str(decide(seat.bot, state, peer.seat))
                    wire = peer.act(action)
                elif seat.pending is not None:
                    wire = self._person_decision(seat)
            elif wire is None and seat.pending is not None and seat.bot is None:
                self._refuse_pending(seat, "it is not this seat's decision any more")
            if wire is None:
                continue
            signed = peer.replica.log.entries[-1]
            if signed.wire == wire and _is_play(signed):
                self.plays_signed[signed.id.hex()[:16]] = time.monotonic()
            if self.options.stamp_entries:
                self._stamp_signed(wire)
            self._note_cards()
            self._persist(seat)
            for other in self.seats:  # the other local seats take it now
                if other is not seat and other.peer is not None:
                    self.ingest(wire)
                    break
            self._touch()
            # Logged and saved: if no broker takes it before the give-up period ends,
            # the others get it by sync once one does (9.2).
            self._answers.published(hashlib.sha256(wire).digest(), time.monotonic(), False)
            await self.link.publish(topics.log(self.table_id), wire, wait=self._patience())
            wrote = True
        return wrote

    def _person_decision(self, seat: LocalSeat) -> bytes | None:
        """Sign the decision the person queued, if it is still legal; else say why it
        was not sent (the table moved on between the key press and now): a person's
        move never vanishes without a word."""
        from trutnet.protocol.table import LocalError

        peer = seat.peer
        assert peer is not None and peer.replica.state is not None and seat.pending is not None
        action, seat.pending = seat.pending, None
        if action not in {str(a) for a in peer.replica.state.legal_actions(peer.seat)}:
            self._refuse_pending(seat, "the table moved on: it is not a legal move now", action)
            return None
        try:
            return peer.act(action)
        except (LocalError, Rejected) as exc:
            self._refuse_pending(seat, str(exc), action)
            return None

    def _refuse_pending(self, seat: LocalSeat, why: str, action: str | None = None) -> None:
        """The ``decision_refused`` event: the person's queued decision was not sent."""
        if action is None:
            action, seat.pending = seat.pending, None
        peer = seat.peer
        self.on_event(
            "decision_refused",
            {"seat": peer.seat if peer is not None else None, "action": action, "why": why},
        )

    def _patience(self) -> float:
        """How long a publish may wait for a broker: never past the give-up period."""
        left = self._give_up_period() - (time.monotonic() - self._last_progress)
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
            self._persist(seat)

    # --------------------------------------------------------------- loops

    async def run(self, join_names: bool = False) -> None:
        """Play until the game is over (or the table stops on a blame)."""
        self.running = True
        self._started = time.monotonic()
        self._level_local_seats()
        await self.link.start()
        # A host's link was up in the lobby, which read no spectator's presence: again.
        await self.link.resubscribe(topics.watcher(self.table_id, "+"))
        pump = asyncio.create_task(self._pump())
        watchdog = asyncio.create_task(self._watchdog())
        sender = asyncio.create_task(self._sync_sender())
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
            self.stop_successor()
            await stop_tasks(pump, watchdog, sender)

    async def _idle_or_give_up(self) -> bool:
        """The idle step, for no longer than the give-up period leaves; True to give up.

        With no broker, each publish of the idle step waits for a connection: the
        give-up period must not wait for them (``--give-up-after 5`` means 5 seconds)."""
        left = self._give_up_period() - (time.monotonic() - self._last_progress)
        if left > 0:
            idle = asyncio.create_task(self._idle())
            done, _ = await asyncio.wait({idle}, timeout=left)
            if idle in done:
                idle.result()  # its error, if any, is the run's
            else:
                await stop_tasks(idle)
        waited = time.monotonic() - self._last_progress
        stranded = self._stranded()
        if stranded is not None and waited > min(
            self.options.follow_timeout, self.options.give_up_after
        ):
            self.gave_up_why = stranded
        elif waited <= self.options.give_up_after:
            return False
        self.on_event("gave_up", {"seconds": round(waited), "why": self.gave_up_why})
        self.gave_up = True
        return True

    def _stranded(self) -> str | None:
        """Why a process that holds no seat can learn nothing more, or None: it cannot
        rehost a lost broker, and once every seat has finished, nobody will send what
        its log lacks."""
        if self.local_seats() or self.replica is None:
            return None
        lost = self.connection()
        if lost is not None:
            return (
                f"lost the broker at {lost.url} (host gone?): the game was not followed to its end"
            )
        if self.over_elsewhere():
            return "every seat finished the game and left before this log caught up"
        return None

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
            entry_id = hashlib.sha256(payload).digest()
            known = self._knows(entry_id)
            self.ingest(payload)
            if known or self._knows(entry_id):  # what went by answers sync requests
                self._answers.went_by(entry_id, time.monotonic(), again=known)
        elif topic == topics.sync(self.table_id):
            self._on_sync(payload)
        elif topic == topics.vote(self.table_id):
            await self._on_vote(payload)
        elif topic.startswith(topics.done(self.table_id, "")):
            self._on_done(topic, payload)
        elif topic == topics.notice(self.table_id):
            self._on_notice(payload)
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
        self.on_event("watchers", {"watchers": watchers, "more": more, "entries": entries})

    async def _watchdog(self) -> None:
        failures = 0
        while True:
            await asyncio.sleep(0.5 if not failures else self.options.rehost_after * failures)
            self._report_connection()
            try:
                await self._maybe_rehost()
                failures = 0
            except Exception as exc:  # e.g. the fallback port is taken: back off, say so
                failures = min(failures + 1, 10)
                self.on_event("rehost_failed", {"error": str(exc)})

    def _report_connection(self) -> None:
        """The ``disconnected`` event, once per loss of the broker during the game (the
        ``connected`` event says when it is back)."""
        lost = self.connection()
        if lost is None or lost.since == self._lost_reported:
            return
        self._lost_reported = lost.since
        self.on_event("disconnected", {"broker": lost.url, "ever": lost.ever})

    # ------------------------------------------------------- the end (9.2)

    def local_seats(self) -> set[int]:
        return {p.seat for p in self.peers if p.seated()}

    def _done_message(self) -> bytes:
        """Every local seat's signed ``done`` (9.2): a vote-shaped message naming the
        head of the finished log."""
        wires = []
        for peer in self.peers:
            if peer.seated():  # not a newcomer following the table, not a replaced seat
                wires.append(
                    sign_entry(
                        peer.identity,
                        table=self.table_id,
                        seat=peer.seat,
                        seq=0,
                        prev=self.head(),
                        type="done",
                        body={},
                    ).wire
                )
        return msgpack.packb(wires, use_bin_type=True)

    def _on_done(self, topic: str, payload: bytes) -> None:
        """ "Done" only decides how long a finished peer stays around, never what anyone
        accepts; still, only a seat's own signature counts it as done, and only for
        the head it names (a forged or stale "done" changes nothing)."""
        if topic == self.done_topic or not payload:
            return
        wires = unpack(payload, 16 * 1024)
        replica = self.replica
        if not isinstance(wires, list) or len(wires) > 16 or replica is None:
            raise UntrustedInput("a done message is a list of signed done entries")
        for wire in wires:
            entry = parse_entry(wire, self.table_id)
            if entry.type != "done" or entry.seq != 0 or entry.body != {}:
                raise UntrustedInput("not a done entry")
            if entry.seat >= replica.n or replica.seats[entry.seat] != entry.author:
                raise UntrustedInput("a done entry signed by a key that is not the seat's")
            if self._done_heads.get(entry.seat) != entry.prev:
                self._done_seen[entry.seat] = time.monotonic()
            self._done_heads[entry.seat] = entry.prev

    def waiting_for(self) -> set[int]:
        """Seats not yet known to have the whole log."""
        replica = self.replica
        if replica is None:
            return set()
        seats = set(range(replica.n)) - self.local_seats()
        if replica.halted is not None:
            seats.discard(replica.halted.seat)
        if replica.ended_without is not None:  # 7.7: the stalled seat is not waited for
            seats.discard(replica.ended_without.seat)
        head = self.head()
        return {s for s in seats if self._done_heads.get(s) != head}

    def catching_up(self) -> bool:
        """A peer behind this log (a newcomer, a spectator, a seat) asked for it lately."""
        window = max(CATCHING_UP, 4 * self.options.gap_timeout)
        return time.monotonic() - self._behind_asked < window

    def stop_lingering(self) -> None:
        """The person has left the end screen: leave now."""
        self._stop_lingering.set()

    async def _linger(self) -> None:
        """Say "done" (retained), then keep answering syncs until every other seat has
        said it too, the broker is gone for ``rehost_after`` seconds, or ``linger``
        seconds have passed. Re-subscribing fetches the retained messages again, in
        case a delivery was lost. (Not on the presence topic: a connection that does
        not close cleanly has its will overwrite what was retained there.)"""
        loop = asyncio.get_running_loop()
        done = self._done_message()
        said = await self.link.publish(self.done_topic, done, retain=True, wait=5)
        deadline = loop.time() + self.options.linger
        replica = self.replica
        serving = self.keep_serving and replica is not None and replica.halted is None

        def needed() -> bool:  # a seat lacks the end, or someone behind asked lately
            return bool(self.waiting_for()) or self.catching_up()

        while serving or (needed() and loop.time() < deadline):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop_lingering.wait(), 0.5)
            if self._stop_lingering.is_set():
                break
            since = self.link.disconnected_since
            gone = since is not None and loop.time() - since > self.options.rehost_after
            if gone and not serving:
                break
            if not said:
                said = await self.link.publish(self.done_topic, done, retain=True, wait=1)
            await self.link.resubscribe(topics.done(self.table_id, "+"))
        self.on_event("finished", {"waited_for": sorted(self.waiting_for())})

    # --------------------------------------------------- replacing a seat (7.7)

    def _stall_key(self, stalled: int) -> tuple[int, bytes] | None:
        """(stalled seat, head) if the table is stuck on ``stalled`` in a game now."""
        replica = self.replica
        if replica is None or not replica.can_abandon(stalled):
            return None
        return stalled, replica.log.head

    def _keep(self, book: dict[tuple[int, bytes], Any]) -> None:
        """Offers and votes only matter at the head the table is stuck at: drop the rest."""
        head = self.head()
        for key in [k for k in book if k[1] != head][: max(0, len(book) - 8)]:
            del book[key]

    async def _on_vote(self, wire: bytes) -> None:
        """A vote or an offer from the ``vote`` topic: kept only if it is signed by the
        key it claims (a vote: its voter's seated key) and is for the point the table
        is stuck at; anything else is dropped and counted."""
        from trutnet.protocol.replace import VoteError, parse_offer, parse_vote

        replica = self.replica
        if replica is None or replica.state is None:
            return
        try:
            if not isinstance(wire, bytes) or len(wire) > 1024:
                raise VoteError("not a vote or an offer")
            entry = parse_entry(wire, self.table_id)
            if entry.type == "offer":
                if self._stall_key(entry.seat) != (entry.seat, entry.prev):
                    raise VoteError("an offer for a seat the table is not stuck on here")
                offer = parse_offer(wire, self.table_id)  # the key proof: checked last
                key = (offer.seat, offer.entry.prev)
                offers = self.offers.setdefault(key, {})
                if len(offers) < 8 and replica.n > offer.seat:
                    offers[offer.id] = wire
                self._keep(self.offers)
                stalled = offer.seat
            else:
                vote = parse_vote(wire, self.table_id, replica.seats)
                self.votes.setdefault((vote.stalled, vote.head), {})[vote.voter] = wire
                self._keep(self.votes)
                stalled = vote.stalled
        except (MessageError, VoteError) as exc:
            self.stats.rejected.append(f"vote topic: {exc}")
            return
        except Exception as exc:  # hostile bytes must never end the pump
            self.stats.rejected.append(f"vote topic: {type(exc).__name__}")
            return
        await self._maybe_replace(stalled)

    def _taker(self, key: tuple[int, bytes], voter: int) -> bytes | None:
        """The offer ``voter`` (a local seat) votes for. A partner of the stalled seat
        chooses among the newcomers it accepts (``Options.takers``), the lowest offer id
        first; any other seat follows a partner's choice, and never chooses itself: who
        plays a seat is its team's decision (7.7)."""
        from trutnet.crypto.identity import fingerprint
        from trutnet.protocol.replace import VoteError, parse_vote, partners

        replica = self.replica
        offers = self.offers.get(key, {})
        if replica is None or replica.state is None or not offers:
            return None
        if not replica.can_void(key[0]):  # the keys round, a joint draw: abandon only
            return None
        mates = partners(key[0], replica.team_of)
        if voter in mates:
            accepted = {t.strip().upper() for t in self.options.takers}
            allowed = [
                offer_id
                for offer_id, wire in offers.items()
                if "ANY" in accepted or fingerprint(parse_entry(wire).author) in accepted
            ]
            return min(allowed, default=None)
        for other, wire in sorted(self.votes.get(key, {}).items()):
            try:
                taker = parse_vote(wire, self.table_id, replica.seats).taker
            except VoteError:
                continue
            if other in mates and taker in offers:
                return taker
        return None

    async def _vote(self, stalled: int, abandon: bool) -> None:
        """Each local seat votes on ``stalled``: for the newcomer its team accepts, or
        (``abandon``, or a seat without partners) to abandon the game. A vote is signed
        again only when it changes."""
        from trutnet.protocol.replace import partners

        key = self._stall_key(stalled)
        replica = self.replica
        if key is None or replica is None or replica.state is None:
            return
        team_game = bool(partners(stalled, replica.team_of))
        for peer in self.peers:
            if peer.seat == stalled or not peer.seated():
                continue
            taker = self._taker(key, peer.seat) if team_game else None
            if taker is None and team_game and not abandon:
                continue  # a team game waits for a newcomer's offer first
            said = self._voted.get((*key, peer.seat))
            if said is not None and said[0] == taker:  # the same vote: said again every 2 s
                if time.monotonic() - said[1] >= 2.0:
                    self._voted[(*key, peer.seat)] = (taker, time.monotonic())
                    wire = self.votes.get(key, {}).get(peer.seat)
                    if wire is not None:
                        await self.link.publish(topics.vote(self.table_id), wire, wait=5)
                continue
            self._voted[(*key, peer.seat)] = (taker, time.monotonic())
            self._vote_times.setdefault(key, time.monotonic())
            wire = peer.vote(stalled, taker)
            self.votes.setdefault(key, {})[peer.seat] = wire
            self.on_event(
                "vote",
                {
                    "seat": stalled,
                    "voter": peer.seat,
                    "for": "abandon" if taker is None else "newcomer",
                },
            )
            await self.link.publish(topics.vote(self.table_id), wire, wait=5)
        await self._maybe_replace(stalled)

    async def _maybe_replace(self, stalled: int) -> None:
        """As the coordinator: write the ``void`` (or ``abandon``) once a quorum agrees."""
        from trutnet.protocol.replace import VoteError, coordinator, pick_quorum

        key = self._stall_key(stalled)
        replica = self.replica
        if key is None or replica is None or replica.state is None:
            return
        chief_seat = coordinator(stalled, replica.team_of)
        chief = next((p for p in self.peers if p.seat == chief_seat and p.seated()), None)
        if chief is None:
            return
        chosen = pick_quorum(
            self.votes.get(key, {}),
            self.offers.get(key, {}),
            self.table_id,
            replica.seats,
            replica.team_of,
            key[1],
            stalled,
            replica.round_number(),
        )
        if chosen is None:
            return
        offer, votes = chosen
        try:
            wire = chief.replace(stalled, votes, offer) if offer else chief.abandon(stalled, votes)
        except VoteError:
            return
        self.ingest_local(chief, wire)
        change = chief.replica.changes[-1]
        self.on_event(
            change.kind,
            {
                "seat": stalled,
                "voters": list(change.voters),
                "coordinator": chief.seat,
                "by": change.name,
            },
        )
        self._answers.published(hashlib.sha256(wire).digest(), time.monotonic(), False)
        await self.link.publish(topics.log(self.table_id), wire)

    def ingest_local(self, author: TablePeer, wire: bytes) -> None:
        """An entry that a local seat just signed: every other local seat takes it."""
        for seat in self.seats:
            if seat.peer is not None and seat.peer is not author:
                self.ingest(wire)
                break
        for seat in self.seats:
            self._persist(seat)
        self._touch()

    async def _offer(self, stalled: int) -> None:
        """As a newcomer (a local peer that holds no seat): offer to take ``stalled``."""
        from trutnet.protocol.replace import partners
        from trutnet.protocol.table import LocalError

        key = self._stall_key(stalled)
        replica = self.replica
        if key is None or replica is None or replica.state is None:
            return
        if not partners(stalled, replica.team_of):
            return
        if key in self._offered:  # said again every 2 s: a seat may have been behind
            wire, said = self._offered[key]
            if time.monotonic() - said >= 2.0:
                self._offered[key] = (wire, time.monotonic())
                await self.link.publish(topics.vote(self.table_id), wire, wait=5)
            return
        for seat in self.seats:
            peer = seat.peer
            if peer is None or peer.seated() or peer.replaced() or seat.bot is None:
                continue
            try:
                wire = peer.offer(stalled, seat.name)
            except LocalError:
                continue
            self._offered[key] = (wire, time.monotonic())
            self._keep(self._offered)
            self.offers.setdefault(key, {})[parse_entry(wire).id] = wire
            self.on_event("offer", {"seat": stalled, "name": seat.name})
            await self.link.publish(topics.vote(self.table_id), wire, wait=5)
            return

    def _notice_replaced(self) -> None:
        """Say once that a local seat was replaced, or that a local newcomer took a seat."""
        replica = self.replica
        changes = len(replica.changes) if replica is not None else 0
        if changes == self._changes_seen:
            return
        self._changes_seen = changes
        for peer in self.peers:
            if peer.replaced() and peer.seat not in self._told_replaced:
                self._told_replaced.add(peer.seat)
                self.on_event("you_were_replaced", {"seat": peer.seat})
        for seat in self.seats:  # a newcomer whose offer a void accepted
            peer = seat.peer
            if peer is None or id(peer) in self._told_taken or not peer.seated():
                continue
            if any(c.taker == peer.identity.public for c in peer.replica.changes):
                self._told_taken.add(id(peer))
                self.on_event("took_seat", {"seat": peer.seat})

    async def _stalled(self, stalled: int, waited: float) -> None:
        """The table has waited ``waited`` seconds for ``stalled``, a seat not played here."""
        opts = self.options
        if waited >= min(opts.stall_timeout, opts.void_timeout):
            await self._offer(stalled)
        if waited >= opts.void_timeout:
            await self._vote(stalled, abandon=waited >= 2 * opts.void_timeout)
            await self._maybe_replace(stalled)  # votes may have come before our head did

    def _release_holds(self) -> None:
        """A local seat that voted, then saw the stalled seat's late entry, holds (7.8);
        if no void came within twice the void timeout of its vote, it follows that entry."""
        now = time.monotonic()
        for peer in self.peers:
            for key in peer.holds:  # a hold restored from a crash counts from the resume
                self._vote_times.setdefault(key, now)
            if peer.holding() and any(
                now - self._vote_times[key] >= 2 * self.options.void_timeout for key in peer.holds
            ):
                peer.release()
                self.on_event("vote_released", {"seat": peer.seat})
                self._touch()

    def recent_void(self) -> bytes | None:
        """The last ``void`` or ``abandon`` in the log, if it is among the last 2,000
        entries: what a replaced seat that wrote at its place needs (7.8)."""
        replica = self.replica
        if replica is None or not replica.changes:
            return None
        index = replica.changes[-1].entry
        if len(replica.log) - index > MAX_SYNC_ANSWER:
            return None
        return replica.log.entries[index].wire

    async def _idle(self) -> None:
        """Nothing happened for a while: fill gaps, report a stalled seat, vote."""
        self._notice_replaced()
        if self.buffer or self.replica is None:
            await self._ask_sync()
        replica = self.replica
        if replica is None:
            return
        expected = replica.expected()
        if expected is None:
            return
        waited = time.monotonic() - self._last_progress
        key = (expected[0], len(replica.log))
        if waited >= self.options.stall_timeout and self._stall_reported != key:
            self._stall_reported = key
            notice = {
                "kind": "stall",
                "seat": expected[0],
                "waiting_for": list(expected[1]),
                "since_entry": len(replica.log),
                "seconds": round(waited),
            }
            self.on_event("stall", notice)
            reporter = next((p for p in self.peers if p.seated()), None)
            if reporter is not None:
                await self._notice(reporter, notice, wait=5)
        elif waited >= 2 * self.options.gap_timeout:
            await self._ask_sync()
        if expected[0] not in self.local_seats() and not self.over_elsewhere():
            await self._stalled(expected[0], waited)
        self._release_holds()


def _urandom(size: int) -> bytes:
    import os

    return os.urandom(size)


async def first_reachable(endpoints: list[Any], timeout: float = 0.5) -> Any:
    """The first of ``endpoints`` where something listens, or None."""
    for endpoint in endpoints:
        if await reachable(endpoint, timeout):
            return endpoint
    return None


async def reachable(endpoint: Any, timeout: float = 0.5) -> bool:
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


def _is_play(entry: Entry) -> bool:
    """A decision that reveals cards: it carries its author's own shares of them."""
    return entry.type in ("act", "unseal") and "shares" in entry.body
