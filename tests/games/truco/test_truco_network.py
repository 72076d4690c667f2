"""Truco over the real broker: four peer processes (a host and three joiners, each
with its heuristic bot) play a whole match with full crypto, and agree on it; their
bots sign to their partners (K15), and a spectator process watches: each sign reaches
the partner and the opponents whose draw caught it, and nobody else."""

from __future__ import annotations

import pytest

from tests.network_helpers import result_of, spawn, start_table
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
    table, procs = start_table(
        embedded, 4, tmp_path, "net-truco", extra=truco, host_extra=["--option", "chicos=1"]
    )
    eve = spawn(["watch", "--broker", embedded, "--table", table, "--name", "Eve", "--json"])
    results = [result_of(p) for p in procs]
    watched = result_of(eve)
    assert len({r["state_hash"] for r in [*results, watched]}) == 1
    assert all(r["halted"] is None for r in results)
    assert sorted(s for r in results for s in r["seats"]) == list(range(4))
    assert results[0]["winner"] in (0, 1) and results[0]["hands"] >= 2
    signs_reach_partners_and_catchers_only([*results, watched])


def signs_reach_partners_and_catchers_only(results: list[dict]) -> None:
    """Every player saw the same signs and the same draws on them (the spectator, the
    ones made once it watched); a seat knows a sign's card if it made it, is the
    signer's partner or caught it (then it was shown it), and otherwise not; the
    spectator never; all who know it know the same card."""
    views = []
    for result in results:
        made, draws, cards = set(), {}, {}
        for event in result["events"]:
            if event["event"] != "sign":
                continue
            key = (event["seat"], event["number"])
            made.add(key) if event["what"] == "made" else None
            if event["what"] in ("caught", "missed"):
                draws.setdefault(key, {})[event["by"]] = event["what"] == "caught"
            if event["card"] is not None:
                cards.setdefault(key, set()).add(event["card"])
        views.append((result["seats"], made, draws, cards))
    made, draws = views[0][1], views[0][2]
    assert {seat for seat, _ in made} == {0, 1, 2, 3}  # every bot signed
    for _seats, other_made, other_draws, _cards in views[:4]:  # the players saw them all
        assert other_made == made and other_draws == draws
    # the spectator saw the signs made once it was there (none is synced, like the chat)
    _, watched, watched_draws, _cards = views[4]
    assert watched and watched <= made
    for key, drawn in watched_draws.items():
        assert drawn.items() <= draws[key].items()
    caught = {key: {w for w, c in d.items() if c} for key, d in draws.items()}
    assert all(set(d) == {(key[0] + 1) % 4, (key[0] + 3) % 4} for key, d in draws.items())
    assert any(caught.values())  # at 1/4 a draw, some sign was caught
    for seats, seen, _draws, cards in views:
        for key in seen:
            signer = key[0]
            may_know = bool(seats) and (seats[0] % 2 == signer % 2 or seats[0] in caught[key])
            assert (key in cards) == may_know, (seats, key, caught[key])
    for key in made:  # one card, whoever was shown it
        known = [cards[key] for *_, cards in views if key in cards]
        assert len(set().union(*known)) == 1
