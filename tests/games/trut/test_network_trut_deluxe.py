"""Trut Deluxe between OS processes over the embedded broker [T23-T47]: a host that
opens a Deluxe table (`host --deluxe`) and a joiner play a whole game, agree on every
hash, and the host's transcript passes the audit (`trutnet verify`)."""

from __future__ import annotations

import pytest

from tests.network_helpers import EARLY, result_of, spawn
from trutnet.net.broker import EmbeddedBroker
from trutnet.protocol.audit import audit
from trutnet.protocol.envelope import parse_entry
from trutnet.runtime.events import announced_table
from trutnet.store import PeerStore

pytestmark = pytest.mark.network  # peers, a broker: skipped by -m "not network"


@pytest.fixture
def embedded(broker_kind):
    broker = EmbeddedBroker()
    assert broker.kind == broker_kind
    endpoint = broker.start()
    yield endpoint.url
    broker.stop()


@pytest.mark.parametrize("broker_kind", ["mosquitto"], indirect=True)  # Truco's: amqtt
def test_host_and_join_play_a_deluxe_game_over_the_embedded_broker(embedded, tmp_path):
    common = ["--seed", "net-deluxe", "--json", "--broker", embedded, "--bot", "heuristic"]
    host = spawn(
        ["host", "--players", "2", "--deluxe", "--bonus-cards", "--no-announce",
         "--store", str(tmp_path / "h"), *common]
    )  # fmt: skip
    table, early = announced_table(host)
    EARLY[host.pid] = early
    guest = spawn(
        ["join", "--table", table, "--name", "guest", "--store", str(tmp_path / "g"), *common]
    )
    results = [result_of(p) for p in (host, guest)]
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    assert results[0]["hands"] >= 2  # the talon carried a deck into a second hand (T26)
    wires = PeerStore(tmp_path / "h" / "seat-0").entries()
    opened = next(parse_entry(w) for w in wires if parse_entry(w).type == "open")
    assert opened.body["config"]["deluxe"] and opened.body["config"]["bonus_cards"]
    report = audit(bytes.fromhex(table), wires)
    assert report.ok
