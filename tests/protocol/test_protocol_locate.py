"""A ``Locate`` over the table (docs/protocol.md 7.4, 8.12): Trut Deluxe's Falcon
found among the dealt hands by plaintext-equality tests, with full crypto in memory
[T33, D20]. Every replica finds it at the same position; its holder alone sees its
partners' cards, while the other seats and a spectator do not; a bad blinding or a bad
share is blamed on its author at every replica, whatever the order of arrival; an
audit replays the rounds and refuses a transcript with a bad blinding."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from tests.protocol.test_protocol_rounds import follower, followers, forge, run_to_round
from tests.tables import new_memory_table, play_memory_game
from trutnet.crypto import SeededRandom, blind, make_shares
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.memory_table import step
from trutnet.protocol.audit import audit
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.locate import BLIND_STEP, UNBLIND_STEP
from trutnet.protocol.spectator import Spectator
from trutnet.protocol.table import Rejected, TablePeer
from trutnet.store import save_transcript

# 4 players, random bots: the Falcon is found in 6 hands of 16, in the talon too; the
# test stops after the hand where it was found the second time (hand 9)
SEED = "falcon-3"


def test_the_falcon_is_found_by_the_table_and_only_its_holder_looks():
    game = TrutGame(TrutConfig(4, deluxe=True))
    table = new_memory_table(game, SEED, ["random"] * 4)  # they keep the Falcon too
    spectator = Spectator(table.peers[0].replica.table_id)
    fed, looks, found = 0, set(), 0
    enough = None  # the hand in which all the test asks for was met: it stops after it
    while step(table):
        while fed < len(table.log):
            assert spectator.receive(table.log[fed]) is not None
            fed += 1
        watched = spectator.replica.state
        if watched is not None and enough is not None and watched.hand_number > enough:
            break  # the Falcon found twice, and a look in the talon
        states = [p.replica.state for p in table.peers]
        if watched is None or watched.next_stock == 0 or watched.phase == "falcon":
            continue
        hands = {p for h in watched.holdings for p in h}
        # The spectator knows of the hands only the Falcon the table found.
        assert set(watched.known) & hands <= {watched.falcon_at}
        holder = watched.falcon_holder
        for seat, state in enumerate(states):
            others = hands - set(state.holdings[seat]) - {state.falcon_at}
            seen = {p for p in others if p in state.known}
            if seat == holder and seen:
                mates = [
                    s for s in range(4) if s != seat and state.team_of[s] == state.team_of[seat]
                ]
                assert seen <= {p for s in mates for p in state.holdings[s]}
                looks.add((state.hand_number, seat, state.deck_name))
            else:
                assert not seen, (seat, holder, sorted(seen))
        falcons = [a for a in states[0].history() if str(a).startswith("falcon E@")]
        if enough is None and len(falcons) >= 2 and "talon" in {d for _, _, d in looks}:
            enough = watched.hand_number
    assert not table.rejected and all(p.replica.halted is None for p in table.peers)
    found_by = {
        tuple(str(a) for a in p.replica.state.history() if str(a).startswith("falcon "))
        for p in table.peers
    }
    assert len(found_by) == 1  # every replica found it at the same positions
    assert len({p.replica.state.state_hash() for p in table.peers}) == 1
    outcomes = list(next(iter(found_by)))
    found = [a for a in outcomes if a != "falcon none"]
    assert len(found) >= 2 and looks and len(looks) <= len(found)
    assert "talon" in {deck for _, _, deck in looks}  # a carried Falcon, found too (T26)
    entries = [parse_entry(w) for w in table.log]
    kinds = [e.type for e in entries]
    assert kinds.count("blind") == kinds.count("unblind") == 4 * len(outcomes)
    acts = [e.body.get("action", "") for e in entries if e.type == "act"]
    assert not any(a.startswith("falcon") for a in acts)  # nobody declares it
    assert spectator.replica.state.state_hash() == table.peers[0].replica.state.state_hash()


def _blind_round(seed: str):
    table = new_memory_table(TrutGame(TrutConfig(4, deluxe=True)), seed, ["heuristic"] * 4)
    run_to_round(table, "blind")
    return table


def bad_blinding(peer: TablePeer, how: str) -> bytes:
    """``peer``'s entry of the blind round in progress, wrong in the way ``how`` says."""
    replica = peer.replica
    locating = replica.locating
    rng = SeededRandom("bad")
    context = replica.context(BLIND_STEP)
    cards, seat, public = locating.cards, peer.seat, peer.elgamal.public
    if how == "another card":  # a valid proof of another statement: the Falcon is "A"
        cards = tuple(replica.decks.encoding(p, "A") for p in locating.positions)
    elif how == "another step":
        context = replica.context(UNBLIND_STEP)
    elif how == "another seat's":
        seat = (seat + 1) % 4
    batch = blind(public, seat, locating.numbers, locating.ciphertexts, cards, context, rng)
    return forge(peer, "blind", {"blinds": batch.to_bytes()})


@pytest.mark.parametrize(
    ("how", "rule"),
    [("another card", "blind-proof"), ("another step", "blind-proof"), ("another seat's", "blind")],
)
def test_a_bad_blinding_is_blamed_on_its_author_whatever_the_order(how, rule):
    table = _blind_round("bad-blind")
    cheat = 2
    wires = [bad_blinding(p, how) if p.seat == cheat else p.next_automatic() for p in table.peers]
    base = table.peers[0].replica.log.head
    fresh = followers(table)
    for order in itertools.permutations(range(4)):
        replica = fresh()
        for seat in order:
            try:
                replica.receive(wires[seat])
            except Rejected as exc:
                assert exc.blame is not None and exc.blame.seat == cheat
                if exc.halt:
                    break
        assert replica.halted is not None and (replica.halted.seat, replica.halted.rule) == (
            cheat,
            rule,
        )
        assert replica.log.head == base


def test_a_bad_share_of_the_blinded_ciphertexts_is_blamed():
    table = _blind_round("bad-unblind")
    run_to_round(table, "unblind")
    cheat = 1
    peer = table.peers[cheat]
    locating = peer.replica.locating
    assert locating is not None and len(locating.joint) == len(locating.positions) == 12
    wrong = make_shares(  # the seat's shares of the tested ciphertexts, not the blinded
        peer.elgamal,
        cheat,
        locating.numbers,
        locating.ciphertexts,
        peer.replica.context(UNBLIND_STEP),
        SeededRandom("bad"),
    )
    wires = [
        forge(p, "unblind", {"shares": wrong.to_bytes()}) if p.seat == cheat else p.next_automatic()
        for p in table.peers
    ]
    replica = follower(table)
    for wire in reversed(wires):
        try:
            replica.receive(wire)
        except Rejected as exc:
            assert exc.blame is not None and exc.blame.seat == cheat
    assert replica.halted is not None and replica.halted.rule == "share-proof"
    assert replica.halted.seat == cheat


def test_an_audit_replays_the_tests_and_refuses_a_bad_blinding(tmp_path):
    game = TrutGame(TrutConfig(4, deluxe=True))

    def searched(t) -> bool:  # the game up to its first search, blindings and shares
        types = [parse_entry(w).type for w in t.log[-8:]]
        return "unblind" in types and types[-1] != "unblind"

    table = play_memory_game(game, "audit-falcon", ["heuristic"] * 4, searched)
    table_id = table.peers[0].replica.table_id
    report = audit(table_id, table.log)
    assert report.failed_at is None and report.blame is None  # every entry valid, so far
    assert report.counts["blind"] == report.counts["unblind"] > 0
    # A transcript whose first blind round holds a bad blinding from seat 3.
    cheat = _blind_round("audit-cheat")
    wires = [
        bad_blinding(p, "another card") if p.seat == 3 else p.next_automatic() for p in cheat.peers
    ]
    log = [*cheat.log, *wires]
    report = audit(cheat.peers[0].replica.table_id, log)
    assert not report.ok and report.failed_at == len(cheat.log) + 3
    assert report.blame is not None and (report.blame.seat, report.blame.rule) == (3, "blind-proof")
    path = tmp_path / "cheat.json"
    save_transcript(path, cheat.peers[0].replica.table_id, log)
    verify = subprocess.run(
        [sys.executable, "-m", "trutnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 1 and "Traceback" not in verify.stderr
    assert "[blind-proof]" in verify.stderr and "blame: seat 3 " in verify.stderr


@pytest.mark.parametrize("kind", ["blind", "unblind"])
def test_a_seat_stalled_in_a_locate_round_can_be_abandoned(kind):
    """7.7 as in every unordered round: the table waits for the seat whose entry has not
    come, its partners may abandon the game for it, and every replica agrees."""
    from trutnet.protocol.replace import coordinator

    table = _blind_round(f"stalled-{kind}")
    if kind == "unblind":
        run_to_round(table, "unblind")
    table.kill(1)
    while step(table):
        pass
    replica = table.peers[0].replica
    assert replica.phase == kind and replica.waiting() == (1,) and replica.can_abandon(1)
    chief = table.peers[coordinator(1, replica.team_of)]
    votes = [p.vote(1) for p in table.peers if p.seat in (0, 2, 3)]
    table.broadcast(chief.abandon(1, votes))
    for seat in (0, 2, 3):
        peer = table.peers[seat].replica
        assert peer.abandoned is not None and peer.abandoned.seat == 1 and peer.phase == "done"


def test_trutnet_verify_passes_a_saved_deluxe_game_and_names_the_falcon(tmp_path):
    """A 4-player Deluxe game over the memory transport (seed 11: the Falcon is found in
    one hand), saved by ``trutnet selfplay --save``, passes ``trutnet verify``."""
    cli = [sys.executable, "-m", "trutnet"]
    options = ["--players", "4", "--transport", "memory", "--games", "1", "--seed", "11"]
    play = subprocess.run(
        [*cli, "selfplay", "--deluxe", *options, "--save", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert play.returncode == 0, play.stderr
    verify = subprocess.run(
        [*cli, "verify", str(tmp_path / "game-1-seat-2.json")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 0, verify.stderr
    assert "OK: the transcript is valid" in verify.stdout
    assert "the table finds the Falcon in the hand of " in verify.stdout
    assert "equality tests: 32 blindings, 32 shares" in verify.stdout.splitlines()
    assert all(len(line) <= 80 for line in verify.stdout.splitlines())  # a terminal's width
