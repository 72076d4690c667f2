"""A table of real peers on a simulated network and clock, faults from one seed.

:class:`Sim` runs one table: a :class:`~trutnet.protocol.table.TablePeer` per seat with
a bot in it, each keeping its files in a :class:`~trutnet.store.PeerStore`, and a
spectator (a peer that holds no seat and, as ``trutnet watch``, answers no sync and
leaves once the game is over), all in one process. Nothing here reads a clock or a
global random source: time is a number that jumps from event to event, and every
fault is drawn from ``random.Random`` seeded by the run's seed, as is every peer's
randomness (keys, shuffles, bots), so one seed replays the same run byte for byte.

What each peer does is the runtime's logic (:mod:`trutnet.runtime.table_runtime`),
redone here without asyncio:

* an entry it receives goes to its replica, one that does not extend the head waits in
  a buffer for the head it names (``_hold``), and its log goes to its store first;
* it writes its automatic entries and its bot's decisions as soon as they are owed;
* after ``GAP`` seconds without progress it asks for what it lacks (a sync request
  naming its head, 9.2), and the others answer as the runtime does
  (:mod:`trutnet.sim.syncing`);
* a seat the table waits for ``void_timeout`` seconds (twice that in a team game, for
  a newcomer's offer) gets every other seat's vote to abandon, and the coordinator
  writes the ``abandon`` once a quorum agrees (7.7);
* a peer without progress for ``give_up`` seconds stops (``give_up_after``);
* newcomers (``Faults.newcomers``) follow the table and offer to take a stalled seat
  with partners; the votes and the ``void`` or ``abandon``: :mod:`trutnet.sim.votes`.

Faults: :mod:`trutnet.sim.faults`. Signs (a game's, 9.8): :mod:`trutnet.sim.signs`.
``done`` and lingering (9.2): :mod:`trutnet.sim.ending`. A person's screen, checked
after each step that changed a replica: :mod:`trutnet.sim.screens`. Not modelled yet:
a peer's computing time, the sync answers' byte budget and the early entries' buffer
bound, and stall notices (saved transcripts: :mod:`trutnet.sim.transcripts`).
"""

from __future__ import annotations

import hashlib
import heapq
import random
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trutnet.bots import decide, make_bot
from trutnet.client.frontend import Frontend
from trutnet.crypto import Identity, SeededRandom
from trutnet.engine.api import Game
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.lobby import table_id_for
from trutnet.protocol.replica import TableReplica
from trutnet.protocol.schema import Rejected
from trutnet.protocol.table import TablePeer
from trutnet.runtime.sync_answers import SyncAnswers, parting_position, recent_void
from trutnet.sim.crashes import may_tear, tear_last
from trutnet.sim.ending import SimEnd
from trutnet.sim.faults import Faults, clock_rates, hostile_payload
from trutnet.sim.invariants import Violation, check_step
from trutnet.sim.outcome import run_result, waiting_text
from trutnet.sim.records import Node, RunResult, SimFailure
from trutnet.sim.screens import check_screen
from trutnet.sim.signs import SimSigns
from trutnet.sim.syncing import MAX_ANSWER, SimSync, sync_request_of
from trutnet.sim.transcripts import Transcripts
from trutnet.sim.votes import Ballots
from trutnet.store import PeerStore

GAP = 0.5  # seconds without progress before a peer asks for what it lacks (gap_timeout)
TICK = 0.5  # how often an idle peer looks again
TOPICS = ("log", "sync", "vote")


Event = tuple[float, int, str, int, int, Any]  # time, order, kind, node, its life, payload


class Sim:
    """One table of ``game`` under ``faults``, decided by ``seed`` (see the module)."""

    def __init__(
        self,
        game: Game,
        seed: int,
        faults: Faults,
        bots: Sequence[str],
        directory: Path,
        spectator: bool = True,
        without: frozenset[int] = frozenset(),
    ) -> None:
        self.game, self.seed, self.faults = game, seed, faults
        self.without = without  # numbers of the faults drawn that are not injected
        self.injections = 0
        self.injected: list[int] = []
        self.rng = random.Random(f"sim/{seed}/faults")
        self.now = 0.0
        self.queue: list[Event] = []
        self._order = 0
        self.counts: Counter[str] = Counter()
        self.kinds = list(bots)
        players = game.num_players()
        ids = [self._identity(f"seat/{s}") for s in range(players)]
        self.nonce = hashlib.sha256(f"sim/{seed}/nonce".encode()).digest()[:16]
        self.table_id = table_id_for(ids[0].public, self.nonce)
        self.keys = [i.public for i in ids]
        self.nodes: list[Node] = []
        self.checked = CheckedProofs(trust_own=False)  # each proof once: the same verdicts
        self.transcripts = Transcripts(directory / "games", self.table_id, self.checked)
        rates = clock_rates(seed, faults.drift, players + 1 + faults.newcomers)
        for seat, identity in enumerate(ids):
            store = PeerStore(directory / f"seat-{seat}")
            node = Node(f"seat {seat}", seat, identity, None, store, None, life=-1)
            node.rate = rates[seat]
            self.nodes.append(node)
            self._start(node, fresh=True)
        if spectator:
            identity = self._identity("spectator")
            peer = self._make_peer(identity, -1, "spectator")
            self.nodes.append(Node("spectator", None, identity, peer, None, None))
            self.nodes[-1].rate = rates[players]
        self.ballots = Ballots(self)  # the votes and offers on a stalled seat (7.7)
        self.signs = SimSigns(self)
        self.end = SimEnd(self)
        self.syncing = SimSync(self)
        self.nodes += self.ballots.newcomers(directory, rates[players + 1 :])
        self.gone = False
        # a partition or a broker down: each process's group, until when (a broker
        # down puts every process in a group of its own)
        self.groups: list[int] = []
        self.cut_until = float("-inf")
        self.broker_down_until = float("-inf")  # every process has lost the broker
        self.violation: Violation | None = None
        self.status = ""
        self.note = ""
        self.frontends: dict[str, Frontend | None] = {}  # by game: the screens' model

    # ------------------------------------------------------------ set-up

    def _identity(self, who: str) -> Identity:
        return Identity.from_seed(hashlib.sha256(f"sim/{self.seed}/id/{who}".encode()).digest())

    def _make_peer(self, identity: Identity, seat: int, who: str) -> TablePeer:
        """A peer (the seam a test replaces to play a seat dishonestly)."""
        rng = SeededRandom(f"sim/{self.seed}/{who}")
        return TablePeer(identity, seat, self.table_id, rng, self.checked)

    def _start(self, node: Node, fresh: bool) -> None:
        assert node.seat is not None and node.store is not None
        node.life += 1
        who = f"seat {node.seat}/{node.life}"
        store = node.store
        if fresh:
            node.peer = self._make_peer(node.identity, node.seat, who)
        else:  # back from its files, as ``trutnet play --resume`` does
            try:
                secrets, rng = store.load_secrets(), SeededRandom(f"sim/{self.seed}/{who}")
                node.peer = TablePeer.restore(
                    node.identity, secrets, store.entries(), rng, self.checked
                )
            except Exception as exc:  # a store that does not restore is a finding
                raise SimFailure(
                    Violation("crash", f"{node.name} cannot resume: {type(exc).__name__}: {exc}")
                ) from exc
        node.peer.on_secrets = store.save_secrets
        store.save_secrets(node.peer.secrets())
        self._persist(node)
        node.bot = make_bot(
            self.game.name,
            self.kinds[node.seat],
            random.Random(f"sim/{self.seed}/bot/{node.seat}/{node.life}"),
        )
        node.up, node.last_progress, node.asked = True, self.now, float("-inf")
        node.asked_head = None  # a fresh process: its first request names the head alone
        node.void_sent = node.behind_asked = float("-inf")
        node.buffer, node.answers, node.votes, node.voted = {}, SyncAnswers(), {}, {}
        node.voted_for, node.offers, node.offered = {}, {}, {}

    # ------------------------------------------------------------ the clock

    def at(self, delay: float, kind: str, node: int, payload: Any = None) -> None:
        """``kind`` happens to node number ``node`` (in its current life) in ``delay`` s."""
        self._order += 1
        life = self.nodes[node].life
        heapq.heappush(self.queue, (self.now + delay, self._order, kind, node, life, payload))

    def run(self) -> RunResult:
        started = time.perf_counter()
        host = self.nodes[0]
        assert host.peer is not None
        wire = host.peer.open_table(self.game, self.keys, nonce=self.nonce)
        self.wrote(host, wire)
        for index in range(len(self.nodes)):
            self.at(TICK, "tick", index)
        try:
            self._loop()
        except SimFailure as exc:
            self.violation = exc.violation
            self.status = "failed"
        except Exception as exc:  # a peer's own code broke: a finding, with where
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno}"
            self.violation = Violation("crash", f"{type(exc).__name__}: {exc} ({where})")
            self.status = "failed"
        return run_result(self, time.perf_counter() - started)

    def _loop(self) -> None:
        while self.queue:
            at, _, kind, index, life, payload = heapq.heappop(self.queue)
            if at > self.faults.bound:
                raise SimFailure(Violation("stuck", waiting_text(self)))
            self.now = at
            node = self.nodes[index]
            if kind == "restart":
                self._restart(node)  # its files may hold the end already
                if self._ended():
                    return
                continue
            if not node.up or life != node.life:
                continue  # a message to a dead process, or a timer of a former life
            changed = getattr(self, f"_on_{kind}")(node, payload)
            if changed and node.up:
                self._check(node)
                self.end.moved(node)  # its game over: it says done (9.2)
                if self._cut(node) or self._ended():
                    return
            elif (node.gave_up or node.left) and self._ended():
                return
        raise AssertionError("the clock stopped")  # ticks never stop

    # ------------------------------------------------------------ network

    def publish(
        self,
        sender: Node,
        topic: str,
        payload: bytes,
        to: set[int] | None = None,
        rng: Any = None,
        kept: bool = False,
    ) -> None:
        """Send ``payload`` to every other process (``to``: to those nodes only); with
        ``rng``, its faults come from that generator, not numbered (the signs', 9.8);
        ``kept``: retained by the broker, so never lost for good (a copy lost on the way
        comes again when the process connects: it is delayed, not lost)."""
        faults, inject = self.faults, self._inject if rng is None else lambda kind: True
        rng, apart = rng or self.rng, self.now < self.cut_until
        for index, node in enumerate(self.nodes):
            if node is sender or (to is not None and index not in to):
                continue
            if apart and self.groups[index] != self.groups[self.nodes.index(sender)]:
                self.counts["cut_off"] += 1  # the other side of a partition: never arrives
                continue
            copies = 2 if rng.random() < faults.dup and inject("duplicated") else 1
            for _ in range(copies):
                if rng.random() < faults.loss and not kept and inject("lost"):
                    continue
                delay = faults.base + rng.expovariate(1 / faults.delay) if faults.delay else 0
                if rng.random() < faults.reorder and inject("reordered"):
                    delay += rng.uniform(0, 1.0)
                self._order += 1
                heapq.heappush(
                    self.queue,
                    (self.now + delay, self._order, topic, index, node.life, payload),
                )
            self.counts["messages"] += copies
        self.counts["bytes"] += len(payload)  # what the broker is sent, once

    def wrote(self, node: Node, wire: bytes) -> None:
        """``node`` signed ``wire`` (applied and saved): it may die now, else it sends it."""
        self._persist(node)
        self._progress(node)
        self.counts["written"] += 1
        junk = None
        if self.rng.random() < self.faults.junk and self._inject("junk"):
            junk = self._junk(wire)
        self._maybe_cut()
        if self._maybe_kill(node, wire):
            return  # died between saving the entry and sending it: nobody saw it
        if junk is not None:  # a hostile message made of it, once it is out
            self._order += 1
            heapq.heappush(self.queue, (self.now + 0.001, self._order, *junk))
        node.answers.published(hashlib.sha256(wire).digest(), self.now, False)
        self.publish(node, "log", wire)

    def _inject(self, kind: str) -> bool:
        """The next fault drawn, of ``kind``: injected (True), or skipped because its
        number is in ``without`` (a shrunk schedule); the same numbers drawn either way."""
        self.injections += 1
        if self.injections in self.without:
            self.counts["skipped"] += 1
            return False
        self.counts[kind] += 1
        self.injected.append(self.injections)
        return True

    def _maybe_cut(self) -> None:
        """Maybe split the processes in two groups, or restart the broker (nothing
        drawn when neither is asked for, so other runs replay as before)."""
        rng, faults, now = self.rng, self.faults, self.now
        calm = now >= self.cut_until
        if faults.split and calm and rng.random() < faults.split and self._inject("partitioned"):
            size = len(self.nodes)
            side = set(rng.sample(range(size), rng.randrange(1, size)))
            self.groups = [int(k in side) for k in range(size)]
            self.cut_until = now + rng.uniform(0.5, faults.split_for)
            calm = False
        restart = faults.restart and calm and rng.random() < faults.restart
        if restart and self._inject("broker_restarted"):
            self.groups = list(range(len(self.nodes)))  # nobody hears anybody
            self.cut_until = self.broker_down_until = now + rng.uniform(0.1, faults.restart_for)
            in_flight = [e for e in self.queue if e[2] in TOPICS]
            self.counts["lost_in_restart"] += len(in_flight)
            self.queue = [e for e in self.queue if e[2] not in TOPICS]
            heapq.heapify(self.queue)
            for node in self.nodes:  # each process's client sees its connection drop
                if node.up and node.peer is not None:
                    self._check_screen(node)

    def _junk(self, wire: bytes) -> tuple[str, int, int, bytes]:
        """A hostile message from outside the table to one peer, on any topic, made of
        ``wire`` (the topic, the peer, its life, the payload)."""
        rng = self.rng
        target = rng.randrange(len(self.nodes))
        topic = rng.choice(TOPICS)
        payload = hostile_payload(rng, wire)
        return topic, target, self.nodes[target].life, payload

    def _maybe_kill(self, writer: Node, wire: bytes) -> bool:
        """Maybe kill a seat (at most ``Faults.at_once`` down together); True if it is
        ``writer``, which has just signed and saved ``wire``, not sent yet."""
        rng, faults = self.rng, self.faults
        if not faults.kill or rng.random() >= faults.kill:
            return False
        seated = [n for n in self.nodes if n.seat is not None]
        up = [n for n in seated if n.up]
        if len(seated) - len(up) >= faults.at_once or not self._inject("killed"):
            return False
        victim = rng.choice(up)
        if len(up) < len(seated):
            self.counts["killed_while_down"] += 1  # another seat is down too
        if faults.torn and rng.random() < faults.torn:
            self._tear(victim, wire if victim is writer else None)
        victim.up, victim.peer = False, None  # its memory is lost; its files stay
        victim.life += 1
        if not self.gone and rng.random() < faults.gone:
            self.gone = victim.gone = True
            self.counts["gone"] += 1
        else:
            down = rng.uniform(0.1, faults.down)
            self._order += 1
            index = self.nodes.index(victim)
            heapq.heappush(self.queue, (self.now + down, self._order, "restart", index, -1, None))
        return victim is writer

    def _tear(self, victim: Node, unsent: bytes | None) -> None:
        """``victim`` died while appending its log's last record (:mod:`.crashes`)."""
        store = victim.store
        if store is None or victim.peer is None or not may_tear(store, unsent):
            return
        if self._inject("torn"):
            victim.store = tear_last(store, self.rng)

    # ------------------------------------------------------------ events

    def _on_log(self, node: Node, wire: Any) -> bool:
        entry_id = hashlib.sha256(wire).digest()
        known = self._knows(node, entry_id)
        advanced = self._ingest(node, wire)
        if known or self._knows(node, entry_id):  # what went by answers sync requests
            node.answers.went_by(entry_id, self.now, again=known)
        return advanced

    def _ingest(self, node: Node, wire: bytes) -> bool:
        peer = node.peer
        assert peer is not None
        try:
            entry = peer.receive(wire)
        except Rejected as exc:
            if exc.rule == "chain":
                self._hold(node, wire)
            elif exc.rule not in ("duplicate", "over", "halted"):
                self.counts["refused"] += 1
            return bool(exc.halt)
        except Exception as exc:  # the runtime would drop it; a replica must refuse it
            raise SimFailure(
                Violation(
                    "crash", f"{node.name}: an entry broke receive: {type(exc).__name__}: {exc}"
                )
            ) from exc
        if entry is None:
            return False
        self._persist(node)
        self._progress(node)
        for waiting in node.buffer.pop(peer.replica.log.head, {}).values():
            self._ingest(node, waiting)
        return True

    def _hold(self, node: Node, wire: bytes) -> None:
        """Keep an entry that does not extend the head until the head it names comes."""
        try:
            entry = parse_entry(wire)
        except MessageError:
            return
        node.buffer.setdefault(entry.prev, {})[entry.id] = wire

    def _knows(self, node: Node, entry_id: bytes) -> bool:
        replica = node.replica
        if replica.log.index_of(entry_id) is not None:
            return True
        return any(hashlib.sha256(w).digest() == entry_id for w in replica.held())

    def _on_wake(self, node: Node, _: Any) -> bool:
        """Write every entry this seat owes now (the runtime's ``_write``)."""
        wrote = False
        if self.end.over_elsewhere(node):
            return False  # its game ended past its log: what it writes cannot matter
        while node.up and node.peer is not None:
            peer = node.peer
            wire = peer.next_automatic()
            if wire is None and peer.decide():
                state = peer.replica.state
                assert state is not None and node.bot is not None
                wire = peer.act(str(decide(node.bot, state, peer.seat)))
            if wire is None:
                break
            wrote = True
            self.wrote(node, wire)
        return wrote

    def _on_tick(self, node: Node, _: Any) -> bool:
        """Idle: leave once over, ask for what is missing, vote on a stalled seat (the
        runtime's ``_idle``)."""
        self.at(TICK, "tick", self.nodes.index(node))
        if self.end.tick(node):
            return False
        waited = self.elapsed(node, node.last_progress)  # on its own clock
        replica = node.replica
        expected = replica.expected()
        if waited < GAP or expected is None:
            return False
        if waited >= self.faults.give_up:
            self._give_up(node)
            return False
        if (node.buffer or waited >= 2 * GAP) and self.elapsed(node, node.asked) >= GAP:
            node.asked = self.now
            self.counts["sync_asked"] += 1
            self.publish(node, "sync", sync_request_of(node))
        if self.end.over_elsewhere(node):
            return False  # as the runtime: no vote on a game that ended past its log
        if self.ballots.policy.report(waited) and node.peer is not None:
            self._check_screen(node)  # the wait is said
        return self.ballots.on_stall(node, expected[0], waited)  # offers and votes (7.7)

    def elapsed(self, node: Node, since: float) -> float:
        """Seconds since ``since`` (simulated time) as ``node``'s own clock counts them."""
        return (self.now - since) * node.rate

    def _give_up(self, node: Node) -> None:
        """The runtime's ``give_up_after``: a peer that saw no progress that long stops.
        Before the game, the only way a table that never opened ends; in a game, a
        failure: the others should have abandoned it long before (7.7)."""
        replica = node.replica
        expected = replica.expected()
        if expected is not None and replica.can_abandon(expected[0]):
            raise SimFailure(
                Violation("stuck", f"{node.name} gave up, not abandoned: {waiting_text(self)}")
            )
        if not self.note:
            who = f"seat {expected[0]}" if expected is not None else "nobody"
            self.note = f"gave up at {replica.phase} waiting for {who}"
        node.up, node.gave_up = False, True
        self.counts["gave_up"] += 1

    def _cut(self, node: Node) -> bool:
        """``Faults.hands`` hands are over: the run stops here (status ``cut``)."""
        state = node.replica.state
        if not self.faults.hands or state is None or state.round_number() < self.faults.hands:
            return False
        self.status = "cut"
        return True

    def _vote(self, node: Node, stalled: int, taker: bytes | None) -> bool:
        return self.ballots.vote(node, stalled, taker)  # the seam a test silences

    def _on_done(self, node: Node, payload: Any) -> bool:
        return self.end.receive(node, payload)

    def _on_signs(self, node: Node, wire: Any) -> bool:
        return self.signs.receive(node, wire)

    def _on_vote(self, node: Node, wire: Any) -> bool:
        return self.ballots.read(node, wire)

    def _on_sync(self, node: Node, payload: Any) -> bool:
        return self.syncing.on_sync(node, payload)

    @staticmethod
    def _parting(at: int | None, length: int) -> int | None:
        """Where a request for a head off this log is answered from (the runtime's;
        the seam a test takes away)."""
        return parting_position(at, length)

    @staticmethod
    def _recent_void(replica: TableReplica) -> bytes | None:
        """The runtime's: the last ``void``/``abandon`` among the log's last entries."""
        return recent_void(replica, MAX_ANSWER)

    def _on_send(self, node: Node, _: Any) -> bool:
        return self.syncing.on_send(node)

    # ------------------------------------------------------------ bookkeeping

    def _persist(self, node: Node) -> None:
        if node.store is None or node.peer is None:
            return
        stored = node.store.count()
        for wire in node.peer.replica.journal[stored:]:  # forks included (7.8)
            node.store.append(wire)

    def _progress(self, node: Node) -> None:
        node.last_progress = self.now
        self.ballots.took_seat(node)  # a newcomer a void seated plays from now on
        self.signs.moved(node)
        if node.seat is not None:
            self.at(0, "wake", self.nodes.index(node))

    def replicas(self) -> list[tuple[str, TableReplica]]:
        """Every process's replica that is the table's: up, or left once over."""
        live = [n for n in self.nodes if n.up or n.left == "left"]
        return [(n.name, n.replica) for n in live if n.peer is not None]

    def dishonest(self) -> set[int]:
        return {n.seat for n in self.nodes if n.dishonest and n.seat is not None}

    def _check(self, node: Node) -> None:
        """Every invariant, after a step that changed ``node``'s replica."""
        replicas = self.replicas()
        violation = check_step(node.name, node.seat, node.replica, replicas, self.dishonest())
        if violation is None:
            violation = check_screen(self, node, self.frontends)
        if violation is None and self._over(node.replica) and node.replica.halted is None:
            wires = [e.wire for e in node.replica.log.entries]
            violation = self.transcripts.ended(node.name, node.life, wires)
        if violation is not None:
            raise SimFailure(violation)

    def _check_screen(self, node: Node) -> None:
        """The screen invariants alone, at a moment no replica changed (the broker
        lost, a wait past the stall timeout)."""
        violation = check_screen(self, node, self.frontends)
        if violation is not None:
            raise SimFailure(violation)

    def _over(self, replica: TableReplica) -> bool:
        return replica.expected() is None

    def _ended(self) -> bool:
        """Every process that is to come back has, and its replica says the table is over."""
        return all(
            n.gone or n.gave_up or n.left or (n.up and self._over(n.replica)) for n in self.nodes
        )

    # ------------------------------------------------------------ restarts

    def _restart(self, node: Node) -> None:
        self._start(node, fresh=False)
        self.end.restarted(node)
        self.counts["restarted"] += 1
        index = self.nodes.index(node)
        self.counts["sync_asked"] += 1  # on connecting, as the runtime does
        node.asked = self.now
        self.publish(node, "sync", sync_request_of(node))
        self.at(TICK, "tick", index)
        self.at(0, "wake", index)
