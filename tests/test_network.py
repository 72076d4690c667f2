"""Peers on a real network: separate OS processes over the embedded broker and Mosquitto."""

from __future__ import annotations

import pytest

from trutnet.net.broker import EmbeddedBroker

from .mosquitto import mosquitto
from .network_helpers import result_of, start_table


@pytest.fixture
def embedded():
    broker = EmbeddedBroker()
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


def test_four_processes_play_a_whole_game_over_the_embedded_broker(embedded, tmp_path):
    results = play(embedded, 4, tmp_path, "net-embedded")
    assert results[0]["winner"] in (0, 1) and results[0]["hands"] >= 1


def test_four_processes_play_a_whole_game_over_mosquitto(tmp_path):
    with mosquitto() as url:
        play(url, 4, tmp_path, "net-mosquitto")


def test_broker_load_replay_measures_hands(embedded):
    from trutnet.bench.network_bench import max_tables
    from trutnet.net.broker import parse_broker_url

    best, curve = max_tables(parse_broker_url(embedded), steps=(2,), hands=1)
    assert best == 2 and curve[0]["tables"] == 2
    assert 0 < curve[0]["hand_ms_median"] <= curve[0]["hand_ms_p95"] < 2000


def test_presence_is_retained_and_the_will_says_offline_when_a_peer_dies(embedded):
    import asyncio
    import os
    import signal

    import aiomqtt
    import msgpack

    from trutnet.net.broker import parse_broker_url

    from .network_helpers import spawn

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
