"""The runtime's part of 7.7: votes are checked against the voter's seated key when
they arrive; a newcomer process offers, the partner's process coordinates, and the
newcomer plays the seat. In-process, over a recording link (no broker)."""

from __future__ import annotations

import asyncio
import random

from trutnet.bots import make_bot
from trutnet.crypto import Identity, SeededRandom
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.memory_table import new_memory_table, step
from trutnet.net import topics
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.replace import make_vote, parse_vote
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.options import Options
from trutnet.runtime.table_runtime import TableRuntime


class RecordingLink:
    """What TableRuntime needs of a link, recording what it publishes."""

    def __init__(self) -> None:
        self.on_connect = None
        self.will = None
        self.subscriptions: list[str] = []
        self._endpoints = None
        self.published: list[tuple[str, bytes]] = []

    def endpoints(self) -> list:
        return []

    def use_endpoints(self, endpoints) -> None:
        self._endpoints = endpoints

    async def publish(self, topic: str, payload: bytes, retain: bool = False, wait=None) -> bool:
        self.published.append((topic, payload))
        return True

    def send(self, topic: str, payload: bytes, wait=None) -> None:
        self.published.append((topic, payload))


def deep_entry(table_id):
    """An entry-shaped message whose body nests 900 levels (canonical re-encoding of
    such a body once raised RecursionError)."""
    envelope = (
        b"\x98\x01\xc4\x10"
        + table_id
        + b"\x00\xc4\x20"
        + bytes(32)
        + b"\x00\xc4\x20"
        + bytes(32)
        + b"\xa4vote\x81\xa1a"
        + b"\x91" * 900
        + b"\xc0"
    )
    return b"\x92" + envelope + b"\xc4\x40" + bytes(64)


def stalled_table():
    table = new_memory_table(TrutGame(TrutConfig(4)), "runtime-replace", ["heuristic"] * 4)
    while not (
        table.peers[0].replica.phase == "game" and table.peers[0].replica.expected()[0] == 1
    ):
        assert step(table)
    table.kill(1)
    return table


def runtime_for(table, seat, options=None):
    peer = table.peers[seat]
    local = LocalSeat(peer.identity, f"p{seat}", make_bot("trut", "heuristic", random.Random(seat)))
    local.peer = peer
    events = []
    runtime = TableRuntime(
        peer.replica.table_id,
        RecordingLink(),
        [local],
        options,
        on_event=lambda kind, data: events.append((kind, data)),
    )
    return runtime, events


def test_forged_votes_are_dropped_and_never_overwrite_a_real_one():
    table = stalled_table()
    runtime, _ = runtime_for(table, 3)
    replica = table.peers[3].replica
    head, hand = replica.log.head, replica.state.hand_number
    outsider = Identity.generate(SeededRandom("outsider"))
    real = table.peers[0].vote(1)

    async def scenario():
        forged = [
            make_vote(outsider, replica.table_id, 0, head, 1, hand, None),  # not seat 0's key
            make_vote(table.peers[2].identity, replica.table_id, 0, head, 1, hand, None),
            b"\x91" * 600,  # deep nesting
            deep_entry(replica.table_id),
            b"\xff" * 5000,
            b"",
        ]
        await runtime._on_vote(forged[0])
        await runtime._on_vote(real)
        for wire in forged:
            await runtime._on_vote(wire)
        return forged

    forged = asyncio.run(scenario())
    assert runtime.replacement.votes == {(1, head): {0: real}}
    assert len(runtime.stats.rejected) == len(forged) + 1
    assert all(w not in runtime.replacement.votes[(1, head)].values() for w in forged)


def test_a_newcomer_process_takes_the_seat_when_the_partner_agrees():
    table = stalled_table()
    partner, partner_events = runtime_for(table, 3, Options(takers=("any",)))
    opponent, _ = runtime_for(table, 0)
    # A newcomer process (holds no seat) follows the log, then offers.
    identity = Identity.generate(SeededRandom("nia"))
    seat = LocalSeat(
        identity, "Nia", make_bot("trut", "heuristic", random.Random(5)), rng=SeededRandom(9)
    )
    newcomer = TableRuntime(table.peers[0].replica.table_id, RecordingLink(), [seat])
    for wire in table.log:
        newcomer.ingest(wire)
    assert seat.peer is not None and not seat.peer.seated()
    assert newcomer.local_seats() == set()

    async def scenario():
        await newcomer._stalled(1, waited=1000.0)  # offers (a team game)
        offers = [p for t, p in newcomer.link.published if t == topics.vote(newcomer.table_id)]
        assert len(offers) == 1 and parse_entry(offers[0]).type == "offer"
        for runtime in (partner, opponent):
            await runtime._on_vote(offers[0])
        await opponent._stalled(1, waited=150.0)  # an opponent never picks the taker itself
        assert opponent.link.published == []
        await partner._stalled(1, waited=150.0)  # the partner accepts the newcomer
        chosen = [p for t, p in partner.link.published if t == topics.vote(partner.table_id)]
        assert len(chosen) == 1
        await opponent._on_vote(chosen[0])
        await opponent._stalled(1, waited=150.0)  # and follows the partner's choice
        votes = [p for t, p in opponent.link.published if t == topics.vote(opponent.table_id)]
        await partner._on_vote(votes[0])  # a quorum: the partner writes the void
        return [p for t, p in partner.link.published if t == topics.log(partner.table_id)]

    written = asyncio.run(scenario())
    assert len(written) == 1 and parse_entry(written[0]).type == "void"
    kinds = [k for k, _ in partner_events]
    assert "vote" in kinds and "replaced" in kinds
    replaced = dict(partner_events)["replaced"]
    assert replaced["voters"] == [0, 3] and replaced["by"] == "Nia"
    newcomer.ingest(written[0])
    assert seat.peer.seated() and seat.peer.seat == 1 and newcomer.local_seats() == {1}
    table.broadcast(written[0])
    table.peers[1] = seat.peer
    table.down.discard(1)
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))
    while step(table):
        pass
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert len({p.replica.state.state_hash() for p in table.peers}) == 1


def votes_then_written(first, second, stalled: int) -> list[bytes]:
    """``second`` votes on ``stalled``, ``first`` (the coordinator) takes that vote
    and votes too: what ``first`` then writes to the log."""

    async def scenario():
        await second._stalled(stalled, waited=1000.0)
        vote = next(p for t, p in second.link.published if t == topics.vote(second.table_id))
        await first._on_vote(vote)
        await first._stalled(stalled, waited=1000.0)
        return [p for t, p in first.link.published if t == topics.log(first.table_id)]

    return asyncio.run(scenario())


def test_without_partners_the_others_abandon():
    table = new_memory_table(TrutGame(TrutConfig(3)), "runtime-abandon", ["heuristic"] * 3)
    while not (
        table.peers[0].replica.phase == "game" and table.peers[0].replica.expected()[0] == 2
    ):
        assert step(table)
    first, events = runtime_for(table, 0)
    second, _ = runtime_for(table, 1)

    written = votes_then_written(first, second, 2)
    assert [parse_entry(w).type for w in written] == ["abandon"]
    assert dict(events)["abandoned"]["voters"] == [0, 1]
    assert first.done() and first.waiting_for() == {1}  # the abandoned seat is not awaited


def test_a_seat_that_never_signs_the_end_is_closed_out_and_the_winner_stands():
    """7.7: the game is over and seat 2 never signs its result; the others vote, the
    coordinator writes the ``abandon`` that closes the game, and its winner stands: the
    seat result names it, and nobody waits for seat 2 any more."""
    from trutnet.games.trut.rules import StartPosition
    from trutnet.runtime.seat_process import _result

    near_the_end = StartPosition((6, 6, 6), (2, 2, 2), 0)  # one hand from a winner
    game = TrutGame(TrutConfig(3, start=near_the_end))
    table = new_memory_table(game, "runtime-close", ["heuristic"] * 3)
    while not (
        table.peers[0].replica.phase == "result" and table.peers[0].replica.expected()[0] == 2
    ):
        assert step(table)
    winner = table.peers[0].replica.state.winning_team()
    assert winner is not None
    first, events = runtime_for(table, 0)
    second, _ = runtime_for(table, 1)

    written = votes_then_written(first, second, 2)
    assert [parse_entry(w).type for w in written] == ["abandon"]
    assert dict(events)["closed"]["voters"] == [0, 1]
    assert first.done() and 2 not in first.waiting_for()
    assert _result(first).winner == winner and first.replica.abandoned is None


def test_a_partner_accepts_no_newcomer_by_default_and_the_game_is_abandoned():
    """An opponent's sockpuppet offers; the stalled seat's partner does not accept
    strangers unless told to (``--accept-taker``): after twice the void timeout the
    others abandon instead."""
    table = stalled_table()
    partner, events = runtime_for(table, 3)  # default Options: takers=()
    opponent, _ = runtime_for(table, 0)
    seat = LocalSeat(
        Identity.generate(SeededRandom("puppet")),
        "Puppet",
        make_bot("trut", "random", random.Random(1)),
    )
    puppet = TableRuntime(table.peers[0].replica.table_id, RecordingLink(), [seat])
    for wire in table.log:
        puppet.ingest(wire)

    async def scenario():
        await puppet._stalled(1, waited=1000.0)
        offer = puppet.link.published[0][1]
        for runtime in (partner, opponent):
            await runtime._on_vote(offer)
        await partner._stalled(1, waited=150.0)
        await opponent._stalled(1, waited=150.0)
        assert partner.link.published == opponent.link.published == []
        await opponent._stalled(1, waited=1000.0)  # twice the void timeout: abandon
        await partner._on_vote(opponent.link.published[0][1])
        await partner._stalled(1, waited=1000.0)
        return [p for t, p in partner.link.published if t == topics.log(partner.table_id)]

    assert [parse_entry(w).type for w in asyncio.run(scenario())] == ["abandon"]
    assert dict(events)["abandoned"]["voters"] == [0, 3]


def test_a_joiner_left_out_of_one_open_still_takes_its_seat_from_the_real_one():
    """A joiner that an ``open`` does not name follows that table as a newcomer; an
    ``open`` that does name it (the real one, arriving later) still seats it."""
    from trutnet.crypto import SeededRandom as Rng
    from trutnet.protocol.table import TablePeer

    table = new_memory_table(TrutGame(TrutConfig(2)), "left-out", ["heuristic"] * 2)
    table_id = table.peers[0].replica.table_id
    joiner = LocalSeat(table.identities[1], "p1", None, rng=Rng("j"))
    runtime = TableRuntime(table_id, RecordingLink(), [joiner])
    from trutnet.protocol.envelope import GENESIS, sign_entry

    real = parse_entry(table.log[0])
    other = Identity.generate(Rng("other"))
    stranger = Identity.generate(Rng("stranger")).public
    forged = sign_entry(other, table=table_id, seat=0, seq=0, prev=GENESIS, type="open",
                        body={**real.body, "seats": [other.public, stranger]})  # fmt: skip
    runtime.ingest(forged.wire)  # not the table's host (7.10): refused, nothing taken
    assert joiner.peer is None and runtime.stats.dropped == 1
    host = TablePeer(table.identities[0], 0, table_id, Rng("h"))
    nonce = real.body["nonce"]
    runtime.ingest(host.open_table(TrutGame(TrutConfig(2)), [table.identities[0].public, stranger],
                                   nonce=nonce))  # fmt: skip
    assert joiner.peer is not None and joiner.peer.standby()  # an open without it: follows
    runtime.ingest(table.log[0])  # the real open
    assert joiner.peer.seated() and joiner.peer.seat == 1 and runtime.local_seats() == {1}


def test_a_partner_votes_only_for_the_newcomer_it_named():
    """``--accept-taker FINGERPRINT`` (any case): of three offers, the partner votes for
    the one it named, not the lowest offer id."""
    table = stalled_table()
    offers = []
    for name in ("A", "B", "C"):
        seat = LocalSeat(
            Identity.generate(SeededRandom(name)),
            name,
            make_bot("trut", "heuristic", random.Random(1)),
        )
        runtime = TableRuntime(table.peers[0].replica.table_id, RecordingLink(), [seat])
        for wire in table.log:
            runtime.ingest(wire)
        asyncio.run(runtime._stalled(1, waited=1000.0))
        offers.append((seat.identity, runtime.link.published[0][1]))
    named = max(offers, key=lambda o: parse_entry(o[1]).id)  # never the lowest id
    partner, _ = runtime_for(table, 3, Options(takers=(named[0].fingerprint.lower(),)))

    async def scenario():
        for _, offer in offers:
            await partner._on_vote(offer)
        await partner._stalled(1, waited=150.0)

    asyncio.run(scenario())
    replica = table.peers[0].replica
    ((_topic, wire),) = partner.link.published
    assert parse_vote(wire, replica.table_id, replica.seats).taker == parse_entry(named[1]).id
