"""Replacing or abandoning a stalled seat (7.7, 7.8): no seat can take another seat,
a newcomer can take one with its partners' agreement, a replaced seat that comes back
follows the game; and a seat's own bad decision is refused before it is signed."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from tests.tables import new_memory_table
from trutnet.bots import make_bot
from trutnet.crypto import Identity, SeededRandom
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.memory_table import step
from trutnet.protocol.audit import audit
from trutnet.protocol.envelope import parse_entry, sign_entry
from trutnet.protocol.replace import (
    VoteError,
    coordinator,
    make_vote,
    parse_vote,
    pick_quorum,
)
from trutnet.protocol.table import LocalError, Rejected, TablePeer
from trutnet.store import save_transcript


def verify_output(tmp_path, replica):
    """What ``trutnet verify`` prints for ``replica``'s log (its wrapped lines joined)."""
    path = tmp_path / "game.json"
    save_transcript(path, replica.table_id, [e.wire for e in replica.log.entries])
    done = subprocess.run(
        [sys.executable, "-m", "trutnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= 80 for line in done.stdout.splitlines())  # wrapped, indented
    return done.stdout.replace("\n    ", " ")  # each wrapped line whole again


def run_to(table, predicate, limit=20_000):
    for _ in range(limit):
        if predicate(table):
            return
        assert step(table), "the table went idle first"
    raise AssertionError("never reached")


def waits_for(seat, phase=None, after=0):
    def predicate(table):
        replica = next(p for i, p in enumerate(table.peers) if i not in table.down).replica
        expected = replica.expected()
        return (
            expected is not None
            and expected[0] == seat
            and len(replica.log) > after
            and (phase is None or replica.phase == phase)
        )

    return predicate


def newcomer(table, seed="newcomer"):
    """A process that holds no seat: it follows the log from any peer's copy."""
    donor = table.peers[0].replica
    peer = TablePeer(Identity.generate(SeededRandom(seed)), 0, donor.table_id, SeededRandom(seed))
    peer.catch_up([e.wire for e in donor.log.entries])
    assert not peer.seated() and not peer.replaced()
    return peer


def deliver(table, wire, seats):
    for seat in seats:
        table.peers[seat].receive(wire)


def forge_as(peer, type, body):
    log = peer.replica.log
    return sign_entry(
        peer.identity,
        table=peer.replica.table_id,
        seat=peer.seat,
        seq=log.next_seq(peer.identity.public),
        prev=log.head,
        type=type,
        body=body,
    ).wire


# ------------------------------------------------------- 2 players: abandon only


def test_2p_a_seat_alone_cannot_take_the_other_seat_it_can_only_abandon(tmp_path):
    """Issue reproduction: seat 0 voided seat 1 after 8 entries and read its hand."""
    table = new_memory_table(TrutGame(TrutConfig(2)), "two", ["heuristic"] * 2)
    run_to(table, waits_for(1, after=8))
    table.kill(1)
    me = table.peers[0]
    hidden = set(table.peers[1].replica.state.holdings[1]) - set(me.replica.state.known)
    # Seat 0 cannot offer for a seat (it is seated), nor vote for a sockpuppet's offer:
    # a seat without partners is never replaced.
    with pytest.raises(LocalError, match="seated"):
        me.offer(1, "Mallory")
    puppet = newcomer(table, "puppet")
    with pytest.raises(LocalError, match="partners"):
        puppet.offer(1, "Puppet")
    puppet.seat = 1  # sign an offer by hand, bypassing the local check
    from trutnet.protocol.replace import make_offer

    offer = make_offer(
        puppet.identity,
        puppet.elgamal,
        me.replica.table_id,
        1,
        me.replica.log.head,
        me.replica.state.hand_number,
        "Puppet",
        SeededRandom("p"),
    )
    taker = parse_entry(offer).id
    vote = me.vote(1, taker)
    with pytest.raises(VoteError, match=r"partners"):
        me.replace(1, [vote], offer)
    forged = forge_as(me, "void", {"seat": 1, "votes": [vote], "offer": offer})
    for peer in (table.peers[1], newcomer(table, "watcher")):  # every other replica refuses it
        with pytest.raises(Rejected, match="partners") as exc:
            peer.receive(forged)
        assert exc.value.blame.seat == 0  # signed by the coordinator: the table stops
    with pytest.raises(Rejected, match="body fields"):  # the old body (keys made by seat 0)
        newcomer(table, "watcher2").receive(
            forge_as(
                me,
                "void",
                {
                    "seat": 1,
                    "votes": [vote],
                    "identity": bytes(32),
                    "elgamal": bytes(33),
                    "proof": bytes(64),
                    "name": "x",
                },
            )
        )
    # The abandon path: seat 0's vote to abandon is a quorum of the other seats.
    table = new_memory_table(TrutGame(TrutConfig(2)), "two", ["heuristic"] * 2)
    run_to(table, waits_for(1, after=8))
    table.kill(1)
    me = table.peers[0]
    wire = me.abandon(1, [me.vote(1)])
    table.broadcast(wire)
    replica = me.replica
    assert replica.phase == "done" and replica.state.winner is None
    assert replica.abandoned.seat == 1 and replica.abandoned.voters == (0,)
    assert replica.blames[-1].seat == 1 and replica.blames[-1].rule == "stalled"
    assert set(replica.state.known) & hidden == set()  # seat 0 never saw seat 1's cards
    report = audit(replica.table_id, [e.wire for e in replica.log.entries])
    assert report.ok and report.replica.abandoned == replica.abandoned
    out = verify_output(tmp_path, replica)
    assert "game abandoned, no winner: the table waited for seat 1 (blamed)" in out
    assert "voted by seats 0, written by seat 0" in out and "OK: the transcript is valid" in out
    # The stalled seat comes back: its late entry is refused, it follows the abandon.
    back = table.peers[1]
    late = back.outbox() or ([back.act(_any_legal(back))] if back.decide() else [])
    assert late
    with pytest.raises(Rejected):
        me.receive(late[0])
    back.receive(wire)
    assert back.replica.phase == "done" and back.replica.log.head == replica.log.head


def _any_legal(peer):
    state = peer.replica.state
    return str(state.legal_actions(peer.seat)[0])


def test_3p_abandon_needs_both_other_seats():
    table = new_memory_table(TrutGame(TrutConfig(3)), "three", ["heuristic"] * 3)
    run_to(table, waits_for(2, "game"))
    table.kill(2)
    chief = table.peers[coordinator(2, table.peers[0].replica.state.team_of)]
    assert chief.seat == 0
    with pytest.raises(VoteError, match="needed"):
        chief.abandon(2, [chief.vote(2)])
    table.broadcast(chief.abandon(2, [chief.vote(2), table.peers[1].vote(2)]))
    assert table.peers[1].replica.abandoned.voters == (0, 1)


# ------------------------------------------------ 4 players: partners must agree


def test_4p_the_two_opponents_alone_cannot_replace_a_seat():
    """Issue reproduction: seats 0 and 2 voided seat 1 and the coordinator knew its hand."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "four", ["heuristic"] * 4)
    run_to(table, waits_for(1, "shuffle"))
    table.kill(1)
    team_of = table.peers[0].replica.state.team_of
    assert coordinator(1, team_of) == 3  # the partner writes the void, not an opponent
    puppet = newcomer(table, "puppet")
    offer = puppet.offer(1, "Puppet")
    taker = parse_entry(offer).id
    votes = [table.peers[0].vote(1, taker), table.peers[2].vote(1, taker)]
    with pytest.raises(VoteError, match="coordinator"):
        table.peers[0].replace(1, votes, offer)
    with pytest.raises(VoteError, match="partners"):
        table.peers[3].replace(1, votes, offer)  # even the partner cannot use them alone
    abandon_votes = [table.peers[0].vote(1), table.peers[2].vote(1)]
    with pytest.raises(VoteError, match="coordinator"):
        table.peers[0].abandon(1, abandon_votes)
    forged = forge_as(table.peers[0], "void", {"seat": 1, "votes": votes, "offer": offer})
    for seat in (2, 3):
        with pytest.raises(Rejected, match="turn"):
            table.peers[seat].receive(forged)
    forged = forge_as(table.peers[3], "void", {"seat": 1, "votes": votes, "offer": offer})
    with pytest.raises(Rejected, match="partners"):
        table.peers[2].receive(forged)  # a partner signing without its own vote: refused
    assert (
        pick_quorum(
            {0: votes[0], 2: votes[1]},
            {taker: offer},
            puppet.replica.table_id,
            puppet.replica.seats,
            team_of,
            puppet.replica.log.head,
            1,
            puppet.replica.state.hand_number,
        )
        is None
    )


def test_a_newcomer_takes_a_stalled_seat_with_the_partners_vote_and_the_game_ends(tmp_path):
    short = TrutConfig(4, variant="gatinaise")  # first to 5 Longs: the shorter game
    table = new_memory_table(TrutGame(short), "take", ["heuristic"] * 4)
    run_to(table, waits_for(1, "game"))
    table.kill(1)
    head = table.peers[0].replica.log.head
    hand = table.peers[0].replica.state.hand_number
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = {0: table.peers[0].vote(1, offer_id), 3: table.peers[3].vote(1, offer_id)}
    chosen = pick_quorum(
        votes,
        {offer_id: offer},
        taker.replica.table_id,
        taker.replica.seats,
        taker.replica.state.team_of,
        head,
        1,
        hand,
    )
    assert chosen == (offer, list(votes.values()))
    wire = table.peers[3].replace(1, chosen[1], offer)
    taker.receive(wire)
    table.broadcast(wire)
    assert taker.seated() and taker.seat == 1
    for seat in (0, 2, 3):
        replica = table.peers[seat].replica
        change = replica.changes[-1]
        assert (change.kind, change.seat, change.voters, change.coordinator) == (
            "replaced",
            1,
            (0, 3),
            3,
        )
        assert change.taker == taker.identity.public and change.name == "Nia"
        assert change.hand == hand + 1  # the hand is void; the newcomer plays the next one
        assert replica.names[1] == "Nia" and replica.phase == "shuffle"
    old = table.peers[1]
    table.peers[1] = taker
    table.down.discard(1)
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))
    old.receive(wire)  # the old seat hears of it: it is replaced and writes nothing more
    assert old.replaced() and old.next_automatic() is None and not old.decide()
    seen_hidden = False
    while step(table):
        old.receive(table.log[-1])
        for peer in table.peers:  # nobody ever knows a card it was not shown
            state = peer.replica.state
            played = {p for cards, _, _ in state.tricks for _, p, _ in cards}
            played |= {p for _, p, _ in state.trick}
            assert set(state.known) <= set(state.holdings[peer.seat]) | played
        seen_hidden |= bool(taker.replica.state.known)
    assert seen_hidden  # the newcomer does see its own cards
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert len({p.replica.state.state_hash() for p in [*table.peers, old]}) == 1
    report = audit(taker.replica.table_id, [e.wire for e in taker.replica.log.entries])
    assert report.ok and report.replica.changes == taker.replica.changes
    out = verify_output(tmp_path, taker.replica)
    key = taker.identity.fingerprint
    assert "seat 1 replaced: hand void; voted by seats 0, 3, written by seat 3; " in out
    assert f"from hand {hand + 2} the seat is played by newcomer 'Nia' (key {key})" in out


# ---------------------------------------------------------------- forged votes


def test_forged_votes_are_refused():
    table = new_memory_table(TrutGame(TrutConfig(4)), "forged", ["heuristic"] * 4)
    run_to(table, waits_for(1, "game"))
    replica = table.peers[0].replica
    args = (replica.table_id, replica.log.head, 1, replica.state.hand_number, None)
    outsider = Identity.generate(SeededRandom("outsider"))
    for identity, seat in ((outsider, 3), (table.peers[0].identity, 3)):  # not seat 3's key
        with pytest.raises(VoteError, match="not that seat's"):
            parse_vote(
                make_vote(identity, args[0], seat, *args[1:]), replica.table_id, replica.seats
            )
    real = parse_vote(table.peers[3].vote(1), replica.table_id, replica.seats)
    assert real.voter == 3 and real.taker is None
    # Inside a void: a forged vote for seat 0 next to the partner's real one is refused.
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    forged = make_vote(outsider, replica.table_id, 0, replica.log.head, 1, args[3], offer_id)
    partner_vote = table.peers[3].vote(1, offer_id)
    with pytest.raises(VoteError, match="not that seat's"):
        table.peers[3].replace(1, [forged, partner_vote], offer)
    assert len(table.peers[3].replica.log) == len(replica.log)  # nothing was signed
    with pytest.raises(VoteError):
        parse_vote(b"\x93" * 20, replica.table_id, replica.seats)


# ------------------------------------------------- a replaced seat comes back


def test_a_replaced_seat_that_comes_back_is_overridden_and_follows(tmp_path):
    """The stalled seat wrote the entry it owed at the void's position, and a seat that
    did not vote built on it: the void wins everywhere (7.8), nobody is blamed, and
    the seat that comes back (from its files) follows the game as an observer."""
    short = TrutConfig(4, variant="gatinaise")  # first to 5 Longs: the shorter game
    table = new_memory_table(TrutGame(short), "back", ["heuristic"] * 4)
    table.attach_stores(tmp_path)
    run_to(table, waits_for(1, "shuffle"))
    head = table.peers[0].replica.log.head
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = [table.peers[0].vote(1, offer_id), table.peers[3].vote(1, offer_id)]
    void = table.peers[3].replace(1, votes, offer)  # seat 3 applied it; not sent yet
    # Meanwhile seat 1 wakes and writes its shuffle at the same head; seat 2, which
    # did not vote, takes it and shuffles on top; seat 0, a voter, holds.
    late = table.peers[1].next_automatic()
    assert parse_entry(late).prev == head
    for seat in (0, 2):
        table.peers[seat].receive(late)
    on_top = table.peers[2].next_automatic()
    table.peers[0].receive(on_top)
    assert table.peers[0].holding() and table.peers[0].next_automatic() is None
    table._persist(0)
    crashed = TablePeer.restore(
        table.identities[0],
        table.stores[0].load_secrets(),
        table.stores[0].entries(),
        SeededRandom("crash"),
    )
    assert crashed.holding() and crashed.next_automatic() is None  # the hold outlives a crash
    table._persist(2)
    seq_on_top = parse_entry(on_top).seq
    # The void arrives: seats 0 and 2 roll back to the head and apply it.
    for seat in (0, 2):
        table.peers[seat].receive(void)
        assert table.peers[seat].replica.forks == 1
        assert table.peers[seat].replica.log.entries[-1].type == "void"
    taker.receive(void)
    table.log.append(void)
    # The replaced seat comes back from its files: its late entry, then the void.
    table.kill(1)
    table._persist(1)
    back = TablePeer.restore(
        table.identities[1],
        table.stores[1].load_secrets(),
        table.stores[1].entries(),
        SeededRandom("again"),
    )
    assert back.replica.log.head == parse_entry(late).id  # it believes its entry stands
    back.catch_up([e.wire for e in table.peers[0].replica.log.entries])
    assert back.replaced() and back.replica.log.head == parse_entry(void).id
    # Its late entry and seat 2's entry on the dead branch are refused, never blamed.
    for seat in (0, 3):
        for wire in (late, on_top):
            with pytest.raises(Rejected) as exc:
                table.peers[seat].receive(wire)
            assert exc.value.blame is None and not exc.value.halt
    table.peers[1] = taker
    table.down.discard(1)
    table.bots[1] = make_bot("trut", "heuristic", random.Random(1))
    rewritten = table.peers[2].replica  # seat 2 writes its shuffle again, same seq
    while step(table):
        back.receive(table.log[-1])
    again = [e for e in rewritten.log.entries if e.seat == 2 and e.seq == seq_on_top]
    assert again and again[0].wire != on_top
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert all(p.replica.halted is None for p in [*table.peers, back])
    assert len({p.replica.log.head for p in [*table.peers, back]}) == 1
    # Seat 2's files (journal with the dead branch) replay to the same log.
    table._persist(2)
    replay = TablePeer.restore(
        table.identities[2],
        table.stores[2].load_secrets(),
        table.stores[2].entries(),
        SeededRandom(2),
    )
    assert replay.replica.log.head == table.peers[2].replica.log.head


# ------------------------------------------------- checkpoint and local errors


def test_a_checkpoint_for_another_hand_is_refused():
    table = new_memory_table(TrutGame(TrutConfig(3)), "checkpoint", ["heuristic"] * 3)
    run_to(table, waits_for(0, "checkpoint"))
    peer = table.peers[0]
    state = peer.replica.state
    wire = forge_as(
        peer,
        "checkpoint",
        {"hand": state.hand_number + 5, "state": bytes.fromhex(state.state_hash())},
    )
    for other in table.peers[1:]:
        with pytest.raises(Rejected, match="checkpoint") as exc:
            other.receive(wire)
        assert exc.value.blame.seat == 0 and exc.value.halt


def test_an_illegal_decision_is_refused_before_anything_is_signed():
    table = new_memory_table(TrutGame(TrutConfig(4)), "local", ["heuristic"] * 4)
    run_to(table, lambda t: any(p.decide() and p.replica.state.phase == "play" for p in t.peers))
    peer = next(p for p in table.peers if p.decide())
    replica = peer.replica
    before = (len(replica.log), replica.state.state_hash(), dict(replica.state.known))
    other_card = next(p for s in range(4) if s != peer.seat for p in replica.state.holdings[s])
    for text, rule in (
        ("accept", None),  # nothing to accept during play
        ("keep @1 @2 @3", None),
        (f"play @{other_card}", "T5"),  # a card of another seat
        ("play 7q", "notation"),
        ("draw 7h", "T3"),  # a chance outcome: the engine refuses it now
        ("void", "decision"),  # legal for the engine, but only the table voids a hand (D16)
    ):
        with pytest.raises(LocalError) as exc:
            peer.act(text)
        if rule is not None:
            assert exc.value.rule == rule
        assert str(exc.value).count(f"[{exc.value.rule}]") == 1  # the rule, named once
        assert (len(replica.log), replica.state.state_hash(), dict(replica.state.known)) == before
        assert replica.halted is None and not replica.blames
    waiting = next(p for p in table.peers if not p.decide())
    with pytest.raises(LocalError, match="no decision"):
        waiting.act(_any_legal(peer))
    # A peer that signs the same illegal action anyway is blamed, its rule named once.
    wire = forge_as(peer, "act", {"action": "accept"})
    with pytest.raises(Rejected) as exc:
        waiting.receive(wire)
    assert str(exc.value).count(f"[{exc.value.rule}]") == 1 and exc.value.halt
    assert peer.act(_any_legal(peer))  # and the legal one still goes through


def test_a_seat_back_before_the_void_goes_on_and_holds_end_with_the_coordinator():
    """Votes were signed but the coordinator got the stalled seat's entry first: it
    never holds, it goes on; a voter holds only until the coordinator wrote after the
    stall point, then the game goes on with nobody replaced."""
    table = new_memory_table(TrutGame(TrutConfig(4)), "race", ["heuristic"] * 4)
    run_to(table, waits_for(1, "shuffle"))
    taker = newcomer(table)
    offer = taker.offer(1, "Nia")
    offer_id = parse_entry(offer).id
    votes = [table.peers[0].vote(1, offer_id), table.peers[3].vote(1, offer_id)]
    table.broadcast(table.peers[1].next_automatic())  # seat 1 is back before the void
    with pytest.raises(VoteError):
        table.peers[3].replace(1, votes, offer)
    assert table.peers[0].holding() and not table.peers[3].holding()
    table.broadcast(table.peers[2].next_automatic())
    assert table.peers[0].holding()
    table.broadcast(table.peers[3].next_automatic())  # the coordinator wrote after it
    assert not table.peers[0].holding()
    while step(table):
        pass
    assert {p.replica.phase for p in table.peers} == {"done"}
    assert not any(p.replica.changes for p in table.peers) and not table.rejected


@pytest.mark.parametrize(
    ("players", "stalled", "voters", "problem"),
    [
        (2, 1, {0}, None),  # abandon only (no partners)
        (3, 2, {0}, "needed"),
        (3, 2, {0, 1}, None),
        (4, 1, {0, 2}, "partners"),  # the two opponents alone
        (4, 1, {3}, "needed"),
        (4, 1, {0, 3}, None),
        (6, 1, {3, 5}, "needed"),  # both partners are not a majority of five
        (6, 1, {0, 2, 3}, "partners"),
        (6, 1, {0, 2, 4}, "partners"),  # three opponents
        (6, 1, {0, 3, 5}, None),
    ],
)
def test_quorum_needs_a_majority_with_every_partner(players, stalled, voters, problem):
    from trutnet.games.trut.rules.config import teams_for
    from trutnet.protocol.replace import partners, quorum_problem

    team_of = [
        next(t for t, team in enumerate(teams_for(players)) if s in team) for s in range(players)
    ]
    found = quorum_problem(voters, stalled, team_of)
    assert (found is None) == (problem is None) and (problem is None or problem in found)
    mates = partners(stalled, team_of)
    assert coordinator(stalled, team_of) == (mates[0] if mates else (0 if stalled else 1))


# ------------------------------------- before the first card, and after the last


@pytest.mark.parametrize("phase", ["keys", "commit", "reveal"])
def test_4p_a_seat_gone_before_the_first_deal_is_abandoned_never_replaced(phase):
    """7.7: in the keys round and a joint draw's rounds a stalled seat can be abandoned
    (else the others wait until they give up), but not replaced: no deal is there to
    void, so a newcomer's offer is refused, and the partner coordinates the abandon."""
    table = new_memory_table(TrutGame(TrutConfig(4)), f"early-{phase}", ["heuristic"] * 4)
    run_to(table, lambda t: t.peers[0].replica.phase == phase)
    table.kill(1)
    replica = table.peers[0].replica
    assert replica.can_abandon(1) and not replica.can_void(1)
    with pytest.raises(LocalError, match="not waiting"):
        newcomer(table, f"taker-{phase}").offer(1, "Taker")
    chief = table.peers[coordinator(1, replica.state.team_of)]
    assert chief.seat == 3  # the partner
    wire = chief.abandon(1, [chief.vote(1), table.peers[0].vote(1)])
    deliver(table, wire, (0, 2, 3))
    for seat in (0, 2, 3):
        done = table.peers[seat].replica
        assert done.phase == "done" and done.abandoned.voters == (0, 3)
        assert done.blames[-1].seat == 1 and done.blames[-1].rule == "stalled"
        assert done.state.round_number() == replica.state.round_number()


@pytest.mark.parametrize("phase", ["checkpoint", "result"])
def test_a_seat_gone_after_the_last_move_is_closed_out_and_the_winner_stands(phase):
    """7.7: once the game is over (its last checkpoint, its result round), a seat that
    never signs it does not hold the others until they give up: the ``abandon`` closes
    the game without its signature, the stalled seat is blamed, and the winner stands
    (no "abandoned, no winner"). A newcomer cannot take a seat there."""
    from trutnet.protocol.replace import describe

    near_the_end = StartPosition((6, 6), (2, 2), 0)  # one hand from a winner
    table = new_memory_table(TrutGame(TrutConfig(2, start=near_the_end)), "end", ["heuristic"] * 2)
    run_to(
        table,
        lambda t: t.peers[0].replica.phase == phase and t.peers[0].replica.state.is_terminal(),
    )
    table.kill(1)
    replica = table.peers[0].replica
    winner = replica.state.winning_team()
    assert winner is not None
    assert replica.can_abandon(1) and replica.closing_without(1) and not replica.can_void(1)
    chief = table.peers[0]
    wire = chief.abandon(1, [chief.vote(1)])
    deliver(table, wire, (0,))
    done = table.peers[0].replica
    assert done.phase == "done" and done.abandoned is None
    assert done.changes[-1].kind == "closed" and done.state.winning_team() == winner
    assert done.blames[-1].seat == 1 and done.blames[-1].rule == "stalled"
    assert "closed without seat 1's signature" in describe(done.changes[-1])
    assert "the result stands" in describe(done.changes[-1])
