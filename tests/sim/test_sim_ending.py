"""The end of a game in ``trutnet sim`` (docs/protocol.md 9.2): a finished seat says
``done`` and lingers for the others, then leaves; a process that comes back after they
left finds the game ended while it was away, never a table that waits for ever; and
the simulator catches a process that never learns it, and others that leave too early.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from trutnet.bots import default_bot
from trutnet.engine.registry import make_game
from trutnet.protocol.done import DoneBoard, done_message
from trutnet.sim import CLEAN, Faults, run_seed
from trutnet.sim.ending import SimEnd
from trutnet.sim.network import Sim

# a seat killed mid-game, back after up to 300 s: the others replace it with the
# newcomer, finish, linger and leave before it is back
BACK = dataclasses.replace(CLEAN, kill=0.02, down=300.0, void_timeout=30.0, newcomers=1)


def trut4() -> Any:
    return make_game("trut", {"players": 4})


def run(faults: Faults, seed: int, **kwargs: Any) -> Any:
    game = trut4()
    return run_seed(game, seed, faults, [default_bot(game.name)] * 4, **kwargs)


def test_a_seat_back_after_everyone_left_finds_the_game_ended_while_it_was_away():
    """No spectator here: the sim's answers every sync and never leaves (``trutnet
    watch`` answers none), which would hand the seat the end."""
    sims: list[Sim] = []
    result = run(BACK, 0, on_sim=sims.append, spectator=False)
    assert result.violation is None and result.status == "finished", result
    assert result.counts["done_said"] >= 3 and result.counts["left"] >= 3, result.counts
    assert result.counts["away"] == 1 and result.counts["restarted"] == 1, result.counts
    nodes = sims[0].nodes
    [back] = [n for n in nodes if n.left == "away"]
    table = max((n.replica for n in nodes if n.left == "left"), key=lambda r: len(r.log))
    ended = [e.id for e in table.log.entries]
    mine = [e.id for e in back.replica.log.entries]
    assert len(mine) < len(ended)
    # behind, and apart only where the table overrode the entry it wrote before it died
    # with the void that gave its seat to the newcomer (7.8), which it never heard of
    apart = next(k for k, (a, b) in enumerate(zip(mine, ended, strict=False)) if a != b)
    assert table.log.entries[apart].type == "void", table.log.entries[apart].type
    assert back.replica.log.entries[apart].seat == back.seat
    assert back.replica.expected() is not None  # it did not have the end: it was told


class DeafEnd(SimEnd):
    """The fault re-introduced: a process that never learns its game ended elsewhere
    (no ``over_elsewhere``)."""

    def tick(self, node: Any) -> bool:
        board = self.board(node)
        board.over_elsewhere = lambda *args: False  # type: ignore[method-assign]
        return super().tick(node)


class DeafSim(Sim):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.end = DeafEnd(self)


def test_the_sim_finds_a_process_that_never_learns_its_game_ended_while_it_was_away():
    """Without the spectator (the sim's answers every sync and never leaves, unlike
    ``trutnet watch``), nobody is left to tell the seat that comes back."""
    assert run(BACK, 0, spectator=False).counts["away"] == 1  # as it should: told, ends
    sooner = dataclasses.replace(BACK, give_up=240.0)  # it gives up, reported, sooner
    result = run(sooner, 0, sim_class=DeafSim, spectator=False)
    assert result.status == "failed", result
    assert result.violation.startswith("stuck: seat "), result.violation
    assert "gave up, not abandoned" in result.violation


class HastyEnd(SimEnd):
    """The fault re-introduced: a finished seat that leaves as soon as it said done,
    without lingering for a seat or a spectator still behind."""

    def tick(self, node: Any) -> bool:
        index = self.sim.nodes.index(node)
        if index in self.said:
            return self._leave(node, "left")
        return super().tick(node)


class HastySim(Sim):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.end = HastyEnd(self)


LOSSY = dataclasses.replace(CLEAN, loss=0.3)


def test_the_sim_finds_seats_that_leave_before_the_others_have_the_end():
    """Without a spectator (the sim's answers every sync and never leaves, unlike
    ``trutnet watch``): a seat a lost message kept behind is left without the end.
    Lutin & Troll, the shortest game: seeds where it happens, and one where not."""
    game = make_game("lutin", {})
    for seed, hasty in ((0, True), (2, True), (1, False)):
        result = run_seed(game, seed, LOSSY, ["heuristic"] * 2, spectator=False, sim_class=HastySim)
        if hasty:
            assert result.violation.startswith("left_behind: seat "), result.violation
        honest = run_seed(game, seed, LOSSY, ["heuristic"] * 2, spectator=False)
        assert honest.violation is None and honest.status == "finished", honest
        assert "away" not in honest.counts  # lingering, every process has the end


def test_a_done_board_counts_a_seat_done_only_at_this_log_s_head_and_in_its_own_name():
    """The board the runtime and the sim share (unit level: no clock, no network)."""
    sims: list[Sim] = []
    run(dataclasses.replace(CLEAN, hands=1), 1, on_sim=sims.append)
    nodes = sims[0].nodes
    replica = nodes[0].replica
    board = DoneBoard(sims[0].table_id)
    head = replica.log.head
    assert board.waiting_for(replica, {0}) == {1, 2, 3}
    board.read(done_message(sims[0].table_id, head, [(nodes[1].identity, 1)]), replica, 5.0)
    assert board.waiting_for(replica, {0}) == {2, 3}
    elsewhere = b"\x07" * 32  # a head this log lacks: ended past it
    for seat in (1, 2, 3):
        board.read(
            done_message(sims[0].table_id, elsewhere, [(nodes[seat].identity, seat)]), replica, 5.0
        )
    assert board.ended_elsewhere(replica, 5.5) == []  # within the grace of a second
    assert board.ended_elsewhere(replica, 6.5) == [1, 2, 3]
    assert board.over_elsewhere(replica, {0}, 6.5)
    assert not board.over_elsewhere(replica, set(), 6.5)  # seat 0 did not say so


def test_a_done_board_says_since_when_a_process_is_stranded():
    """The follow timeout runs from the ``done`` that stranded a process, not from its
    last progress (seed 663 of four-player Truco): a seat, from the last of the others;
    a process with no seat, from the first."""
    sims: list[Sim] = []
    run(dataclasses.replace(CLEAN, hands=1), 1, on_sim=sims.append)
    nodes, table_id = sims[0].nodes, sims[0].table_id
    replica = nodes[0].replica
    board = DoneBoard(table_id)
    elsewhere = b"\x07" * 32
    for seat, at in ((1, 100.0), (2, 140.0)):
        board.read(done_message(table_id, elsewhere, [(nodes[seat].identity, seat)]), replica, at)
    assert board.stranded_since(replica, set(), 100.5) is None  # within the grace
    assert board.stranded_since(replica, set(), 150.0) == 101.0  # the first one's word
    assert board.stranded_since(replica, {0}, 150.0) is None  # seat 3 has not said it
    board.read(done_message(table_id, elsewhere, [(nodes[3].identity, 3)]), replica, 160.0)
    assert board.stranded_since(replica, {0}, 160.5) is None
    assert board.stranded_since(replica, {0}, 170.0) == 161.0  # the last of the others
    assert board.stranded(replica, {0}, 170.0) and not board.stranded(replica, {0}, 160.5)
