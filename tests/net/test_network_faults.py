"""Faults: a peer killed mid-hand, the broker restarted, a lossy and unruly network."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import time

import pytest

from tests.mosquitto import free_port
from tests.network_helpers import result_of, spawn, start_table, timer, wait_for_event
from trutnet.crypto.identity import Identity
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.net.broker import EmbeddedBroker
from trutnet.net.faults import FaultyInbox
from trutnet.net.mqtt_link import MqttLink
from trutnet.protocol.lobby import table_id_for
from trutnet.runtime.events import announced_table
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import HostSetup, JoinSetup, host, join
from trutnet.store import PeerStore

pytestmark = pytest.mark.network

# 7.7 under test: a seat silent this long is reported, then voted on (twice this long: the
# game abandoned). Generous enough that a seat slowed down by a loaded machine is never
# taken for a frozen one; the frozen seat is voted on after 10 s, abandoned after 20 s.
FREEZE = ["--stall-timeout", timer(2), "--void-timeout", timer(10)]
# Gâtinaise (first to 5 Longs): the shorter game, all a fault needs to be met and played out
SHORT = ["--variant", "gatinaise"]


def wait_for_change(store_dir, kind: str, timeout: float = 240) -> None:
    """Wait until the seat's log in ``store_dir`` holds a ``void`` or an ``abandon``
    (``kind``): the table has decided about the frozen seat (7.7)."""
    from trutnet.protocol.envelope import parse_entry

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(parse_entry(w).type == kind for w in PeerStore(store_dir).entries()):
            return
        time.sleep(0.2)
    raise AssertionError(f"{store_dir}: no {kind} after {timeout} s")


def listening(*urls: str, timeout: float = 120) -> None:
    """Wait until a broker listens at one of ``urls`` (mqtt://127.0.0.1:port)."""
    ports = [int(url.rsplit(":", 1)[1]) for url in urls]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for port in ports:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens at {urls} after {timeout} s")


def port_closed(port: int, timeout: float = 30) -> None:
    """Wait until nothing listens on ``port`` on loopback any more."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"port {port} still listens after {timeout} s")


def wait_for_entries(store_dir, count, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (store_dir / "log.bin").exists() and PeerStore(store_dir).count() >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{store_dir} never reached {count} entries")


def test_peer_killed_mid_hand_resumes_and_the_game_finishes(tmp_path):
    broker = EmbeddedBroker()
    url = broker.start().url
    try:
        _, procs = start_table(
            url, 4, tmp_path, "kill9", ["--stall-timeout", timer(2)], host_extra=SHORT
        )
        victim = procs[2]
        wait_for_entries(tmp_path / "p2", 120)  # well inside the first hands
        seat = PeerStore(tmp_path / "p2").load_secrets()["seat"]  # seats go by arrival
        os.kill(victim.pid, signal.SIGKILL)
        victim.communicate()
        assert victim.returncode == -signal.SIGKILL
        # The table soon waits for the dead seat: the host reports it past the stall timeout.
        wait_for_event(procs[0], lambda e: e["event"] == "stall" and e.get("seat") == seat)
        restarted = spawn(
            ["join", "--resume", "--store", str(tmp_path / "p2"), "--json", "--bot", "heuristic"]
        )
        results = [result_of(p) for p in (procs[0], procs[1], restarted, procs[3])]
        assert len({r["state_hash"] for r in results}) == 1
        assert all(r["halted"] is None for r in results)
        # While the killed seat was down, the others reported it: who, and what they waited for.
        stalls = [e for r in results for e in r["events"] if e["event"] in ("stall", "notice")]
        assert any(e.get("seat") == seat and e.get("waiting_for") for e in stalls), stalls[:3]
    finally:
        broker.stop()


def test_broker_stopped_and_restarted_mid_game(tmp_path):
    port = free_port()
    broker = EmbeddedBroker(port=port)
    url = broker.start().url
    try:
        _, procs = start_table(url, 3, tmp_path, "broker-restart", host_extra=SHORT)
        wait_for_entries(tmp_path / "p1", 80)
        broker.stop()
        port_closed(port)  # gone: every peer's connection to it is dead
        broker = EmbeddedBroker(port=port)
        broker.start()
        results = [result_of(p) for p in procs]
        assert len({r["state_hash"] for r in results}) == 1
        assert all(r["halted"] is None for r in results)
        for r in results:  # each peer lost the broker and connected again
            assert len([e for e in r["events"] if e["event"] == "connected"]) >= 2
    finally:
        broker.stop()


def test_dropped_duplicated_and_reordered_messages_still_end_on_one_hash():
    broker = EmbeddedBroker()
    endpoint = broker.start()
    faults = []

    async def scenario():
        host_key, nonce = Identity.generate(os.urandom), os.urandom(16)
        table_id = table_id_for(host_key.public, nonce)
        original_start = MqttLink.start

        async def faulty_start(self):  # every link gets a faulty inbox
            first = self._task is None
            await original_start(self)
            if not first:
                return
            faults.append(
                FaultyInbox(self, seed=len(faults), drop=0.15, duplicate=0.15, reorder=0.15)
            )

        MqttLink.start = faulty_start
        try:
            options = Options(stall_timeout=60, gap_timeout=0.2)
            host_task = asyncio.create_task(
                host(
                    TrutGame(TrutConfig(3, start=StartPosition((5, 5, 5), (1, 1, 1), 0))),
                    [endpoint],
                    HostSetup(
                        bots=1, seed="faults", identity=host_key, nonce=nonce, options=options
                    ),
                )
            )
            guest = asyncio.create_task(  # join waits for the host's lobby
                join(table_id, [endpoint], JoinSetup(name="guest", seed="faults", options=options))
            )
            return await asyncio.wait_for(asyncio.gather(host_task, guest), 300)
        finally:
            MqttLink.start = original_start

    try:
        results = asyncio.run(scenario())
    finally:
        broker.stop()
    assert len({r.state_hash for r in results}) == 1
    assert all(r.halted is None for r in results)
    stats = [f.stats for f in faults]
    assert sum(s.dropped for s in stats) > 10 and sum(s.duplicated for s in stats) > 10
    assert sum(s.reordered for s in stats) > 10


@pytest.mark.parametrize("fallbacks", [True, False], ids=["successor", "no-fallbacks"])
def test_host_killed_the_table_moves_to_a_successor_broker_and_the_host_comes_back(
    tmp_path, fallbacks
):
    """9.3: the host's embedded broker dies with it. With fallbacks, seat 1 re-hosts at
    its fallback address, everyone moves there, and the host resumes from its files as
    a plain peer. With none, the table waits, and the resumed host brings its broker
    back at the same address."""
    fallback_1, fallback_2 = f"mqtt://127.0.0.1:{free_port()}", f"mqtt://127.0.0.1:{free_port()}"
    common = ["--seed", "rehost", "--json", "--stall-timeout", timer(60)]
    host_proc = spawn(
        [
            "host",
            "--players",
            "3",
            "--no-announce",
            "--store",
            str(tmp_path / "host"),
            *SHORT,
            *common,
        ]
    )
    table, lines = announced_table(host_proc)  # {"event": "table", ... "broker": ...}
    url = json.loads(lines[-1])["broker"]
    joiners = [
        spawn(
            [
                "join",
                "--bot",
                "heuristic",
                "--broker",
                url,
                "--table",
                table,
                "--name",
                f"p{k}",
                *(["--fallback", fb] if fallbacks else []),
                "--store",
                str(tmp_path / f"p{k}"),
                *common,
            ]
        )
        for k, fb in ((1, fallback_1), (2, fallback_2))
    ]
    wait_for_entries(tmp_path / "p1", 60)
    os.kill(host_proc.pid, signal.SIGKILL)  # its broker child dies with it
    host_proc.communicate()
    if fallbacks:  # past rehost_after, seat 1 hosts the table at its own fallback address
        listening(fallback_1, fallback_2)
    back = spawn(
        [
            "join",
            "--resume",
            "--store",
            str(tmp_path / "host" / "seat-0"),
            *common,
            "--bot",
            "heuristic",
        ]
    )
    results = [result_of(p) for p in (back, *joiners)]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    # Exactly one re-host: seat 1 (the first seat with a fallback) at its own fallback,
    # or the resumed host at its old address.
    by_seat = {
        PeerStore(tmp_path / f"p{k}").load_secrets()["seat"]: fb
        for k, fb in ((1, fallback_1), (2, fallback_2))
    }
    expected = (1, by_seat[1]) if fallbacks else (0, url)
    rehosted = [e for r in results for e in r["events"] if e["event"] == "rehosted"]
    assert [(e["seat"], e["broker"]) for e in rehosted] == [expected]
    for r in results:  # every peer ended on that broker, and left once all were done
        assert [e["broker"] for e in r["events"] if e["event"] == "connected"][-1] == expected[1]
        assert [e["waited_for"] for e in r["events"] if e["event"] == "finished"] == [[]]


def _events(result, kind):
    return [e for e in result["events"] if e["event"] == kind]


def _replays_to(store, result):
    """The seat's files (a journal: a late entry that a void overrode stays in it,
    7.6, 7.8) replay to the log and state it ended with."""
    from trutnet.runtime.resuming import load_seat

    peer = load_seat(store).peer
    assert len(peer.replica.log) == result["entries"]
    assert peer.replica.state.state_hash() == result["state_hash"]


@pytest.mark.timeout(600)  # a whole game of 3 processes, and 20 s frozen: on a loaded machine
def test_a_frozen_seat_without_partners_is_abandoned_and_follows_when_it_comes_back(tmp_path):
    """7.7: in 3 players nobody may take a seat: the two others abandon the game (no
    winner, the frozen seat blamed). The frozen seat, continued, writes the entry it
    owed, is overridden by the abandon (7.8) and ends on the same log."""
    broker = EmbeddedBroker()
    url = broker.start().url
    try:
        _, procs = start_table(url, 3, tmp_path, "freeze", FREEZE, host_extra=SHORT)
        frozen = procs[2]
        wait_for_entries(tmp_path / "p2", 80)
        seat = PeerStore(tmp_path / "p2").load_secrets()["seat"]
        os.kill(frozen.pid, signal.SIGSTOP)  # alive but silent
        wait_for_change(tmp_path / "host" / "seat-0", "abandon")
        os.kill(frozen.pid, signal.SIGCONT)  # back while the others are still there
        results = [result_of(p) for p in procs[:2]]
        back = result_of(frozen)
        assert len({r["state_hash"] for r in [*results, back]}) == 1
        assert len({r["entries"] for r in [*results, back]}) == 1
        assert all(r["halted"] is None and r["winner"] is None for r in [*results, back])
        votes = [e for r in results for e in _events(r, "vote")]
        assert votes and all(e["seat"] == seat and e["for"] == "abandon" for e in votes)
        abandoned = [e for r in results for e in _events(r, "abandoned")]
        assert len(abandoned) == 1 and abandoned[0]["seat"] == seat
        assert sorted(abandoned[0]["voters"]) == sorted({0, 1, 2} - {seat})
        _replays_to(tmp_path / "p2", back)
    finally:
        broker.stop()


@pytest.mark.timeout(600)  # a whole game of 5 processes: on a loaded machine
def test_a_newcomer_takes_a_frozen_seat_and_the_frozen_seat_follows(tmp_path):
    """7.7 over a real broker, one process per seat: seat p2 freezes; a newcomer
    process (`join --bot` on a full table) catches up with the table, which waits for
    p2, and offers; the partner's vote and one more make the void; the newcomer plays
    the seat to the end with its own keys. The frozen seat, continued, learns it was
    replaced and follows to the same log. (p2 freezes before the newcomer starts: a
    Gâtinaise game can end while a newcomer process is still starting.)"""
    broker = EmbeddedBroker()
    url = broker.start().url
    timeouts = [*FREEZE, "--accept-taker", "any"]
    try:
        table, procs = start_table(url, 4, tmp_path, "newcomer", timeouts, host_extra=SHORT)
        wait_for_entries(tmp_path / "p2", 40)  # the game has started: every seat is taken
        frozen = procs[2]
        seat = PeerStore(tmp_path / "p2").load_secrets()["seat"]
        os.kill(frozen.pid, signal.SIGSTOP)  # the table soon waits for it
        newcomer = spawn(
            [
                "join",
                "--bot",
                "heuristic",
                "--broker",
                url,
                "--table",
                table,
                "--name",
                "Nia",
                "--store",
                str(tmp_path / "new"),
                "--json",
                "--seed",
                "nia",
                *timeouts,
            ]
        )
        wait_for_change(tmp_path / "host" / "seat-0", "void")
        os.kill(frozen.pid, signal.SIGCONT)  # back while the game goes on without it
        results = [result_of(p) for p in (procs[0], procs[1], procs[3], newcomer)]
        back = result_of(frozen)
        everyone = [*results, back]
        assert len({r["state_hash"] for r in everyone}) == 1
        assert len({r["entries"] for r in everyone}) == 1
        assert all(r["halted"] is None for r in everyone) and results[0]["winner"] is not None
        replaced = [e for r in results for e in _events(r, "replaced")]
        assert len(replaced) == 1 and replaced[0]["seat"] == seat and replaced[0]["by"] == "Nia"
        partner = (seat + 2) % 4
        assert partner in replaced[0]["voters"] and len(replaced[0]["voters"]) >= 2
        assert [e["seat"] for e in _events(results[3], "took_seat")] == [seat]
        assert PeerStore(tmp_path / "new").load_secrets()["seat"] == seat
        assert _events(back, "you_were_replaced")
        _replays_to(tmp_path / "p2", back)
        _replays_to(tmp_path / "new", results[3])
    finally:
        broker.stop()
