"""Peers on a real network: separate OS processes over the embedded broker and Mosquitto."""

from __future__ import annotations

import pytest

from tests import ROOT
from tests.mosquitto import mosquitto
from tests.network_helpers import result_of, start_table
from trutnet.net.broker import EmbeddedBroker


@pytest.fixture
def embedded(broker_kind):
    broker = EmbeddedBroker()
    assert broker.kind == broker_kind
    endpoint = broker.start()
    yield endpoint.url
    broker.stop()


def play(url, players, tmp_path, seed):
    _, procs = start_table(url, players, tmp_path, seed)
    results = [result_of(p) for p in procs]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    assert sorted(s for r in results for s in r["seats"]) == list(range(players))
    return results


def check_card_figures(results):
    from trutnet.bench.network_bench import card_times

    assert results[0]["winner"] in (0, 1) and results[0]["hands"] >= 1
    # The bench's card figure: each play stamped once by its player, its card by everyone.
    signed = [k for r in results for k in r["plays_signed"]]
    assert signed and len(set(signed)) == len(signed)
    assert all(set(r["cards_known"]) == set(signed) for r in results)
    times = card_times(results)
    assert len(times) == len(signed) and all(t >= 0 for t in times)


# Trut's whole 4-process game on the embedded amqtt here, and on a Mosquitto below (one
# of the test's own, as a person's --broker): the embedded Mosquitto, the same peers'
# path with another config file, plays whole games of 4 processes in
# tests/net/test_network_faults.py and of 2 and 3 in tests/hostile, where it is the
# default embedded broker (Mosquitto when installed, as in CI).
@pytest.mark.network
@pytest.mark.parametrize("broker_kind", ["amqtt"], indirect=True)
def test_four_processes_play_a_whole_game_over_the_embedded_broker(embedded, tmp_path):
    check_card_figures(play(embedded, 4, tmp_path, "net-embedded"))


@pytest.mark.network
def test_the_test_game_plays_in_two_processes_over_the_embedded_broker(
    embedded, tmp_path, monkeypatch
):
    """Tokens (tests/games/tokens.py), a game the table knows only by its engine
    description, loaded in each process from ``$TRUTNET_GAME_PLUGINS``: a host and a
    joiner play it to the end, agree on every hash, and the transcript verifies."""
    import os

    from tests.network_helpers import EARLY, spawn
    from trutnet.runtime.events import announced_table

    root = ROOT  # where `tests.games.plugin` is found
    monkeypatch.setenv("TRUTNET_GAME_PLUGINS", "tests.games.plugin")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    common = ["--seed", "net-tokens", "--json", "--broker", embedded, "--bot", "random"]
    host = spawn(
        ["host", "--game", "tokens", "--no-announce", "--store", str(tmp_path / "h"), *common]
    )
    table, early = announced_table(host)
    EARLY[host.pid] = early
    assert '"game": "tokens"' in "".join(early)  # the lobby says which game
    guest = spawn(
        ["join", "--game", "tokens", "--table", table, "--name", "guest",
         "--store", str(tmp_path / "g"), *common]
    )  # fmt: skip
    results = [result_of(p) for p in (host, guest)]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    assert [r["seats"] for r in results] == [[0], [1]]
    assert results[0]["hands"] == 4  # the bets, then three rounds: a checkpoint each
    from tests.games.tokens import TokensGame
    from trutnet.engine import GAMES, register_game
    from trutnet.protocol.audit import audit
    from trutnet.store import PeerStore

    wires = PeerStore(tmp_path / "h" / "seat-0").entries()
    register_game(TokensGame)
    try:
        report = audit(bytes.fromhex(table), wires)
    finally:
        GAMES.pop("tokens")
    assert report.ok and report.counts["seal"] == report.counts["unseal"] == 8


@pytest.mark.network
def test_four_processes_play_a_whole_game_over_mosquitto(tmp_path):
    with mosquitto() as url:
        check_card_figures(play(url, 4, tmp_path, "net-mosquitto"))


def test_the_delay_proxy_delays_every_hop_and_keeps_the_order():
    """``bench network --hop-delay-ms``: each chunk arrives D ms late each way, in
    order, and chunks in flight are delayed side by side, not one after another."""
    import asyncio
    import time

    from trutnet.bench.delay_proxy import DelayProxy
    from trutnet.net.broker import Endpoint

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(1024):
            writer.write(data)
            await writer.drain()
        writer.close()

    async def main() -> tuple[bytes, bytes, float, float]:
        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        target = Endpoint("127.0.0.1", server.sockets[0].getsockname()[1])
        with DelayProxy(target, 50) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            began, sent, got = time.monotonic(), b"", b""
            for k in range(20):
                chunk = f"<{k:02d}>".encode()
                writer.write(chunk)
                await writer.drain()
                sent += chunk
                await asyncio.sleep(0.002)
            got = await reader.read(1024)
            first = time.monotonic() - began
            while len(got) < len(sent):
                got += await reader.read(1024)
            elapsed = time.monotonic() - began
            writer.close()
        server.close()
        return sent, got, first, elapsed

    sent, got, first, elapsed = asyncio.run(main())
    assert got == sent
    assert first >= 0.1  # up to the server and back down: two hops of 50 ms
    assert elapsed < 1.0  # 20 chunks one after another would take 2 s


def trut_for_the_bench():
    """What ``trutnet bench network`` plays by default: Trut, 4 players, heuristic bots."""
    from trutnet.bench.network_bench import Played
    from trutnet.games.trut.rules import TrutConfig, TrutGame

    return Played(TrutGame(TrutConfig(4)), ["--game", "trut", "--players", "4"], "heuristic")


@pytest.mark.network
def test_broker_load_replay_measures_hands_messages_and_cpu():
    from trutnet.bench.network_bench import max_tables

    broker = EmbeddedBroker()
    try:
        best, curve = max_tables(
            broker.start(), trut_for_the_bench(), steps=(2,), hands=1, broker_pid=broker.pid
        )
    finally:
        broker.stop()
    assert best == 2 and curve[0]["tables"] == 2 and curve[0]["clients"] == 8
    assert 0 < curve[0]["hand_ms_median"] <= curve[0]["hand_ms_p95"] < 2000
    assert curve[0]["messages_per_s"] > 0 and "failed" not in curve[0]
    assert curve[0]["broker_cpu"] is not None and curve[0]["broker_us_per_message"] is not None


@pytest.mark.network
def test_broker_load_reports_where_capacity_ends_instead_of_a_traceback(monkeypatch):
    """A broker that takes TCP connections but never answers CONNECT (as amqtt does past
    its connection cap): the load stops with how many got in and why."""
    import socket

    from trutnet.bench import network_bench
    from trutnet.net.broker import Endpoint

    monkeypatch.setattr(network_bench, "CONNECT_TIMEOUT_S", 1.0)
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(64)
        endpoint = Endpoint("127.0.0.1", mute.getsockname()[1])
        best, curve = network_bench.max_tables(
            endpoint, trut_for_the_bench(), steps=(1, 2), hands=1, step_timeout=20
        )
    assert best == 0 and len(curve) == 1
    failed = curve[0]["failed"]
    assert failed.startswith("0 of 4 clients connected, 0 of 1 tables playing")
    assert "timed out" in failed
    assert "STOPPED: 0 of 4 clients" in network_bench._row(curve[0])


@pytest.mark.network
def test_presence_is_retained_and_the_will_says_offline_when_a_peer_dies(embedded):
    import asyncio
    import os
    import signal

    import aiomqtt
    import msgpack

    from tests.network_helpers import spawn
    from trutnet.net.broker import parse_broker_url

    endpoint = parse_broker_url(embedded)
    table = os.urandom(16).hex()
    peer = spawn(
        [
            "join",
            "--broker",
            embedded,
            "--table",
            table,
            "--name",
            "Ana",
            "--json",
            "--bot",
            "heuristic",
        ]
    )

    async def watch():
        statuses = []
        async with aiomqtt.Client(endpoint.host, endpoint.port) as client:
            await client.subscribe(f"trutnet/v1/table/{table}/presence/+", qos=1)
            async with asyncio.timeout(30):
                async for message in client.messages:
                    data = msgpack.unpackb(message.payload, raw=False)
                    statuses.append((data["name"], data["status"]))
                    if data["status"] == "online":
                        os.kill(peer.pid, signal.SIGKILL)
                    if data["status"] == "offline":
                        return statuses

    assert asyncio.run(watch()) == [("Ana", "online"), ("Ana", "offline")]
    peer.communicate()


@pytest.mark.network
def test_the_embedded_mosquitto_cuts_off_a_packet_far_above_an_entry_s_size(monkeypatch):
    """Entries are at most 64 KiB: a 300 KB publish is never fanned out to the table."""
    import asyncio

    import aiomqtt

    monkeypatch.setenv("TRUTNET_EMBEDDED_BROKER", "mosquitto")
    broker = EmbeddedBroker()
    endpoint = broker.start()

    async def scenario():
        got = []
        async with aiomqtt.Client(endpoint.host, endpoint.port) as table:
            await table.subscribe("t/#", qos=1)
            try:
                async with aiomqtt.Client(endpoint.host, endpoint.port, timeout=3) as big:
                    await big.publish("t/x", b"x" * 300_000, qos=1)
            except aiomqtt.MqttError:
                pass  # cut off
            async with aiomqtt.Client(endpoint.host, endpoint.port) as fair:
                await fair.publish("t/x", b"y" * 65536, qos=1)
            async with asyncio.timeout(5):
                async for message in table.messages:
                    got.append(len(message.payload))
                    break
        return got

    try:
        assert asyncio.run(scenario()) == [65536]
    finally:
        broker.stop()


@pytest.mark.network
def test_the_embedded_broker_says_so_when_its_port_is_taken(broker_kind):
    """Not fooled by whatever else listens there (a connection would reach it)."""
    import socket

    from trutnet.net.broker import BrokerError

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        broker = EmbeddedBroker(port=port)
        with pytest.raises(BrokerError) as error:
            broker.start()
    assert str(error.value) == (
        f"the embedded broker ({broker_kind}) did not start on 127.0.0.1:{port}"
    )
    assert broker.process is None
