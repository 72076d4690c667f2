"""The simulator's model of each person's screen (``trutnet/sim/screens.py``): the
terminal client's own screen functions run on every simulated process. Each test
re-introduces a fault of the screen and shows the simulator finds it on a seed where
it shows, and that the same seed passes as the code is."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import trutnet.client.table_lines as table_lines
import trutnet.sim.screens as screens
from tests.sim.test_sim import LATE, EquivocatingSim, bots, run
from trutnet.client.view import TableInfo
from trutnet.engine.registry import make_game
from trutnet.sim import CLEAN, run_seed
from trutnet.sim.screens import screen_of


def test_a_screen_that_asks_a_seat_to_play_an_abandoned_game_is_found(monkeypatch):
    """A seat back after the others abandoned the game: its screen must say the game
    was abandoned, not ask for a card (the client draws the abandoned frame first)."""

    def no_abandoned_frame(obs: Any, info: TableInfo) -> str:
        return "over" if obs.to_act is None and not info.paused else "table"

    assert run("lutin", 3, LATE).violation is None  # as the code is
    monkeypatch.setattr(screens, "game_frame", no_abandoned_frame)
    result = run("lutin", 3, LATE)
    assert result.status == "failed"
    assert result.violation.startswith("screen: seat 1's screen asks it to decide"), result
    assert result.violation.endswith("the game is over"), result


def test_a_stopped_table_whose_screen_keeps_waiting_is_found(monkeypatch):
    """A table stopped on a cheat: the screens must say so, not spin on."""
    game = make_game("trut", {"players": 4})
    assert run_seed(game, 0, CLEAN, bots(game), sim_class=EquivocatingSim).status == "stopped"
    health = table_lines.show_health

    def silent_stop(info: Any, runtime: Any, replica: Any, away_since: Any = None) -> None:
        health(info, runtime, replica, away_since)
        if replica.halted is not None:
            info.alert = info.alert_next = ""  # the fault: no word of the stop

    monkeypatch.setattr(table_lines, "show_health", silent_stop)
    result = run_seed(game, 0, CLEAN, bots(game), sim_class=EquivocatingSim)
    assert result.status == "failed", result
    assert "table stopped, its screen does not say so" in result.violation, result


RESTARTS = dataclasses.replace(CLEAN, restart=0.05)  # the broker restarts, often


def test_a_screen_that_hides_a_lost_broker_is_found(monkeypatch):
    """While the broker restarts, every process's client has lost it: its screen must
    say so (what was lost, that it retries, that nothing played is sent)."""
    assert run("lutin", 0, RESTARTS).violation is None  # as the code is
    monkeypatch.setattr(table_lines, "lost_text", lambda lost, spectator: ("", ""))
    result = run("lutin", 0, RESTARTS)
    assert result.status == "failed" and result.counts["broker_restarted"], result
    assert result.violation == "screen: seat 0 lost the broker, its screen does not say so"


def test_a_screen_that_asks_for_a_move_with_no_broker_is_found(monkeypatch):
    """A seat whose turn it is when the broker goes: its screen must not ask for a
    move it cannot send (the client then refuses the keys)."""
    assert run("lutin", 0, RESTARTS).violation is None
    health = table_lines.show_health

    def online_always(info: TableInfo, *args: Any) -> None:
        health(info, *args)
        info.offline = False

    monkeypatch.setattr(table_lines, "show_health", online_always)
    result = run("lutin", 0, RESTARTS)
    assert result.status == "failed", result
    assert result.violation == "screen: seat 0's screen asks it to decide: the broker is down"


def test_a_screen_silent_on_a_stalled_seat_is_found(monkeypatch):
    """A seat gone for good: once the table has waited for it past the stall timeout,
    every other screen must say who the table waits for, and what comes next."""
    gone = dataclasses.replace(CLEAN, kill=0.01, gone=1.0, void_timeout=30.0)
    assert run("lutin", 1, gone).status == "abandoned"  # as the code is
    monkeypatch.setattr(table_lines, "stall_text", lambda stall, names, me: ("", ""))
    result = run("lutin", 1, gone)
    assert result.status == "failed", result
    assert result.violation == (
        "screen: seat 0 waits for seat 1 past the stall timeout, its screen does not say so"
    )


@pytest.mark.parametrize("name", ["trut", "truco", "lutin"])
def test_every_seat_reads_the_end_of_a_finished_game(name):
    """A whole clean game: at the end each seat's and the spectator's screen is the
    end frame, and it says who won."""
    from tests.sim.test_sim import game_for
    from trutnet.sim.network import Sim

    game = game_for(name)
    ends = []

    class Ending(Sim):
        def run(self) -> Any:
            result = super().run()
            cache: dict = {}
            ends.extend(screen_of(self, n, cache, drawn=True) for n in self.nodes)
            return result

    result = run_seed(game, 1, CLEAN, bots(game), sim_class=Ending)
    assert result.status == "finished", result
    seen = [s for s in ends if s is not None]
    assert seen and {s.frame for s in seen} == {"over"}, [s.frame for s in seen]
    assert len(seen) == game.num_players() + 1  # every seat, and the spectator
    assert all(s.text.strip() and not s.your_turn for s in seen)
