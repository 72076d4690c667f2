"""The terminal client, driven for real: a whole game through the prompt-toolkit
application (pipe input, dummy output), and `trutnet play` in tmux at 80x24."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import time
import uuid

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from trutnet.client.app import TrutApp, play_with_ui
from trutnet.engine.games.trut import TrutConfig
from trutnet.net.broker import EmbeddedBroker
from trutnet.protocol.audit import audit
from trutnet.runtime.seat_process import host
from trutnet.runtime.table_runtime import Options
from trutnet.store import load_transcript

CARD = r"(?:10|[789JQKA])[♣♦♥♠]"
KEYS = {
    "play": "1",
    "answer": "j",
    "fortial": "t",
    "sing_ask": "p",
    "sing_agree": "c",
    "sing_count": "1",
}


def test_a_whole_game_against_a_bot_through_the_application(tmp_path):
    broker = EmbeddedBroker()
    endpoint = broker.start()
    seen: dict[str, str] = {}
    transcript = tmp_path / "game.json"

    async def scenario():
        with create_pipe_input() as pipe:
            ui = TrutApp("Test table", 2, input=pipe, output=DummyOutput())
            game = asyncio.create_task(
                play_with_ui(
                    lambda hooks: host(
                        TrutConfig(2),
                        [endpoint],
                        name="Me",
                        bots=1,
                        host_bot=None,
                        seed="ui-test",
                        hooks=hooks,
                        store=tmp_path / "store",
                        options=Options(linger=5),
                    ),
                    ui,
                    transcript,
                )
            )
            truted = False
            deadline = time.monotonic() + 240
            while not game.done() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
                text = ui.screen_text()
                lines = text.splitlines()
                assert all(len(line) <= 80 for line in lines), [x for x in lines if len(x) > 80]
                assert len(lines) <= 24, len(lines)
                obs = ui.observation()
                if ui.info.status == "over":
                    if "Transcript saved" in text:  # the end screen, once the file is written
                        seen.setdefault("end", text)
                        pipe.send_text("q")
                    continue
                if obs is None or obs.phase == "over":
                    continue
                if re.search(rf"Your hand: \[1\]{CARD}", text):
                    seen.setdefault("dealt", text)
                if "wins the hand" in text:
                    seen.setdefault("hand result", text)
                if "A Trut!" in text:
                    seen.setdefault("trut prompt", text)
                if obs.to_act != obs.seat:
                    if "not your turn" not in seen and obs.phase == "play":
                        pipe.send_text("t")
                        await asyncio.sleep(0.05)
                        seen["not your turn"] = ui.info.message
                    continue
                if ui.seat.pending:
                    continue
                if obs.phase == "play" and "no trut" not in seen:
                    pipe.send_text("c")  # nothing to fold: the screen says why
                    await asyncio.sleep(0.05)
                    seen["no trut"] = ui.info.message
                if obs.phase == "play" and not truted and any(str(a) == "trut" for a in obs.legal):
                    truted = True
                    pipe.send_text("t")
                    await asyncio.sleep(0.2)
                    seen["my trut"] = ui.screen_text()
                    continue
                if obs.phase == "keep":
                    pipe.send_text("123\r")
                else:
                    pipe.send_text(KEYS.get(obs.phase, "1"))
                await asyncio.sleep(0.05)
            return await asyncio.wait_for(game, 30)

    try:
        result = asyncio.run(scenario())
    finally:
        broker.stop()
    assert result is not None and result.winner in (0, 1)
    assert "Donneur" in seen["dealt"] and "Longs" in seen["dealt"] and "Petits" in seen["dealt"]
    assert "✓ verified:" in seen["dealt"]
    # The Trut shows in the state line, or (if the bot folded at once) in the log.
    assert "Trut by you" in seen["my trut"] or "Me calls Trut!" in seen["my trut"]
    assert "wins the hand" in seen["hand result"]
    assert seen["not your turn"].startswith("not your turn: waiting for")
    assert seen["no trut"] == "there is no Trut to answer now"
    assert "Game over" in seen["end"] and "Transcript saved" in seen["end"]
    assert "Score after each hand" in seen["end"]
    table_id, wires = load_transcript(transcript)
    assert audit(table_id, wires).ok


class Tmux:
    """A command in a real terminal (tmux, 80x24): read the screen, send keys."""

    def __init__(self, command: str) -> None:
        self.session = f"trutnet-{uuid.uuid4().hex[:6]}"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.session, "-x", "80", "-y", "24", command],
            check=True,
        )

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.session], capture_output=True, text=True
        ).stdout

    def wait_for(self, pattern: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.screen()
            if re.search(pattern, text):
                return text
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never appeared:\n{self.screen()}")

    def keys(self, *k: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.session, *k], check=True)

    def resize(self, x: int, y: int) -> None:
        subprocess.run(
            ["tmux", "resize-window", "-t", self.session, "-x", str(x), "-y", str(y)], check=True
        )

    def wait_gone(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = subprocess.run(["tmux", "has-session", "-t", self.session], capture_output=True)
            if alive.returncode != 0 or "$" in self.screen().strip()[-2:]:
                return
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)


NO_TMUX = pytest.mark.skipif(shutil.which("tmux") is None, reason="scripts/test.sh installs tmux")


@NO_TMUX
def test_trutnet_play_in_a_real_terminal_80x24_with_resize(tmp_path):
    env = f"XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    term = Tmux(
        f"{env} {sys.executable} -m trutnet play --players 2 --bots 1 --bind 127.0.0.1 "
        f"--no-announce --name Tester"
    )
    wait_for, keys = term.wait_for, term.keys
    try:
        text = wait_for(rf"Your hand: \[1\]{CARD}")
        assert "Trut — classic, 2 players" in text and "Tester" in text
        keys("?")
        assert "the words of the game" in wait_for("words of the game")
        keys("Escape")
        wait_for("Your hand")
        term.resize(120, 40)
        keys("?", "Escape")
        wait_for("Your hand")
        term.resize(80, 24)
        key_file = tmp_path / "config" / "trutnet" / "identity.key"
        assert key_file.stat().st_mode & 0o777 == 0o600  # the player's own key, private
        keys("q")
        wait_for("Quit the game")
        keys("y")
        term.wait_gone()
    finally:
        term.close()


def test_screens_show_blame_in_red_lobby_and_help():
    from trutnet.client.view import HELP, TableInfo, lobby_lines, plain, table_lines
    from trutnet.engine.games.trut import TrutGame

    state = TrutGame(TrutConfig(2)).new_initial_state()
    import random

    rng = random.Random(1)
    while state.phase != "play":
        state.apply(
            state.sample_chance(rng)
            if state.current_seat() == -1
            else rng.choice(state.legal_actions())
        )
    info = TableInfo(
        names=["Ana", "Bob"],
        fingerprints=["A", "B"],
        me=0,
        blame="seat 1 broke [shuffle-proof]: the shuffle proof does not verify",
    )
    lines = table_lines(state.observation(0), info)
    blame = [line for line in lines if any("CHEAT DETECTED" in text for _, text in line)]
    assert blame and blame[0][0][0] == "class:blame"  # shown in the blame (red) style
    assert "seat 1 broke [shuffle-proof]" in plain(lines)
    info.lobby = [(0, "Ana", "AAAA-BBBB-CCCC-DDDD")]
    lobby = plain(lobby_lines(info, "Ana's table", 4))
    assert "Seats taken: 1/4" in lobby and "AAAA-BBBB-CCCC-DDDD" in lobby
    assert "seat 3: (empty)" in lobby and "b: seat a bot" in lobby
    for word in (
        "Trut!",
        "Joue !",
        "Je me couche",
        "Petit",
        "Long",
        "Patté",
        "Pourrie",
        "Donneur",
        "Fortial",
    ):
        assert word in HELP
    assert all(len(line) <= 80 for line in HELP.splitlines())


def test_the_log_names_players_instead_of_seat_numbers():
    from trutnet.client.app import _with_names

    names = ["Ana", "Bob"]
    assert _with_names("  seat 1 calls Trut!", names) == "  Bob calls Trut!"
    assert _with_names("  seat 0: Je me couche (folds)", names) == "  Ana: Je me couche (folds)"
    assert _with_names("  => team 0+2 wins", names) == "  => team 0+2 wins"  # teams stay
    assert _with_names("  seat 7 left", names) == "  seat 7 left"  # unknown seats stay


def killed_joiner(tmp_path, seed):
    """A 2-seat table over an embedded broker whose joiner (seat 1, store ``p1``) is
    killed with kill -9 after 40 entries; returns the broker and the host process."""
    import os
    import signal

    from .network_helpers import start_table
    from .test_network_faults import wait_for_entries

    broker = EmbeddedBroker()
    url = broker.start().url
    _, (host_proc, me) = start_table(url, 2, tmp_path, seed)
    wait_for_entries(tmp_path / "p1", 40)
    os.kill(me.pid, signal.SIGKILL)
    me.communicate()
    return broker, host_proc


def test_a_player_killed_mid_game_comes_back_on_screen(tmp_path):
    """`trutnet join --resume --store DIR` without --bot: the person's seat, killed with
    kill -9, is played on screen again from its files, and the game ends on one hash."""
    from trutnet.runtime.seat_process import resume

    from .network_helpers import result_of

    transcript = tmp_path / "resumed.json"
    broker, host_proc = killed_joiner(tmp_path, "resume-ui")
    try:

        async def scenario():
            with create_pipe_input() as pipe:
                ui = TrutApp("resumed", 0, input=pipe, output=DummyOutput())
                game = asyncio.create_task(
                    play_with_ui(
                        lambda hooks: resume(
                            tmp_path / "p1", None, None, Options(linger=5), hooks=hooks, name="Me"
                        ),
                        ui,
                        transcript,
                    )
                )
                seen_hand = False
                deadline = time.monotonic() + 240
                while not game.done() and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                    if ui.info.status == "over":
                        if "Transcript saved" in ui.screen_text():
                            pipe.send_text("q")
                        continue
                    obs = ui.observation()
                    if obs is None or obs.to_act != obs.seat or ui.seat.pending:
                        continue
                    seen_hand = seen_hand or "Your hand: [1]" in ui.screen_text()
                    pipe.send_text("123\r" if obs.phase == "keep" else KEYS.get(obs.phase, "1"))
                return await asyncio.wait_for(game, 60), seen_hand

        result, seen_hand = asyncio.run(scenario())
        host_result = result_of(host_proc)
    finally:
        broker.stop()
    assert result is not None and result.halted is None
    assert seen_hand  # the person played their own cards again
    assert result.state_hash == host_result["state_hash"]
    table_id, wires = load_transcript(transcript)
    assert audit(table_id, wires).ok


@NO_TMUX
def test_join_resume_without_a_bot_opens_the_screen_in_a_real_terminal(tmp_path):
    broker, _ = killed_joiner(tmp_path, "resume-tmux")
    term = Tmux(
        f"XDG_DATA_HOME={tmp_path} {sys.executable} -m trutnet join --resume "
        f"--store {tmp_path / 'p1'} --name Back"
    )
    try:
        text = term.wait_for(rf"Your hand: \[1\]{CARD}")
        assert "Trut — classic, 2 players" in text and "p1" in text
        term.keys("q")
        term.wait_for("Quit the game")
        term.keys("y")
        term.wait_gone()
    finally:
        term.close()
        broker.stop()
