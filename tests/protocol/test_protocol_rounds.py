"""Unordered rounds (docs/protocol.md 7.2): the entries of a round that needs no seat
order (keys, a joint draw's commits and reveals, share rounds, checkpoints, results)
name the head before the round and come in any order; every replica builds the same
log, judges them in seat order, and blames a bad one on its author whatever came
first."""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections.abc import Callable

import pytest

from tests.tables import new_memory_table, play_memory_game
from trutnet.bots import make_bot
from trutnet.crypto import SeededRandom
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.memory_table import MemoryTable, step
from trutnet.protocol.checked import CheckedProofs
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.log import round_digest
from trutnet.protocol.table import Rejected, TablePeer, TableReplica


def run_to_round(table: MemoryTable, kind: str, nth: int = 1) -> None:
    """Step until the ``nth`` round of ``kind`` is open at every peer, none of it written."""
    seen = 0
    for _ in range(20_000):
        replica = table.peers[0].replica
        if replica.round is not None and replica.round.kind == kind and not replica.held():
            seen += 1
            if seen == nth:
                return
            while replica.round is not None and replica.round.kind == kind:
                assert step(table)
            continue
        assert step(table), "the table went idle first"
    raise AssertionError(f"no {kind} round")


def write_round(table: MemoryTable) -> list[bytes]:
    """Each seat of the round in progress writes its entry (to its own replica only)."""
    replica = table.peers[0].replica
    assert replica.round is not None
    return [table.peers[s].next_automatic() for s in replica.round.seats]


def follower(table: MemoryTable, checked: CheckedProofs | None = None) -> TableReplica:
    """A replica with no seat that has the log up to the round in progress."""
    source = table.peers[0].replica
    replica = TableReplica(source.table_id, checked)
    for entry in source.log.entries:
        replica.receive(entry.wire)
    return replica


def followers(table: MemoryTable, wires: list[bytes] | None = None) -> Callable[[], TableReplica]:
    """Fresh followers (:func:`follower`; or replicas fed ``wires``) of the table as it
    is now, one per call, for a test that replays a round in every order: the log
    before the round is the same for each, so its proofs and signatures are checked
    once, by the first, and each one starts from a copy of what that first one found
    checked (as the replicas of one process share them, :class:`CheckedProofs`). The
    round's own entries are checked by each follower afresh: none of them is in the
    copy."""
    source = table.peers[0].replica
    log = [e.wire for e in source.log.entries] if wires is None else list(wires)

    def fed(checked: CheckedProofs) -> TableReplica:
        replica = TableReplica(source.table_id, checked)
        for wire in log:
            replica.receive(wire)
        return replica

    prefix = CheckedProofs()
    fed(prefix)

    def make() -> TableReplica:
        checked = copy.copy(prefix)
        checked._digests, checked._decoded = prefix._digests.copy(), prefix._decoded.copy()
        return fed(checked)

    return make


def forge(peer: TablePeer, type: str, body: dict, prev: bytes | None = None) -> bytes:
    """An entry signed by ``peer`` at its next sequence number, naming the log's head."""
    log = peer.replica.log
    return sign_entry(
        peer.identity,
        table=peer.replica.table_id,
        seat=peer.seat,
        seq=log.next_seq(peer.identity.public),
        prev=log.head if prev is None else prev,
        type=type,
        body=body,
    ).wire


# ------------------------------------------------- any order, one log (7.2)


@pytest.mark.parametrize(
    ("players", "kind", "nth"),
    [(4, "keys", 1), (4, "commit", 1), (4, "reveal", 1), (4, "shares", 1), (4, "checkpoint", 1)],
)
def test_every_order_of_a_round_builds_the_same_log(players, kind, nth):
    """Whatever order a round's entries come in, every replica ends with the same log,
    journal, head and state hash; the round enters the log in seat order, each entry
    naming the head before the round, and the head becomes the round's digest."""
    table = new_memory_table(TrutGame(TrutConfig(players)), f"order/{kind}", ["heuristic"] * 4)
    run_to_round(table, kind, nth)
    base = table.peers[0].replica.log.head
    wires = write_round(table)
    assert {parse_entry(w).prev for w in wires} == {base}
    outcomes = set()
    fresh = followers(table)
    for order in itertools.permutations(wires):
        replica = fresh()
        before = len(replica.log)
        for wire in order:
            assert replica.receive(wire) is not None
            assert replica.receive(wire) is None  # a duplicate is harmless
        assert replica.round is None or replica.round.kind != kind
        added = replica.log.entries[before : before + len(wires)]
        assert [e.wire for e in added] == wires  # in seat order
        outcomes.add(
            (
                tuple(e.wire for e in replica.log.entries),
                tuple(replica.journal),
                replica.log.head,
                replica.state.state_hash(),
                replica.phase,
            )
        )
        assert replica.log.index_of(round_digest([e.id for e in added])) == before + len(wires) - 1
    assert len(outcomes) == 1
    # The seats' own replicas agree, whichever entries they got first.
    for seat, peer in enumerate(table.peers):
        for wire in reversed(wires):
            if parse_entry(wire).seat != seat:
                peer.receive(wire)
    assert {p.replica.log.head for p in table.peers} == {next(iter(outcomes))[2]}


def play_scrambled(game, seed: str, bots: list[str]) -> MemoryTable:
    """A whole game in which every peer gets the entries of each round in an order of
    its own (a seeded shuffle per peer and per round)."""
    table = new_memory_table(game, seed, bots)
    rng = random.Random(f"scramble/{seed}")
    for _ in range(100_000):
        written = [(p.seat, w) for p in table.peers if (w := p.next_automatic()) is not None]
        if written:
            for peer in table.peers:
                theirs = [w for s, w in written if s != peer.seat]
                rng.shuffle(theirs)
                for wire in theirs:
                    peer.receive(wire)
            table.log.extend(w for _, w in written)
            continue
        deciding = [p for p in table.peers if p.decide()]
        if not deciding:
            return table
        peer = deciding[0]
        action = table.bots[peer.seat].choose(peer.replica.state.observation(peer.seat))
        table.broadcast(peer.act(str(action)))
    raise AssertionError("the game never ended")


@pytest.mark.parametrize(
    ("players", "start"),
    # near the end: a few hands of rounds, scrambled, are what this compares
    [(4, StartPosition((5, 5), (2, 2), 1)), (3, StartPosition((5, 5, 5), (2, 2, 2), 0))],
)
def test_a_whole_game_with_scrambled_rounds_is_the_game_in_seat_order(players, start):
    """Every peer writes its entry of a round as soon as the round starts, and gets the
    others' in an order of its own: every peer ends with the same log, byte for byte
    the log of the same game delivered in seat order."""
    config = TrutConfig(players) if start is None else TrutConfig(players, start=start)
    bots = ["heuristic"] * players
    scrambled = play_scrambled(TrutGame(config), "scrambled", bots)
    plain = play_memory_game(TrutGame(config), "scrambled", bots)
    logs = {tuple(e.wire for e in p.replica.log.entries) for p in scrambled.peers}
    assert len(logs) == 1
    assert next(iter(logs)) == tuple(e.wire for e in plain.peers[0].replica.log.entries)
    assert {p.replica.phase for p in scrambled.peers} == {"done"}
    assert not any(p.replica.blames for p in scrambled.peers)


# ------------------------------------------------------------ refusals


def test_a_reveal_before_every_commit_is_refused_and_blamed():
    """Commit-reveal stays commit-reveal: a reveal names the digest of the whole commit
    round, so none can be written before every commitment is in; one written in the
    commit round is refused and blamed, whatever else came."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "early-reveal", ["heuristic"] * 4)
    run_to_round(table, "commit")
    commits = write_round(table)
    replica = follower(table)
    for wire in (commits[2], commits[0]):  # seats 2 and 0 committed, out of order
        replica.receive(wire)
    seat1 = table.peers[1]
    value = seat1._values[1]
    early = forge(seat1, "reveal", {"value": value})  # seat 1, before its commitment
    with pytest.raises(Rejected) as exc:
        replica.receive(early)
    assert exc.value.rule == "turn" and exc.value.blame.seat == 1 and not exc.value.halt
    seat0 = table.peers[0]  # seat 0 committed: a reveal beside its commitment
    again = sign_entry(
        seat0.identity,
        table=replica.table_id,
        seat=0,
        seq=replica.log.next_seq(seat0.identity.public) + 1,
        prev=replica.log.head,
        type="reveal",
        body={"value": seat0._values[0]},
    ).wire
    with pytest.raises(Rejected) as exc:
        replica.receive(again)
    assert exc.value.blame is not None and exc.value.blame.seat == 0
    # A reveal that names the commits it saw (not the whole round): no such head.
    partial = round_digest([parse_entry(commits[0]).id, parse_entry(commits[2]).id])
    with pytest.raises(Rejected, match="chain"):
        replica.receive(forge(seat1, "reveal", {"value": value}, prev=partial))
    for wire in (commits[3], commits[1]):
        replica.receive(wire)
    assert replica.round.kind == "reveal" and replica.halted is None


def bad_shares(peer: TablePeer) -> bytes:
    """``peer``'s entry of the share round in progress with a proof for another step."""
    replica = peer.replica
    positions = replica.shares.positions_for(peer.seat)
    batch = replica.decks.make(
        peer.elgamal, peer.seat, positions, replica.context("reveal"), SeededRandom("bad")
    )
    return forge(peer, "shares", {"shares": batch.to_bytes()})


@pytest.mark.parametrize("cheats", [(2,), (1, 3)])
def test_a_bad_share_is_blamed_on_its_author_whatever_the_order(cheats):
    """A share batch with a bad proof in the deal round: refused when it comes, and the
    table stops on the lowest bad seat once every lower seat's entry is in, at every
    replica and in every order of arrival, with nothing of the round in the log."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "bad-share", ["heuristic"] * 4)
    run_to_round(table, "shares")
    base = table.peers[0].replica.log.head
    wires = [
        bad_shares(table.peers[s]) if s in cheats else table.peers[s].next_automatic()
        for s in range(4)
    ]
    blamed = set()
    fresh = followers(table)
    for order in itertools.permutations(range(4)):
        replica = fresh()
        length = len(replica.log)
        for seat in order:
            try:
                replica.receive(wires[seat])
            except Rejected as exc:
                assert exc.blame is not None and exc.blame.seat in cheats
                assert exc.blame.evidence == (wires[exc.blame.seat],)
                if exc.halt:
                    break
        assert replica.halted is not None
        blamed.add((replica.halted.seat, replica.halted.rule))
        assert len(replica.log) == length and replica.log.head == base
    assert blamed == {(cheats[0], "share-proof")}


def test_equivocation_inside_a_round_is_detected():
    """Two different keys entries of one seat naming the same head: equivocation, with
    both entries as evidence, whether the round is in progress or already whole. In a
    round in progress it is the seat's fault in the round, counted in seat order like a
    bad entry: refused at once, the table stops once every lower seat's entry is in."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "equivocate", ["heuristic"] * 4)
    run_to_round(table, "keys")
    wires = write_round(table)
    seat2 = table.peers[2]
    replica = seat2.replica
    proof = seat2.elgamal.prove(replica.context("keys"), 2, SeededRandom("other"))
    other = sign_entry(
        seat2.identity,
        table=replica.table_id,
        seat=2,
        seq=parse_entry(wires[2]).seq,
        prev=parse_entry(wires[2]).prev,
        type="keys",
        body={"key": bytes(seat2.elgamal.public), "proof": proof.to_bytes()},
    ).wire
    assert other != wires[2]
    for whole in (False, True):
        follower_ = follower(table)
        for wire in wires if whole else wires[2:3]:
            follower_.receive(wire)
        with pytest.raises(Rejected) as exc:
            follower_.receive(other)
        assert exc.value.rule == "equivocation" and exc.value.halt == whole
        if not whole:
            assert follower_.halted is None
            follower_.receive(wires[0])
            with pytest.raises(Rejected) as exc:
                follower_.receive(wires[1])  # seat 2 comes up to count
            assert exc.value.rule == "equivocation" and exc.value.halt
        assert follower_.halted.seat == 2 and set(follower_.halted.evidence) == {wires[2], other}


@pytest.mark.parametrize("cheat", [0, 1, 2])
def test_a_valid_and_a_bad_entry_of_one_seat_are_blamed_alike_in_every_order(cheat):
    """A seat signs two checkpoints of one round, for one head and one sequence number:
    a true one and one with a wrong state hash. Whatever order the round's entries and
    both of the cheat's come in (all 24), every replica stops on the cheat with the same
    blame record, equivocation, both entries as evidence in the order of their ids
    (7.2): the round may be whole at a replica before the bad one comes, which can then
    only be judged as a second entry; so equivocation wins over the bad checkpoint. A
    replica that met the bad one first and stopped on it records the same blame when
    the true one comes."""
    table = new_memory_table(TrutGame(TrutConfig(3)), "two-checkpoints", ["heuristic"] * 3)
    run_to_round(table, "checkpoint")
    base = table.peers[0].replica.log.head
    wires = write_round(table)
    true = parse_entry(wires[cheat])
    bad = forge(table.peers[cheat], "checkpoint", {**true.body, "state": bytes(32)}, prev=base)
    assert parse_entry(bad).seq == true.seq and bad != true.wire
    records = set()
    fresh = followers(table)
    for order in itertools.permutations([*wires, bad]):
        replica = fresh()
        stops = []
        for wire in order:
            try:
                replica.receive(wire)
            except Rejected as exc:
                if exc.halt:
                    stops.append(exc.blame.rule)
        assert replica.halted is not None, f"no stop for {order}"
        assert stops and stops[-1] == "equivocation", stops
        records.add(
            (
                json.dumps(replica.halted.to_dict()),
                tuple(json.dumps(b.to_dict()) for b in replica.blames),
            )
        )
    assert len(records) == 1, records
    halted = json.loads(next(iter(records))[0])
    assert halted["seat"] == cheat and halted["rule"] == "equivocation"
    pair = sorted((true, parse_entry(bad)), key=lambda e: e.id)
    assert halted["evidence"] == [e.wire.hex() for e in pair]


def test_an_entry_of_a_round_for_another_head_is_refused():
    """A round's entry names the head before the round: one naming any other head (an
    older entry, a made-up round) is refused and held nowhere; the round goes on."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "wrong-base", ["heuristic"] * 4)
    run_to_round(table, "checkpoint")
    replica = follower(table)
    peer = table.peers[1]
    state = peer.replica.state
    body = {"hand": state.round_number(), "state": bytes.fromhex(state.state_hash())}
    for prev in (replica.log.entries[-2].id, b"\x07" * 32):
        with pytest.raises(Rejected, match="chain") as exc:
            replica.receive(forge(peer, "checkpoint", body, prev=prev))
        assert exc.value.blame is None and not exc.value.halt
    assert replica.held() == [] and replica.halted is None
    for wire in write_round(table):
        replica.receive(wire)
    assert replica.round is None or replica.round.kind != "checkpoint"


def test_a_seat_back_from_a_crash_keeps_its_entry_of_the_round_in_progress(tmp_path):
    """A seat's entry of an unordered round is in no journal until the round is whole:
    it is kept with the seat's secrets before it leaves, so a seat that crashes then
    comes back holds it again and never writes another one (which would equivocate)."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "held", ["heuristic"] * 4)
    table.attach_stores(tmp_path)
    run_to_round(table, "shares")
    wire = table.peers[1].next_automatic()
    table._persist(1)
    secrets = table.stores[1].load_secrets()
    assert secrets["held"] == [wire.hex()]
    back = TablePeer.restore(
        table.identities[1], secrets, table.stores[1].entries(), SeededRandom("again")
    )
    assert back.replica.held() == [wire] and back.next_automatic() is None
    table.peers[1] = back
    table.broadcast(wire)
    while step(table):
        pass
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert len({p.replica.log.head for p in table.peers}) == 1
    assert not any(p.replica.blames for p in table.peers)


# ---------------------------------------- a stalled seat in a round (7.7, 7.8)


def test_a_void_cuts_short_a_round_that_waits_for_a_seat():
    """A checkpoint round waits for seat 1 alone: its partner, the coordinator, whose
    own checkpoint is in the round, writes the void at the round's head (no
    equivocation); a replica that got seat 1's late checkpoint, and so the whole
    round, forks back to the void (7.8), and both logs agree."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "void-round", ["heuristic"] * 4)
    run_to_round(table, "checkpoint", 2)
    wires = write_round(table)
    base = table.peers[0].replica.log.head
    behind = follower(table)  # it will get seat 1's late checkpoint too
    for seat, peer in enumerate(table.peers):
        for s, wire in enumerate(wires):
            if s not in (seat, 1):
                peer.receive(wire)
    assert table.peers[0].replica.waiting() == (1,)
    from tests.protocol.test_protocol_replace import newcomer

    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = [table.peers[0].vote(1, offer_id), table.peers[3].vote(1, offer_id)]
    void = table.peers[3].replace(1, votes, offer)
    assert parse_entry(void).prev == base
    assert parse_entry(void).seq == parse_entry(wires[3]).seq  # beside its own checkpoint
    for wire in wires:
        behind.receive(wire)
    assert behind.round is None or behind.round.kind != "checkpoint"
    behind.receive(void)
    assert behind.forks == 1 and behind.halted is None
    for seat in (0, 2):
        table.peers[seat].receive(void)
    logs = {tuple(e.wire for e in r.log.entries) for r in (behind, table.peers[0].replica)}
    assert len(logs) == 1 and next(iter(logs))[-1] == void
    # Seat 3's checkpoint of the cut round is no equivocation of its void.
    with pytest.raises(Rejected) as exc:
        table.peers[0].receive(wires[3])
    assert exc.value.blame is None and not exc.value.halt
    table.peers[1] = taker
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))
    taker.receive(void)
    while step(table):
        pass
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert len({p.replica.log.head for p in table.peers}) == 1
    assert all(p.replica.halted is None for p in table.peers)


def test_a_seat_does_not_check_its_own_shuffle_again_every_other_replica_does(monkeypatch):
    """A shuffle proof costs as much to check as to make: the seat that made it applies
    its own shuffle unchecked; every other replica checks it, and so does an audit."""
    import trutnet.protocol.replica as replica_module

    checked: list[int] = []
    real = replica_module.verify_shuffle

    def counting(deck, result, proof, joint, context, keys):
        checked.append(int(context.step.rsplit("/", 1)[1]))
        return real(deck, result, proof, joint, context, keys)

    monkeypatch.setattr(replica_module, "verify_shuffle", counting)
    table = new_memory_table(TrutGame(TrutConfig(4)), "own-shuffle", ["heuristic"] * 4, together=())
    # together=(): four processes, each replica checks for itself
    run_to_round(table, "shares")
    assert sorted(checked) == [s for s in range(4) for _ in range(3)]
    checked.clear()
    follower(table)
    assert checked == [0, 1, 2, 3]


def test_an_entry_the_replica_holds_is_not_read_again(monkeypatch):
    """A duplicate of an entry in the log (a message delivered twice, a sync answer
    that overlaps) is dropped before it is parsed or its signature looked at."""
    from trutnet.protocol import replica as replica_module

    table = new_memory_table(TrutGame(TrutConfig(2)), "held", ["heuristic"] * 2)
    run_to_round(table, "shares", 1)
    replica = table.peers[0].replica
    held = [e.wire for e in replica.log.entries[-3:]]
    parsed = []
    real = replica_module.parse_entry
    monkeypatch.setattr(
        replica_module, "parse_entry", lambda *args: parsed.append(args[0]) or real(*args)
    )
    length = len(replica.log)
    assert all(replica.receive(wire) is None for wire in held)
    assert parsed == [] and len(replica.log) == length
