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
