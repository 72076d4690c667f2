"""Truco over the real broker: four peer processes (a host and three joiners, each
with its heuristic bot) play a whole match with full crypto, and agree on it."""

from __future__ import annotations

import pytest

from tests.network_helpers import result_of, start_table
from trutnet.net.broker import EmbeddedBroker

pytestmark = pytest.mark.network  # peers, a broker: skipped by -m "not network"


@pytest.fixture
def embedded(broker_kind):
    broker = EmbeddedBroker()
    assert broker.kind == broker_kind
    endpoint = broker.start()
    yield endpoint.url
    broker.stop()


# Whole games of each kind share the two brokers between them (Trut's on both): Truco's
# on amqtt, Deluxe's on Mosquitto, so the suite keeps within its time.
@pytest.mark.parametrize("broker_kind", ["amqtt"], indirect=True)
def test_four_processes_play_a_whole_truco_match_over_the_embedded_broker(embedded, tmp_path):
    # one chico (a match is three): every step of a hand, a third of the time
    truco = ["--game", "truco"]
    _, procs = start_table(
        embedded, 4, tmp_path, "net-truco", extra=truco, host_extra=["--option", "chicos=1"]
    )
    results = [result_of(p) for p in procs]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    assert sorted(s for r in results for s in r["seats"]) == list(range(4))
    assert results[0]["winner"] in (0, 1) and results[0]["hands"] >= 2
