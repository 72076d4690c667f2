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


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is installed by scripts/test.sh")
def test_trutnet_play_in_a_real_terminal_80x24_with_resize(tmp_path):
    session = f"trutnet-{uuid.uuid4().hex[:6]}"
    env = f"XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    command = (
        f"{env} {sys.executable} -m trutnet play --players 2 --bots 1 --bind 127.0.0.1 "
        f"--no-announce --name Tester"
    )
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24", command], check=True
    )

    def screen() -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
        ).stdout

    def wait_for(pattern: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = screen()
            if re.search(pattern, text):
                return text
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never appeared:\n{screen()}")

    def keys(*k: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", session, *k], check=True)

    try:
        text = wait_for(rf"Your hand: \[1\]{CARD}")
        assert "Trut — classic, 2 players" in text and "Tester" in text
        keys("?")
        assert "the words of the game" in wait_for("words of the game")
        keys("Escape")
        wait_for("Your hand")
        subprocess.run(
            ["tmux", "resize-window", "-t", session, "-x", "120", "-y", "40"], check=True
        )
        keys("?", "Escape")
        wait_for("Your hand")
        subprocess.run(["tmux", "resize-window", "-t", session, "-x", "80", "-y", "24"], check=True)
        key_file = tmp_path / "config" / "trutnet" / "identity.key"
        assert key_file.stat().st_mode & 0o777 == 0o600  # the player's own key, private
        keys("q")
        wait_for("Quit the game")
        keys("y")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            alive = subprocess.run(["tmux", "has-session", "-t", session], capture_output=True)
            if alive.returncode != 0 or "$" in screen().strip()[-2:]:
                break
            time.sleep(0.2)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


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
