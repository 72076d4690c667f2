"""``trutnet sim`` (issue 26): whole tables of real peers on a simulated network, faults
from a seed, invariants after every step.

Seeded runs of every registered game (short configurations: a CI budget), the same
seed replaying the same bytes, each invariant shown to bite (a seat that learns a card
it was not shown, a seat that shows two peers two different entries, a table that
cannot end), and the command line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from trutnet.bots import default_bot
from trutnet.cli.sim_command import faults_of, replay_command, summary_line
from trutnet.engine.errors import EngineError
from trutnet.engine.registry import GAMES, make_game
from trutnet.plugins import load_plugins
from trutnet.protocol.table import TablePeer
from trutnet.sim import (
    CLEAN,
    Faults,
    Sim,
    format_numbers,
    parse_numbers,
    run_seed,
    shrink,
    summarise,
)
from trutnet.sim.invariants import check_hidden, check_logs

load_plugins()

# Each game in a short configuration (whole games, full crypto: seconds each).
SHORT = {"trut": {"players": 2}, "truco": {"chicos": 1}, "lutin": {}}
HARSH = Faults(loss=0.15, dup=0.1, reorder=0.2, kill=0.01, gone=0.0, junk=0.05, down=10.0)
# Truco plays many short hands: its runs stop after a few (status "cut")
HANDS = {"truco": 4}


def game_for(name: str) -> Any:
    return make_game(name, SHORT.get(name, {}))


def bots(game: Any) -> list[str]:
    return [default_bot(game.name)] * game.num_players()


def run(name: str, seed: int, faults: Faults = CLEAN, **kwargs: Any) -> Any:
    game = game_for(name)
    return run_seed(game, seed, faults, bots(game), **kwargs)


# ---------------------------------------------------------------- every game


def test_every_registered_game_is_in_the_budget():
    assert set(GAMES) <= set(SHORT), "a new game: give it a short configuration here"


@pytest.mark.parametrize("name", sorted(SHORT))
def test_every_game_ends_under_seeded_faults_with_every_invariant_kept(name):
    result = run(name, 3, dataclasses.replace(HARSH, hands=HANDS.get(name, 0)))
    assert result.violation is None, result
    assert result.status == ("cut" if name in HANDS else "finished"), result
    counts = result.counts
    assert counts["lost"] and counts["duplicated"] and counts["reordered"], counts
    assert counts["resent"], "lost entries come back by sync answers (9.2)"
    # every peer, spectator included, ended with the whole log
    assert result.hands >= 1 and result.entries > 10


@pytest.mark.parametrize("name", sorted(SHORT))
def test_partitions_and_broker_restarts_heal_and_the_table_ends_on_one_log(name):
    """The processes split in two groups that hear nothing of each other for up to
    20 s, and the broker restarts (every message in flight lost, nothing passing for
    up to 5 s): once healed, sync requests (9.2) bring every peer, spectator
    included, back to one log, and the game ends as with no fault."""
    faults = dataclasses.replace(
        CLEAN, split=0.02, restart=0.01, hands=HANDS.get(name, 0), loss=0.02
    )
    seed = 1  # a seed that meets both, in each game
    result = run(name, seed, faults)
    assert result.violation is None, result
    assert result.status == ("cut" if name in HANDS else "finished"), result
    counts = result.counts
    assert counts.get("partitioned") and counts.get("cut_off"), counts  # else not a test
    assert counts.get("broker_restarted") and counts.get("lost_in_restart"), counts
    assert counts["resent"], "what a side missed comes back by sync answers (9.2)"
    assert run(name, seed, faults).digest == result.digest  # the same seed, the same bytes


def test_a_killed_seat_resumes_from_its_files_and_the_table_finishes():
    result = run("lutin", 5, dataclasses.replace(CLEAN, kill=0.03, down=20.0))
    assert result.violation is None, result
    assert result.status == "finished"
    assert result.counts["killed"] >= 2 and result.counts["restarted"] == result.counts["killed"]


@pytest.mark.parametrize("name", ["lutin", "trut"])
def test_a_seat_that_never_comes_back_is_abandoned_by_the_others_votes(name):
    """7.7: the others vote after the void timeout (twice that in a team game, none
    here), the coordinator writes ``abandon``, and every remaining replica ends."""
    result = run(name, 1, dataclasses.replace(CLEAN, kill=0.05, gone=1.0, void_timeout=30.0))
    assert result.violation is None, result
    assert result.status == "abandoned", result
    assert result.counts["gone"] == 1 and result.counts["abandon_written"] == 1
    assert result.sim_seconds >= 30.0


def test_clocks_that_drift_fire_each_peers_timers_on_its_own_clock_and_the_table_ends():
    """Each process's clock runs at its own rate (``--drift``): a fast one votes before
    the void timeout has passed in simulated time, a slow one later; the votes still
    meet, the table ends abandoned, and no invariant breaks. No drift, no draw: the
    runs without it are the runs as they were."""
    drifting = dataclasses.replace(CLEAN, kill=0.05, gone=1.0, void_timeout=30.0, drift=0.5)
    result = run("trut", 1, drifting)
    assert result.violation is None, result
    assert result.status == "abandoned", result
    steady = run("trut", 1, dataclasses.replace(drifting, drift=0.0))
    assert steady.status == "abandoned" and result.sim_seconds != steady.sim_seconds
    assert steady.sim_seconds >= 30.0 and result.sim_seconds >= 30.0 / 1.5


def test_the_team_game_waits_twice_the_void_timeout_before_abandoning():
    game = make_game("trut", {"players": 4})
    faults = dataclasses.replace(CLEAN, kill=0.02, gone=1.0, void_timeout=30.0)
    result = run_seed(game, 2, faults, bots(game))
    assert result.status == "abandoned", result
    assert result.sim_seconds >= 60.0


def test_a_seat_gone_in_the_keys_round_is_abandoned_as_in_a_game():
    """7.7 abandons a table in the ``keys`` round too (``can_abandon``): a seat that
    dies for good before its ``keys`` entry leaves the others waiting only until their
    abandon vote (twice the void timeout in a team game: no newcomer can take a seat
    before the first deal), never until they give up."""
    game = make_game("trut", {"players": 4})
    faults = dataclasses.replace(CLEAN, kill=1.0, gone=1.0, void_timeout=30.0)
    result = run_seed(game, 2, faults, bots(game))
    assert result.violation is None, result
    assert result.status == "abandoned", result
    assert result.hands == 0 and result.counts["abandon_written"] == 1, result
    assert 60.0 <= result.sim_seconds < 120.0, result
    assert "gave_up" not in result.counts, result


# A newcomer follows the table and offers to take a stalled seat with partners (7.7).
NEWCOMER = dataclasses.replace(CLEAN, kill=0.02, gone=1.0, void_timeout=30.0, newcomers=1)
BACK = dataclasses.replace(CLEAN, kill=0.02, down=300.0, void_timeout=30.0, newcomers=1)


def test_a_newcomer_takes_the_seat_of_a_partner_gone_for_good_and_the_table_finishes():
    """The partners vote for the newcomer's offer after the void timeout, the others
    follow their choice, the coordinator writes the ``void``, and the newcomer plays
    the seat to the end: the table finishes instead of being abandoned."""
    game = make_game("trut", {"players": 4})
    result = run_seed(game, 2, NEWCOMER, bots(game))
    assert result.violation is None and result.status == "finished", result
    counts = result.counts
    assert counts["gone"] == counts["void_written"] == counts["took_seat"] == 1, counts
    assert counts["offers"] >= 1 and result.sim_seconds >= 30.0
    assert "abandon_written" not in counts
    line = summary_line(game, summarise([result], 1.0))  # what `trutnet sim` prints
    assert "1 finished, 0 abandoned, 0 failed; 1 seat taken by a newcomer; faults:" in line


def test_a_replaced_seat_that_comes_back_follows_the_game():
    """The killed seat comes back from its files after its seat was given away: it
    learns of the ``void`` and writes nothing more; every log stays one."""
    game = make_game("trut", {"players": 4})
    result = run_seed(game, 0, BACK, bots(game))
    assert result.violation is None and result.status == "finished", result
    assert result.counts["void_written"] == result.counts["restarted"] == 1, result.counts


def test_the_sim_finds_a_replaced_seat_that_writes_at_its_old_position(monkeypatch):
    """The fault re-introduced: a peer that takes itself as seated by its seat number
    alone, not by the key the log seats there, writes at its old place after a void.
    It must come back while the game goes on (a seat that comes back once the others
    left finds the game ended while it was away, 9.2): down 90 s at most."""
    soon = dataclasses.replace(BACK, down=90.0)
    game = make_game("trut", {"players": 4})
    monkeypatch.setattr(TablePeer, "seated", lambda self: 0 <= self.seat < len(self.replica.seats))
    result = run_seed(game, 6, soon, bots(game))
    assert result.status == "failed", result
    assert "not seat 0's" in result.violation, result.violation
    monkeypatch.undo()
    assert run_seed(game, 6, soon, bots(game)).violation is None


TORN = dataclasses.replace(Faults(), kill=0.05, torn=1.0, hands=2)


def test_the_sim_finds_a_resumed_seat_that_appends_after_a_torn_record(monkeypatch):
    """The fault re-introduced (a real one, found by ``--torn``): a seat's store that,
    resumed after a crash mid-append, appends after the torn bytes. Its next restart
    reads a damaged log."""
    from trutnet.store import PeerStore

    monkeypatch.setattr(PeerStore, "_heal", lambda self, path: None)
    game = make_game("lutin", {})
    results = [run_seed(game, seed, TORN, bots(game)) for seed in (24, 1, 2)]
    assert any(r.status == "failed" for r in results), results
    monkeypatch.undo()
    assert run_seed(game, 24, TORN, bots(game)).violation is None


def test_several_seats_down_at_once_come_back_or_are_abandoned_and_the_table_ends():
    """Up to three of four seats killed together (a power cut in one room): each comes
    back from its files, or the others abandon the game; no invariant breaks."""
    faults = dataclasses.replace(Faults(), kill=0.1, down=60.0, at_once=3, hands=1, torn=0.5)
    game = make_game("trut", {"players": 4})
    # seeds 0-3: two tables abandoned, two cut after their hand; three kills of a seat
    # while another was down (seeds 4 and 5 met nothing these do not)
    results = [run_seed(game, seed, faults, bots(game)) for seed in range(4)]
    assert all(r.violation is None for r in results), [r.violation for r in results]
    together = sum(r.counts.get("killed_while_down", 0) for r in results)
    assert together > 0, [r.counts for r in results]


# Every seed that ever failed, with its faults: (game, config, seed, faults, why).
REGRESSIONS = [
    (
        "lutin",
        {},
        520,
        dataclasses.replace(CLEAN, loss=0.05, kill=0.02, down=400.0, void_timeout=30.0),
        "the sim's own bug: a seat restored from files that held the end was not seen "
        "to end the run, reported stuck",
    ),
    (
        "truco",
        {"players": 2},
        12,
        Faults(
            loss=0.15,
            dup=0.1,
            reorder=0.2,
            kill=0.01,
            junk=0.05,
            down=10.0,
            split=0.02,
            restart=0.01,
        ),  # the command line's: trutnet sim --game truco --players 2 --seed 12 --loss ...
        "a spectator cut off while the table abandoned its gone seat and left: it waited "
        "for every seat's done, and the gone seat never says one; it gave up, stuck "
        "(a process with no seat now stops on any seat's done past its log, 9.2)",
    ),
]


@pytest.mark.parametrize(("name", "config", "seed", "faults", "why"), REGRESSIONS)
def test_every_seed_that_failed_once_passes(name, config, seed, faults, why):
    game = make_game(name, config)
    result = run_seed(game, seed, faults, bots(game))
    assert result.violation is None, (why, result)


# ---------------------------------------------------------------- transcripts


def test_every_peer_saves_a_transcript_of_its_own_that_verifies():
    """Every peer saves its game into one folder under one name, as on one machine: each
    save finds a name of its own, none replaces another, and each one verifies; a seat
    back from its files saves once more."""
    sims: list[Any] = []
    result = run("lutin", 5, dataclasses.replace(CLEAN, kill=0.03, down=20.0), on_sim=sims.append)
    assert result.violation is None and result.status == "finished", result
    transcripts = sims[0].transcripts
    names = sorted(path.name for path in transcripts.digests)
    table = sims[0].table_id.hex()
    assert len(names) == len(transcripts.savers) >= 3  # two seats and the spectator
    assert f"{table}.json" in names and f"{table}-2.json" in names


def test_the_sim_finds_a_save_that_replaces_a_transcript(monkeypatch):
    """The fault re-introduced: a save that writes under the name it asked for, over
    the file a peer saved before (what ``save_transcript`` must never do)."""
    from trutnet.sim import transcripts
    from trutnet.store import save_transcript

    def replacing(path: Any, table_id: bytes, wires: Any) -> Any:
        path.unlink(missing_ok=True)
        return save_transcript(path, table_id, wires)

    monkeypatch.setattr(transcripts, "save_transcript", replacing)
    result = run("trut", 0)
    assert result.status == "failed", result
    assert str(result.violation).startswith("transcript: "), result.violation
    assert "saved over" in str(result.violation)


# ---------------------------------------------------------------- determinism


def test_the_same_seed_replays_the_same_run_byte_for_byte():
    first = run("lutin", 11, HARSH)
    again = run("lutin", 11, HARSH)
    other = run("lutin", 12, HARSH)
    assert json.dumps(first.as_dict(), sort_keys=True) == json.dumps(
        again.as_dict(), sort_keys=True
    )
    assert first.digest != other.digest


def test_the_summary_counts_every_run_and_fault():
    results = [run("lutin", s, HARSH) for s in (20, 21)]
    summary = summarise(results, wall=2.0)
    assert summary["runs"] == 2
    assert summary["finished"] + summary["abandoned"] == 2
    assert summary["counts"]["lost"] == sum(r.counts["lost"] for r in results)
    assert summary["runs_per_second"] == 1.0
    assert summary["hands_per_sim_second"] > 0


# ---------------------------------------------------------------- the invariants bite


class LeakyPeer(TablePeer):
    """A seat whose decryption also 'learns' a card of another seat: the bug of a share
    sealed to the wrong seat."""

    def _learn(self, replica: Any, round_: Any) -> None:
        super()._learn(replica, round_)
        state = replica.state
        others = [p for s, ps in round_.owners.items() if s not in (self.seat, -1) for p in ps]
        cards = {d.name: d.cards for d in state.game.decks()}
        for pos in others:
            for card in cards.get(pos.deck, ()):
                with contextlib.suppress(EngineError):
                    state.see(pos, card)
                    return


class LeakySim(Sim):
    def _make_peer(self, identity: Any, seat: int, who: str) -> TablePeer:
        if seat == 1:
            return LeakyPeer(identity, seat, self.table_id, self._rng(who))
        return super()._make_peer(identity, seat, who)

    def _rng(self, who: str) -> Any:
        from trutnet.crypto import SeededRandom

        return SeededRandom(f"leaky/{who}")


def test_a_replica_that_knows_a_card_it_was_not_shown_is_reported():
    result = run("trut", 1, dataclasses.replace(CLEAN, hands=1), sim_class=LeakySim)
    assert result.status == "failed"
    assert result.violation.startswith("leak: seat 1 (seat 1) knows"), result.violation


class ForkingSim(Sim):
    """Seat 0 signs two different decisions at one point, and shows each to half the
    table (its twin is restored from its own files)."""

    forked = False

    def _on_wake(self, node: Any, payload: Any) -> bool:
        peer = node.peer
        state = peer.replica.state if peer is not None else None
        if node.seat != 0 or self.forked or state is None or not peer.decide():
            return super()._on_wake(node, payload)
        legal = [str(a) for a in state.legal_actions(0)]
        if len(legal) < 2 or peer.replica.kinds_for(0) != ("act",):
            return super()._on_wake(node, payload)
        twin = TablePeer.restore(
            node.identity, node.store.load_secrets(), node.store.entries(), self._twin_rng()
        )
        first, second = peer.act(legal[0]), twin.act(legal[1])
        self.forked = True
        self._persist(node)
        self.publish(node, "log", first, to={1})
        self.publish(node, "log", second, to={2})
        return True

    def _twin_rng(self) -> Any:
        from trutnet.crypto import SeededRandom

        return SeededRandom("twin")


def test_a_seat_that_shows_two_peers_two_entries_is_reported_as_a_fork():
    result = run("lutin", 2, sim_class=ForkingSim)
    assert result.status == "failed"
    assert result.violation.startswith("fork: "), result.violation


class EquivocatingSim(ForkingSim):
    """The same, with seat 0 known to be dishonest: the logs may differ by its two
    entries, and the table must stop blaming it everywhere (7.2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.nodes[0].dishonest = True


def test_a_seat_that_equivocates_is_blamed_by_every_replica():
    game = make_game("trut", {"players": 4})
    result = run_seed(game, 0, CLEAN, bots(game), sim_class=EquivocatingSim)
    assert result.violation is None, result
    assert result.status == "stopped", result


def test_a_spectator_shown_another_entry_than_the_players_learns_of_the_equivocation():
    """Seat 0 shows the spectator alone another entry than seat 1's. The spectator's
    sync requests name a head no one else has; asked again, a request carries its log's
    length, and a peer answers from that position (9.2): the spectator gets the
    table's entry there, holds both of seat 0's entries, and stops blaming seat 0
    (7.2), as the players do (it waited until it gave up, with no blame)."""
    game = make_game("trut", {"players": 2})
    result = run_seed(game, 0, CLEAN, bots(game), sim_class=EquivocatingSim)
    assert result.status == "stopped", result
    assert result.counts["parted_answered"] >= 1, result


class NoVoidSim(Sim):
    """The runtime without its answers to a sync request that names a head off its log
    (``recent_void``, 7.8, and from where the logs parted, 9.2): the fault of a seat
    that resumes into an abandoned game."""

    @staticmethod
    def _recent_void(replica: Any) -> None:
        return None

    @staticmethod
    def _parting(at: Any, length: int) -> None:
        return None


# a seat killed, back after the others abandoned the game without it, while one of them
# still lingers (for at most 30 s: it waits for the seat's done)
LATE = dataclasses.replace(CLEAN, kill=0.02, down=65.0, void_timeout=30.0)


def test_a_seat_back_after_the_abandon_reads_it_and_ends_abandoned_too():
    """A seat dies between saving an entry and sending it, and comes back after the
    others abandoned the game at the head before that entry: the abandon overrides its
    entry (7.8) and every replica ends abandoned alike."""
    result = run("lutin", 3, LATE)
    assert result.violation is None, result
    assert result.status == "abandoned"
    assert result.counts["restarted"] == 1 and result.counts["void_resent"] >= 1


def test_the_sim_finds_a_resume_that_never_hears_of_the_abandon():
    """Without the sync answers that carry the abandon (7.8, 9.2), the seat back from
    its crash can only end away, though a seat with the end was there to tell it."""
    result = run("lutin", 3, LATE, sim_class=NoVoidSim)
    assert result.status == "failed"
    assert result.violation.startswith("left_behind: seat 1 (back while seat 0 had the end)")


def test_a_seat_back_after_everyone_left_ends_away_and_says_why():
    """Back long after the others abandoned the game and left: nobody can send it the
    abandon, the seats' retained ``done`` tell it the game ended past its log; it
    writes nothing more (no vote either) and ends away, its log behind the table's but
    for the entry the abandon overrode."""
    result = run("lutin", 3, dataclasses.replace(LATE, down=600.0))
    assert result.violation is None, result
    assert result.status == "abandoned" and result.counts["away"] == 1, result.counts
    assert result.counts["abandon_written"] == 1, result.counts


def test_a_failing_schedule_shrinks_and_replays_from_its_numbers():
    faults = dataclasses.replace(CLEAN, loss=0.1, dup=0.05, reorder=0.05, junk=0.05)
    game = game_for("lutin")
    failed = run_seed(game, 3, faults, bots(game), sim_class=ForkingSim)
    assert failed.violation.startswith("fork: ") and len(failed.injected) >= 20, failed
    without, shrunk, runs = shrink(game, failed, faults, bots(game), 5, ForkingSim)
    assert runs <= 5 and shrunk.violation == failed.violation
    assert len(shrunk.injected) <= len(failed.injected) / 2, (shrunk.counts, failed.counts)
    assert parse_numbers(format_numbers(without)) == without
    again = run_seed(game, 3, faults, bots(game), sim_class=ForkingSim, without=without)
    assert again.as_dict() == shrunk.as_dict()


class SilentSim(Sim):
    """No seat ever votes: a seat that never comes back stalls the table for ever."""

    def _vote(self, node: Any, stalled: int, taker: Any) -> bool:
        return False


def test_a_table_that_does_not_end_within_the_bound_is_reported():
    faults = dataclasses.replace(CLEAN, kill=1.0, gone=1.0, void_timeout=30.0, bound=300.0)
    result = run("lutin", 1, faults, sim_class=SilentSim)
    assert result.status == "failed"
    assert result.violation.startswith("stuck: no end after 300 simulated s"), result.violation


def test_the_pure_checks_accept_one_log_and_refuse_a_leak():
    sims: list[Sim] = []
    result = run("trut", 4, dataclasses.replace(CLEAN, hands=1), on_sim=sims.append)
    assert result.status == "cut", result
    replicas = sims[0].replicas()
    assert check_logs(replicas) is None
    name, replica = replicas[1]
    assert check_hidden(name, 1, replica) is None
    assert check_hidden("spectator", None, sims[0].nodes[-1].replica) is None
    # seat 1's replica judged as seat 0's (it knows seat 1's cards), or a spectator's
    assert str(check_hidden(name, 0, replica)).startswith("leak: seat 1 (seat 0) knows")
    assert str(check_hidden(name, None, replica)).startswith("leak: seat 1 (a spectator)")


# ---------------------------------------------------------------- command line


def sim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trutnet", "sim", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_command_runs_seeds_and_prints_a_json_summary():
    # two hands of each run are enough to see the command work (--hands: "cut")
    result = sim_cli("--game", "trut", "--players", "2", "--seeds", "3", "--hands", "2", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["runs"] == 3 and summary["failed"] == 0
    assert summary["finished"] + summary["abandoned"] + summary["cut"] == 3
    assert summary["game"] == "trut" and summary["config"]["players"] == 2
    assert {"runs_per_second", "hands_per_second", "counts"} <= set(summary)
    # a hand's cost: its sequential steps (an entry, or a round of them) and its bytes
    assert summary["hands"] >= 3 and 5 < summary["steps_per_hand"] < summary["entries"]
    assert summary["bytes_per_hand"] * summary["hands"] <= summary["counts"]["bytes"]
    assert summary["bytes_per_hand"] > 1000


def test_seeds_run_in_parallel_processes_give_the_same_runs():
    """``--jobs 2`` runs the seeds in two processes (results come as they end): the
    summary is the one ``--jobs 1`` prints, failures and their replays included."""
    wall = {"wall_seconds", "runs_per_second", "hands_per_second"}
    common = ["--game", "lutin", "--seeds", "4", "--json", "--shrink", "0"]
    summaries = []
    # one hand each; then a bound too short for a whole game: every seed fails, with
    # its replay command
    for jobs, ending in [(j, e) for e in (["--hands", "1"], ["--bound", "5"]) for j in "12"]:
        result = sim_cli(*common, "--jobs", jobs, *ending)
        summaries.append({k: v for k, v in json.loads(result.stdout).items() if k not in wall})
    assert summaries[0] == summaries[1] and summaries[0]["runs"] == 4
    assert summaries[2] == summaries[3] and summaries[2]["failed_seeds"] == [0, 1, 2, 3]


def test_a_parallel_run_that_ends_lets_its_workers_leave_and_never_terminates_them(
    monkeypatch,
):
    """Once every run is in, the workers leave by themselves: terminating idle workers
    there once left one holding the task queue's lock, and the command waiting for ever
    with every result in hand (a 200-seed Truco run did). A caller that stops reading
    has the runs still going stopped."""
    from multiprocessing.process import BaseProcess

    from trutnet.sim.runs import run_seeds

    terminated = []
    real = BaseProcess.terminate
    monkeypatch.setattr(BaseProcess, "terminate", lambda p: terminated.append(real(p)))
    game = make_game("lutin", {})
    faults = dataclasses.replace(CLEAN, hands=1)
    results = list(run_seeds(game, [0, 1, 2], faults, bots(game), jobs=2))
    assert sorted(r.seed for r in results) == [0, 1, 2]
    assert not terminated
    stopped = run_seeds(game, [0, 1, 2, 3], faults, bots(game), jobs=2)
    next(stopped)
    stopped.close()  # the caller stopped reading: the runs still going are stopped
    assert terminated


def _dying_task(task: tuple[Any, ...]) -> Any:
    """A worker's run that kills its own process at seed 1 (the OOM killer, a crash)."""
    from trutnet.sim import runs

    if task[2] == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return runs.run_seed(make_game(task[0], task[1]), task[2], task[3], task[4])


@pytest.mark.timeout(120)
def test_a_worker_that_dies_mid_run_is_said_never_waited_for(monkeypatch):
    """A worker process killed mid-run: the runs that ended are given, then
    :class:`WorkerDied` names the runs lost, at once (a pool once waited for ever)."""
    from trutnet.sim import runs

    monkeypatch.setattr(runs, "_run_task", _dying_task)
    game = make_game("lutin", {})
    faults = dataclasses.replace(CLEAN, hands=1)
    got = []
    with pytest.raises(runs.WorkerDied) as died:
        for result in runs.run_seeds(game, [0, 1, 2, 3], faults, bots(game), jobs=2):
            got.append(result.seed)
    assert 1 in died.value.seeds and 1 not in got
    assert sorted([*got, *died.value.seeds]) == [0, 1, 2, 3]
    assert "killed?" in str(died.value)


@pytest.mark.timeout(120)
def test_the_command_says_which_runs_a_dead_worker_lost_after_the_summary(monkeypatch, capsys):
    """``trutnet sim --jobs 2`` whose worker is killed: the summary of the runs that
    ended, then one line naming the runs lost, and status 1."""
    from trutnet.cli import main
    from trutnet.sim import runs

    monkeypatch.setattr(runs, "_run_task", _dying_task)
    argv = ["sim", "--game", "lutin", "--seeds", "4", "--jobs", "2", "--hands", "1", "--json"]
    assert main(argv) == 1
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["runs"] < 4 and summary["failed"] == 0
    (said,) = [line for line in err.splitlines() if "worker process died" in line]
    assert said.startswith("trutnet sim: ") and "1" in said.split(": ")[-1]


def test_ctrl_c_stops_every_worker_of_a_parallel_run_at_once():
    """A person's Ctrl-C reaches the command and its workers (one process group): the
    command sums up the runs that ended (not lost), says it was interrupted after how
    many, and no worker goes on running seeds."""
    argv = ["sim", "--game", "trut", "--seeds", "500", "--jobs", "2", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "trutnet", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job
        # a terminal's Ctrl-C is heard: the test runner's worker may ignore SIGINT, and
        # an ignored signal stays ignored in a child
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    workers: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
            workers = children.read_text().split() if children.exists() else []
            time.sleep(0.02)  # polling for the event, with a deadline
        assert len(workers) == 2, "the two workers never started"
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "Traceback" not in err, err
        summary = json.loads(out)
        said = f"trutnet sim: interrupted after {summary['runs']} of 500 runs"
        assert err.strip().splitlines()[-1].startswith(said), err
        assert not [w for w in workers if Path(f"/proc/{w}").exists()], "a worker runs on"
    finally:  # whatever happened, nothing of it runs on past the test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


SEED_11 = ["--game", "lutin", "--seed", "11", "--loss", "0.2", "--kill", "0.02", "--json"]


def test_the_same_command_prints_the_same_runs_in_another_process():
    """Byte for byte across processes too (another hash seed): only the wall-clock
    figures differ."""
    wall = {"wall_seconds", "runs_per_second", "hands_per_second"}
    outputs = []
    for hash_seed in ("1", "2"):
        result = subprocess.run(
            [sys.executable, "-m", "trutnet", "sim", *SEED_11],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert result.returncode == 0, result.stderr
        outputs.append({k: v for k, v in json.loads(result.stdout).items() if k not in wall})
    assert outputs[0] == outputs[1]
    assert len(outputs[0]["digest"]) == 64


def test_the_summary_line_names_runs_faults_and_rates():
    result = sim_cli("--game", "lutin", "--seed", "7", "--loss", "0.2")
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert "\n" not in line
    assert line.startswith("Lutin & Troll") and ": 1 run: 1 finished, " in line and "lost " in line
    assert "runs/s" in line and "hands per simulated s" in line
    assert re.search(r"; a hand: [\d.]+ sequential steps, \d+ KiB published$", line), line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--seedz", "3"], "unrecognized arguments: --seedz 3; did you mean --seed?"),
        (["--loss", "2"], "argument --loss: must be 0..1, not 2"),
        (["--drift", "1"], "argument --drift: must be 0 to below 1, not 1"),
        (["--seeds", "0"], "argument --seeds: must be 1..1000000, not 0"),
        (["--newcomers", "5"], "argument --newcomers: must be 0..4, not 5"),
        (["--game", "nope"], "unknown game 'nope'"),
        (["--without", "3-1"], "argument --without: not fault numbers like 1-4,7: '3-1'"),
    ],
)
def test_a_bad_argument_gets_one_line(args, said):
    result = sim_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("trutnet sim: error: "), lines
    assert said in lines[0]


def test_the_replay_command_gives_the_same_game_and_faults():
    from trutnet.cli import _parser
    from trutnet.cli.games import game_of

    game = make_game("trut", {"players": 2})
    faults = dataclasses.replace(Faults(), loss=0.25, kill=0.01, bound=900.0)
    command = replay_command(game, bots(game), faults, 42)
    assert command.startswith("trutnet sim --game trut --players 2 ")
    args = _parser().parse_args(command.split()[1:])
    assert args.seed == 42 and args.seeds == 1 and args.without == frozenset()
    assert faults_of(args) == faults
    assert game_of(args).config_dict() == game.config_dict()


def test_signs_travel_under_faults_and_nobody_reads_one_not_shown(monkeypatch):
    """Truco's signs (9.8, K15) in the simulator: each bot signs once a hand, draws
    catch some, under loss, duplicates and delays; after every sign message a process
    takes in, a seat reads a sign only as a partner or a catcher, and reads the card
    its signer chose. The signs travel on their own draws: the table's log is the same
    bytes with them as without (the bots do not read them here)."""
    from trutnet.sim.signs import SimSigns

    faults = dataclasses.replace(CLEAN, loss=0.1, dup=0.1, hands=1)
    result = run("truco", 8, faults)
    assert result.violation is None, result
    assert result.counts["signs_made"] == 4 and result.counts.get("signs_caught"), result.counts
    monkeypatch.setattr(SimSigns, "moved", lambda self, node: None)
    silent = run("truco", 8, faults)
    assert "signs_made" not in silent.counts and silent.digest == result.digest


def test_the_simulator_finds_a_sign_read_by_a_seat_it_was_not_shown_to(monkeypatch):
    """The invariant bites: a board that opens every sign for any seat (a leak put
    back on purpose) is reported as a ``leak`` naming the reader."""
    from trutnet.protocol.signs import SignBoard
    from trutnet.sim.signs import SimSigns

    chosen: dict[bytes, str] = {}
    real = SimSigns.moved

    def remember(self, node):  # what each signer chose, to leak it
        real(self, node)
        chosen.update(self.chosen)

    monkeypatch.setattr(SimSigns, "moved", remember)
    monkeypatch.setattr(SignBoard, "read", lambda self, sign, seat, key: chosen.get(sign.id))
    result = run("truco", 8, dataclasses.replace(CLEAN, hands=1))
    assert str(result.violation).startswith("leak: "), result
    assert "not shown to it" in str(result.violation), result


def test_a_spectator_does_not_end_away_while_a_seat_still_holds_the_end():
    """Found by ``trutnet sim --game truco --players 4 --seeds 1000`` (seed 663): after
    minutes stalled on a seat gone for good, the table abandoned it; the spectator lost
    the abandon, and ended away a second after the seats' ``done``, while seat 2 still
    lingered to answer its sync. Its follow timeout now runs from the ``done``."""
    game = make_game("truco", {"players": 4})
    result = run_seed(game, 663, Faults(), bots(game))
    assert result.violation is None and result.status == "abandoned", result
    assert "away" not in result.counts, result.counts  # the spectator read the abandon
