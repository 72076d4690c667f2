"""A table's turn clock as people meet it (docs/protocol.md 7.11), each screen a real
terminal at 80x24 in tmux, the other seats separate OS processes over the host's own
broker on loopback: the clock is shown in the lobby, on the rule above the log of the
seat to act and in everyone's waiting line; when it runs out, a person who allowed it
(``--bot-on-timeout``) has a bot decide, and one who did not is reported and, the
others' void timeout later, the game is abandoned. Every wait is on what a screen or
a process reports.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from tests.network_helpers import spawn
from tests.runtime.test_watch import table_of_play

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
PLAY = [*TRUTNET, "play", "--bind", "127.0.0.1", "--no-announce"]


@pytest.mark.timeout(180)
def test_the_clock_is_in_the_lobby_and_a_late_person_s_bot_decides_also_resumed(
    tmp_path,
    screen,  # noqa: F811
):
    lobby = screen()
    lobby.start([*PLAY, "--players", "3", "--clock", "300+5"], person_env(tmp_path / "a"), tmp_path)
    text = lobby.wait_for("Seats taken: 1/3", timeout=60)
    fits(text)
    assert " Clock: 5:00 each, +5 s a decision; a seat out of time is reported as stalled." in text
    lobby.keys("q")
    assert lobby.exit_status(timeout=60)[0] == 0

    ana = screen()
    args = ["--players", "2", "--bots", "1", "--clock", "5", "--bot-on-timeout", "--name", "Ana"]
    ana.start([*PLAY, *args], person_env(tmp_path / "ana"), tmp_path)
    text = ana.wait_for("⏱ your time: ", timeout=60)
    fits(text)
    assert re.search(r" ── ⏱ your time: 0:0[0-5] ─+ Tab: chat ─", text), text
    # Ana never presses a key: each time her 5 s run out, a bot decides for her
    text = ana.wait_for("⏱ Your time ran out: a bot decides for you this time", timeout=60)
    fits(text)
    ana.wait_for("Ana ", timeout=30)  # her seat's move, in the log
    ana.keys("q")
    ana.wait_for("Quit the game? y/n", timeout=10)
    ana.keys("y")
    status, text = ana.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text, text

    # She comes back to her seat: the lobby is gone, the clock and her choice are in
    # her seat's folder, so her time counts again and the bot still decides for her
    back = screen()
    back.start([*TRUTNET, "join", "--resume"], person_env(tmp_path / "ana"), tmp_path)
    text = back.wait_for("⏱ your time: ", timeout=60)
    fits(text)
    assert re.search(r" ── ⏱ your time: 0:0[0-5] ─", text), text
    fits(back.wait_for("⏱ Your time ran out: a bot decides for you this time", timeout=60))
    back.keys("q")
    back.wait_for("Quit the game? y/n", timeout=10)
    back.keys("y")
    status, text = back.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text, text


@pytest.mark.timeout(240)
def test_a_person_out_of_time_is_reported_and_the_others_abandon(tmp_path, screen):  # noqa: F811
    ana = screen()
    args = ["--players", "2", "--clock", "10", "--name", "Ana", "--linger", "2"]
    ana.start([*PLAY, *args], person_env(tmp_path / "ana"), tmp_path)
    fits(ana.wait_for("Lobby", timeout=60))
    table, url = table_of_play(tmp_path / "ana")
    # Bob's seat is a bot process that waits 60 s before it calls anyone stalled, but
    # the table's clock says 10: it reports Ana when her time runs out, votes 3 s later
    patient = ["--stall-timeout", "60", "--void-timeout", "3", "--name", "Bob", "--json"]
    bob = spawn(["join", "--broker", url, "--table", table, "--bot", "heuristic", *patient])
    eve = screen()
    eve.start([*TRUTNET, "watch", "--broker", url, "--table", table, "--name", "Eve"],
              person_env(tmp_path / "eve"), tmp_path)  # fmt: skip
    try:
        text = ana.wait_for(" ▶ ", timeout=90)  # her turn: a card to play, or a Trut to answer
        fits(text)
        assert re.search(r"⏱ your time: 0:(10|0\d) ", text), text
        text = eve.wait_for("Waiting for Ana", timeout=60)
        fits(text)
        assert re.search(r"Waiting for Ana .*\(\d+s; ⏱ 0:(10|0\d) left\)", text), text
        text = ana.wait_for("⏱ Your time ran out: play now, or the others may", timeout=30)
        fits(text)
        text = ana.wait_for("Game over — abandoned", timeout=60)
        fits(text)
        fits(eve.wait_for("Game over — abandoned", timeout=60))
        out, _ = bob.communicate(timeout=60)
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        kinds = [e["event"] for e in events]
        ran_out = kinds.index("clock")
        assert events[ran_out]["seat"] == 0 and events[ran_out]["bot"] is False
        stall = next(e for e in events[ran_out:] if e["event"] == "stall")
        assert stall["seat"] == 0 and 9 <= stall["seconds"] < 60, stall  # the clock's, not 60
        assert "vote" in kinds[ran_out:], kinds
    finally:
        if bob.poll() is None:
            bob.kill()
            bob.communicate(timeout=30)
    for term in (ana, eve):
        term.keys("q")
        status, text = term.exit_status(timeout=60)
        assert status == 0 and "Traceback" not in text, text
