"""An outsider on the table's LAN, and real games to attack (for the hostile suite).

The table's broker accepts anonymous clients and has no topic rules, so anyone on the
LAN can subscribe to a table's topics, read every message and publish anything,
retained messages included. :class:`Outsider` is such a client (aiomqtt, no
credentials), run in its own thread while real peers (separate OS processes, the
project's own ``trutnet host`` / ``trutnet join``) play over the real embedded broker.

:func:`play_attacked` runs one game with one attack and returns what every peer
reported; :func:`assert_fair` says whether the game came out as an honest one would:
every peer finished, in bounded time, on one state hash (the honest game's, when the
seating is deterministic), with one result each, no seat stopped or replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from trutnet.crypto.identity import Identity
from trutnet.net.broker import parse_broker_url
from trutnet.protocol.envelope import GENESIS, entry_id, parse_entry

from ..network_helpers import seconds, spawn, timer

ROOT = "trutnet/v1"
# Each times TRUTNET_TEST_TIMER_SCALE (network_helpers.timer), generous enough for a
# loaded machine: an honest game takes about 10 s on an idle one.
GIVE_UP = 30.0  # a peer with no progress for this long stops: a hang shows as "gave up"
LINGER = 30.0  # a finished peer helps the others for at most this long (they all leave
# at once when every seat has said done: it costs nothing in a game that ends well)
DEADLINE = 150.0  # no game of this suite may take longer, whatever happens


@dataclass
class Traffic:
    """What the outsider has seen, by topic leaf (``log``, ``join``, ``presence/<fp>``...)."""

    messages: list[tuple[str, bytes]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # when each message came (monotonic)
    log: list[bytes] = field(default_factory=list)
    log_ids: set[bytes] = field(default_factory=set)

    def leaf(self, name: str) -> list[bytes]:
        return [p for t, p in self.messages if t == name]

    def count(self, name: str, start: float, end: float) -> int:
        """How many messages came on ``name`` between ``start`` and ``end``."""
        return sum(
            1
            for (t, _), at in zip(self.messages, self.times, strict=True)
            if t == name and start <= at <= end
        )

    def leaves(self, prefix: str) -> list[str]:
        return sorted({t for t, _ in self.messages if t.startswith(prefix)})


class Outsider:
    """An anonymous client of the table's broker: reads everything, publishes anything."""

    def __init__(self, url: str, table: str, game: Game) -> None:
        self.endpoint = parse_broker_url(url)
        self.url = url
        self.table = table
        self.table_id = bytes.fromhex(table)
        self.game = game
        self.identity = Identity.from_seed(os.urandom(32))  # the outsider's own key
        self.seen = Traffic()
        self.client: aiomqtt.Client | None = None
        self.sent = 0
        self._changed = asyncio.Event()
        self._came = asyncio.Event()  # set by every message

    # -- topics
    def topic(self, leaf: str) -> str:
        if leaf == "lobby":
            return f"{ROOT}/lobby/{self.table}"
        return f"{ROOT}/table/{self.table}/{leaf}"

    async def publish(self, leaf: str, payload: bytes, retain: bool = False, qos: int = 0) -> None:
        assert self.client is not None
        await self.client.publish(self.topic(leaf), payload, qos=qos, retain=retain)
        self.sent += 1

    async def everywhere(self, payload: bytes, retain_too: bool = False) -> None:
        """On every topic of the table: log, join, sync, vote, notice, done/presence/
        watchers (a real peer's fingerprint if seen, else a made-up one) and the lobby."""
        fps = self.fingerprints() or ["AAAA-BBBB-CCCC-DDDD"]
        leaves = ["log", "join", "sync", "vote", "notice", "lobby"]
        leaves += [f"{kind}/{fp}" for kind in ("done", "presence", "watchers") for fp in fps]
        for leaf in leaves:
            retain = retain_too and (leaf.startswith(("done/", "presence/", "watchers/")))
            await self.publish(leaf, payload, retain=retain)

    def fingerprints(self) -> list[str]:
        return [t.split("/", 1)[1] for t in self.seen.leaves("presence/")]

    # -- what was seen
    def head(self) -> bytes:
        return entry_id(self.seen.log[-1]) if self.seen.log else GENESIS

    def recent_head(self) -> bytes:
        """A head the table's log had lately: the one the last entry seen extends (the
        head after an unordered round is its digest, never an entry's id)."""
        return parse_entry(self.seen.log[-1]).prev if self.seen.log else GENESIS

    async def wait_log(self, count: int, timeout: float = 60) -> None:
        """Wait until ``count`` distinct log entries went by."""
        deadline = time.monotonic() + timeout
        while len(self.seen.log) < count:
            if time.monotonic() > deadline or self.game.over.is_set():
                raise TimeoutError(f"only {len(self.seen.log)} log entries seen")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.2)

    async def wait_message(self, leaf: str, payload: bytes, timeout: float = 30) -> None:
        """Wait until ``payload`` came back on ``leaf`` (the broker has passed it on)."""
        deadline = time.monotonic() + timeout
        while payload not in self.seen.leaf(leaf):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{leaf}: the broker never passed the message on")
            await asyncio.sleep(0.02)

    async def wait_answer(
        self, leaf: str, since: int, said: bytes, answer: bytes, timeout: float = 30
    ) -> None:
        """Wait until, among the messages on ``leaf`` after the first ``since``, ``said``
        came back and then ``answer`` (a peer answering what was said)."""
        deadline = time.monotonic() + timeout
        while True:
            later = self.seen.leaf(leaf)[since:]
            if said in later and answer in later[later.index(said) + 1 :]:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{leaf}: no answer to what was said")
            self._came.clear()
            with contextlib.suppress(TimeoutError):  # the next message, whatever it is
                await asyncio.wait_for(self._came.wait(), left)

    async def wait_leaf(self, leaf: str, timeout: float = 30) -> bytes:
        deadline = time.monotonic() + timeout
        while not self.seen.leaf(leaf):
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing on {leaf}")
            await asyncio.sleep(0.02)
        return self.seen.leaf(leaf)[-1]

    async def _listen(self) -> None:
        assert self.client is not None
        prefix = f"{ROOT}/table/{self.table}/"
        async for message in self.client.messages:
            topic = str(message.topic)
            payload = (
                bytes(message.payload) if isinstance(message.payload, bytes | bytearray) else b""
            )
            leaf = topic[len(prefix) :] if topic.startswith(prefix) else "lobby"
            self.seen.messages.append((leaf, payload))
            self.seen.times.append(time.monotonic())
            self._came.set()
            if leaf == "log":
                try:
                    entry = parse_entry(payload, self.table_id)
                except Exception:
                    continue
                if entry.id not in self.seen.log_ids:
                    self.seen.log_ids.add(entry.id)
                    self.seen.log.append(payload)
                    self._changed.set()

    async def run(
        self, attack: Callable[[Outsider], Awaitable[None]], ready: threading.Event
    ) -> None:
        async with aiomqtt.Client(
            self.endpoint.host, self.endpoint.port, identifier=f"outsider-{os.urandom(6).hex()}"
        ) as client:
            self.client = client
            await client.subscribe(f"{ROOT}/table/{self.table}/#", qos=0)
            await client.subscribe(f"{ROOT}/lobby/{self.table}", qos=0)
            listener = asyncio.create_task(self._listen())
            ready.set()
            try:
                await attack(self)
                while not self.game.over.is_set():  # keep watching until the end
                    await asyncio.sleep(0.1)
            finally:
                listener.cancel()


@dataclass
class Peer:
    name: str
    proc: subprocess.Popen[str]
    out: str = ""
    err: str = ""
    timed_out: bool = False

    @property
    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.out.splitlines():
            if line.startswith("{"):
                with contextlib.suppress(ValueError):
                    out.append(json.loads(line))
        return out

    @property
    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == "result"]


@dataclass
class Game:
    """A table of real peer processes on a real broker."""

    url: str
    store: Path
    players: int
    seed: str
    extra: list[str]
    table: str = ""
    peers: list[Peer] = field(default_factory=list)
    over: threading.Event = field(default_factory=threading.Event)
    seconds: float = 0.0
    attack_error: BaseException | None = None
    outsider: Outsider | None = None

    def __post_init__(self) -> None:
        """The host's key is written before it starts (its seat folder), and its nonce
        follows from the seed, so the table id (bound to both, protocol 7.10) is known
        in advance and the outsider can attack from before the host is up."""
        from trutnet.crypto import Identity, SeededRandom
        from trutnet.keystore import save_identity
        from trutnet.protocol.lobby import table_id_for

        key = Identity.generate(os.urandom)
        folder = self.store / "host" / "seat-0"
        folder.mkdir(parents=True, exist_ok=True)
        save_identity(key, folder / "identity.key")
        self.table = table_id_for(key.public, SeededRandom(f"{self.seed}/table")(16)).hex()

    def common(self) -> list[str]:
        return [
            "--seed",
            self.seed,
            "--json",
            "--give-up-after",
            timer(GIVE_UP),
            "--linger",
            timer(LINGER),
            *self.extra,
        ]

    def spawn_host(self) -> None:
        args = ["host", "--players", str(self.players), "--broker", self.url]
        # Gâtinaise (first to 5 Longs): the shorter game, all an attack needs
        args += ["--variant", "gatinaise", "--no-announce", "--store", str(self.store / "host")]
        self.peers.append(Peer("host", spawn([*args, *self.common()])))

    def spawn_joiner(self, k: int, url: str | None = None) -> None:
        args = ["join", "--bot", "heuristic", "--broker", url or self.url, "--table", self.table]
        args += ["--name", f"p{k}", "--store", str(self.store / f"p{k}")]
        self.peers.append(Peer(f"p{k}", spawn([*args, *self.common()])))

    def finish(self, deadline: float) -> None:
        threads = [threading.Thread(target=_communicate, args=(p, deadline)) for p in self.peers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _communicate(peer: Peer, deadline: float) -> None:
    try:
        peer.out, peer.err = peer.proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        peer.timed_out = True
        peer.proc.kill()
        peer.out, peer.err = peer.proc.communicate(timeout=30)


def play_attacked(
    url: str,
    store: Path,
    attack: Callable[[Outsider], Awaitable[None]],
    players: int = 2,
    seed: str = "hostile",
    extra: list[str] | None = None,
    gate_joiners: bool = False,
    victim_url: str | None = None,
    deadline: float | None = None,
) -> Game:
    """One game of ``players`` peer processes (a host, then joiners) with ``attack``
    running in an outsider's thread from before the host starts. With
    ``gate_joiners`` the attack spawns the joiners itself (``out.game.spawn_joiner``);
    ``victim_url``: joiner 1 reaches the broker there (a sniffing proxy)."""
    game = Game(url, store, players, seed, list(extra or []))
    outsider = Outsider(url, game.table, game)
    game.outsider = outsider
    ready = threading.Event()

    def attacker() -> None:
        try:
            asyncio.run(outsider.run(attack, ready))
        except BaseException as exc:  # reported by the test, after the game
            game.attack_error = exc
            ready.set()

    thread = threading.Thread(target=attacker, daemon=True)
    thread.start()
    assert ready.wait(15), "the outsider could not connect"
    start = time.monotonic()
    game.spawn_host()
    if not gate_joiners:
        # seats go by arrival: the joiners come once the host's lobby is up, in order
        lobby_deadline = time.monotonic() + 60
        while not outsider.seen.leaf("lobby") and time.monotonic() < lobby_deadline:
            time.sleep(0.02)
        for k in range(1, players):
            game.spawn_joiner(k, victim_url if k == 1 else None)
    else:
        gate_deadline = time.monotonic() + 60
        while len(game.peers) < players and time.monotonic() < gate_deadline:
            time.sleep(0.05)
    game.finish(start + (deadline or seconds(DEADLINE)))
    game.seconds = time.monotonic() - start
    game.over.set()
    thread.join(30)
    return game


def assert_fair(
    game: Game, reference: str | None = None, replaced_ok: bool = False
) -> list[dict[str, Any]]:
    """The game ended as an honest one: every peer finished in time with exit 0 and
    exactly one result, all on one state hash (``reference`` if given), no seat
    stopped on a blame, gave up, or was replaced. Names the failure: hang, crash,
    split or a wrong result."""
    assert game.attack_error is None, f"the attack itself failed: {game.attack_error!r}"
    hung = [p.name for p in game.peers if p.timed_out]
    assert not hung, f"hang: {hung} still running after {game.seconds:.0f} s"
    bad = [
        (p.name, p.proc.returncode, p.err.strip().splitlines()[-3:])
        for p in game.peers
        if p.proc.returncode != 0
    ]
    last = {p.name: (p.results[-1] if p.results else None) for p in game.peers}
    gave_up = [n for n, r in last.items() if r and r.get("halted")]
    halted = {n: r.get("halted") for n, r in last.items() if r}
    assert not bad, f"crash or stop: exit codes and last lines {bad}; halted {halted}"
    assert not gave_up, f"stopped: {[(n, last[n]['halted']) for n in gave_up]}"
    counts = {p.name: len(p.results) for p in game.peers}
    assert all(c == 1 for c in counts.values()), (
        f"wrong result: result lines per peer {counts}: "
        f"{[r for p in game.peers for r in p.results][:4]}"
    )
    results = [p.results[0] for p in game.peers]
    hashes = {r.get("state_hash") for r in results}
    assert len(hashes) == 1, f"split: state hashes {hashes}"
    if reference is not None:
        assert hashes == {reference}, f"wrong result: {hashes} instead of the honest {reference}"
    seats = sorted(s for r in results for s in r["seats"])
    assert seats == list(range(game.players)), f"seats {seats}"
    if not replaced_ok:
        replaced = [e for p in game.peers for e in p.events if e.get("event") == "replaced"]
        assert not replaced, f"a seat was replaced: {replaced[:2]}"
    return results
