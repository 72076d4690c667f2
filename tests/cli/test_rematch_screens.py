"""A rematch as people ask for it (docs/protocol.md 9.7): Ana hosts with ``trutnet
play``, Bob joins with ``trutnet join``, each on a real terminal at 80x24 in tmux,
over Ana's own broker on loopback. Bob's laptop freezes mid-game (SIGSTOP) when the
table waits for him: Ana's side abandons the game (7.7); Bob's laptop wakes (SIGCONT)
and his screen reads the abandon. On the two end screens Ana presses r (her screen
waits for Bob, his says she wants one), Bob presses r, and both screens leave for a
new table: a fresh table id on Ana's same broker, the same game, a first hand. Every
wait is on what a screen shows.
"""

from __future__ import annotations

import os
import shutil
import signal

import pytest

from tests.cli.test_leaving import fits, play_until, trutnet_pid
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from tests.runtime.test_watch import table_of_play

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.mark.timeout(240)
def test_two_people_ask_for_a_rematch_and_a_new_table_starts(tmp_path, screen):  # noqa: F811
    ana_home, bob_home = tmp_path / "ana", tmp_path / "bob"
    timers = ["--stall-timeout", "1", "--void-timeout", "3"]
    ana = screen()
    play = ["play", "--players", "2", "--name", "Ana", "--bind", "127.0.0.1", "--no-announce"]
    ana.start([*TRUTNET, *play, *timers], person_env(ana_home), tmp_path)
    ana.wait_for("Lobby", timeout=60)
    first, url = table_of_play(ana_home)
    bob = screen()
    join = ["join", "--broker", url, "--table", first, "--name", "Bob", *timers]
    bob.start([*TRUTNET, *join], person_env(bob_home), tmp_path)
    bob.wait_for("Your hand:", timeout=90)
    play_until(ana, "Waiting for Bob", timeout=90)  # Ana's turns, until the table waits for Bob
    bob_pid = trutnet_pid(bob)
    os.kill(bob_pid, signal.SIGSTOP)  # and Bob's laptop freezes
    try:
        text = ana.wait_for("Game over — abandoned", timeout=90)
        fits(text)
        assert text.rstrip().splitlines()[-1] == " r rematch  q quit", text
    finally:
        os.kill(bob_pid, signal.SIGCONT)  # and wakes: it reads the abandon
    fits(bob.wait_for("Game over — abandoned", timeout=90))
    ana.keys("r")
    fits(ana.wait_for("Rematch: you want one; waiting for Bob", timeout=30))
    fits(bob.wait_for("Ana wants a rematch: r accepts", timeout=30))
    bob.keys("r")
    for term in (ana, bob):
        text = term.wait_for("Your hand:", timeout=90)  # the next table's first hand
        fits(text)
        assert "Trut — classic, 2 players" in text and "Game over" not in text, text
    second, same_url = table_of_play(ana_home)
    assert second != first and same_url == url  # a fresh table, on Ana's same broker
    for term in (ana, bob):
        term.keys("q")
        term.wait_for("Quit the game? y/n", timeout=10)
        term.keys("y")
        status, text = term.exit_status(timeout=60)
        assert status == 0 and "Traceback" not in text, text
        assert "rematch:" in text, text  # said on leaving for the next table
