"""A rematch as people ask for it (docs/protocol.md 9.7): Ana hosts with ``trutnet
play``, Bob joins with ``trutnet join``, each on a real terminal at 80x24 in tmux,
over Ana's own broker on loopback. They play a whole game of Trut Gâtinaise; on the
end screens, Ana presses r (her screen waits for Bob, his says she wants one), Bob
presses r, and both screens leave for a new table: a fresh table id, the same game,
Hand 1. A screen never waits on a sleep: each read is what the screen shows.
"""

from __future__ import annotations

import shutil
import time

import pytest

from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, Screen, person_env, screen  # noqa: F401
from tests.runtime.test_watch import table_of_play

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def play_both_until(terms: list[Screen], needle: str, timeout: float) -> list[str]:
    """Play both people's turns (a card, Joue ! to a Trut, a pass where Trut or pass is
    asked, Enter after a hand) until ``needle`` is on both screens."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = [term.text() for term in terms]
        if all(needle in text for text in texts):
            return texts
        for term, text in zip(terms, texts, strict=True):
            if needle in text:
                continue
            if "▶ Enter" in text or "press Enter" in text:
                term.keys("Enter")
            elif "▶ A Trut!" in text:
                term.keys("j")
            elif "t to Trut" in text and "p to pass" in text:
                term.keys("p")
            elif "▶" in text:
                term.keys("1")
        time.sleep(0.2)  # the screens' pace: read them again (a poll, not a synchronisation)
    raise AssertionError(f"{needle!r} never came on both:\n" + "\n".join(t.text() for t in terms))


@pytest.mark.timeout(300)
def test_two_people_ask_for_a_rematch_and_a_new_table_starts(tmp_path, screen):  # noqa: F811
    ana_home, bob_home = tmp_path / "ana", tmp_path / "bob"
    ana = screen()
    play = ["play", "--players", "2", "--variant", "gatinaise", "--name", "Ana"]
    ana.start(
        [*TRUTNET, *play, "--bind", "127.0.0.1", "--no-announce"], person_env(ana_home), tmp_path
    )
    ana.wait_for("Lobby", timeout=60)
    first, url = table_of_play(ana_home)
    bob = screen()
    bob.start(
        [*TRUTNET, "join", "--broker", url, "--table", first, "--name", "Bob"],
        person_env(bob_home),
        tmp_path,
    )
    for text in play_both_until([ana, bob], "Game over — ", timeout=200):
        fits(text)
        assert " r rematch  Tab chat  q quit" in text, text
    ana.keys("r")
    fits(ana.wait_for("Rematch: you want one; waiting for Bob", timeout=30))
    fits(bob.wait_for("Ana wants a rematch: r accepts", timeout=30))
    bob.keys("r")
    for term in (ana, bob):
        text = term.wait_for("Your hand:", timeout=90)  # the next table's first hand
        fits(text)
        assert "Trut — Gâtinaise, 2 players" in text and "Game over" not in text, text
    second, same_url = table_of_play(ana_home)
    assert second != first and same_url == url  # a fresh table, on Ana's same broker
    for term in (ana, bob):
        term.keys("q")
        term.wait_for("Quit the game? y/n", timeout=10)
        term.keys("y")
        status, text = term.exit_status(timeout=60)
        assert status == 0 and "Traceback" not in text, text
        assert "rematch:" in text, text  # said on leaving for the next table
