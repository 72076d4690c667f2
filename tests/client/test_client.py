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

from trutnet.cli import main
from trutnet.client.app import TableApp
from trutnet.client.playing import play_with_ui
from trutnet.client.watch_app import WatchApp
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.net.broker import EmbeddedBroker
from trutnet.protocol.audit import audit
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import HostSetup, JoinSetup, host
from trutnet.store import load_transcript, read_transcript

CARD = r"(?:10|[789JQKA])[♣♦♥♠]"
KEYS = {
    "play": "1",
    "answer": "j",
    "fortial": "t",
    "sing_ask": "p",
    "sing_agree": "c",
    "sing_count": "1",
}


async def until(condition, timeout: float = 30) -> None:
    """Until ``condition()`` holds, or ``timeout`` s have passed (the assertion that
    follows then shows what was there instead)."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


@pytest.mark.network
def test_a_whole_game_against_a_bot_through_the_application(tmp_path, capsys):
    broker = EmbeddedBroker()
    endpoint = broker.start()
    seen: dict[str, str] = {}
    transcript = tmp_path / "game.json"

    async def scenario():
        with create_pipe_input() as pipe:
            ui = TableApp("Test table", 2, input=pipe, output=DummyOutput(), game="trut")
            game = asyncio.create_task(
                play_with_ui(
                    lambda hooks: host(
                        TrutGame(TrutConfig(2)),
                        [endpoint],
                        HostSetup(
                            name="Me",
                            bots=1,
                            host_bot=None,
                            seed="ui-test",
                            store=tmp_path / "store",
                            options=Options(linger=5),
                        ),
                        hooks=hooks,
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
                if ui.info.paused:  # the hand that just ended, kept
                    seen.setdefault("summary", text)
                    pipe.send_text("\r")  # Enter: on to the next hand
                    await until(lambda: not ui.info.paused)
                    continue
                if re.search(rf"Your hand: \[1\]{CARD}", text):
                    seen.setdefault("dealt", text)
                if "wins the hand" in text:
                    seen.setdefault("hand result", text)
                if "A Trut!" in text:
                    seen.setdefault("trut prompt", text)
                if obs.to_act != obs.seat:  # (a key then: "not your turn", tested where
                    continue  # the other seat's turn lasts, tests/games/test_game_plugins.py)
                if ui.seat.pending:
                    continue
                if obs.phase == "play" and "hint" not in seen and not ui.info.paused:
                    pipe.send_text("i")  # the search bot's hint, from this seat's replica
                    await until(lambda: ui.info.message.startswith("Hint: "))
                    seen["hint"] = ui.info.message
                    now = ui.observation()  # each legal move as the hint words it
                    said = [ui.frontend.action_words(str(a), now) for a in now.legal]
                    seen["legal"] = " | ".join(said)
                if obs.phase == "play" and "chat" not in seen:  # Tab: the chat, then back
                    pipe.send_text("\t")
                    await until(lambda: ui.info.typing == "")
                    pipe.send_text("/mute Nobody\r")
                    await until(lambda: "nobody called" in ui.screen_text())
                    seen["mute"] = ui.screen_text()
                    pipe.send_text("bonne chance !\r")
                    await until(lambda: "Me: bonne chance !" in ui.screen_text())
                    seen["chat"] = ui.screen_text()
                    pipe.send_text("\x1b")  # Esc: the game's log and keys again
                    await until(lambda: not ui.info.chat_open)
                    seen["after chat"] = ui.screen_text()
                if obs.phase == "play" and "no trut" not in seen:
                    pipe.send_text("c")  # nothing to fold: the screen says why
                    # (the hint before it names a Trut too: wait for the refusal's words)
                    await until(lambda: "to answer" in ui.info.message)
                    seen["no trut"] = ui.info.message
                if obs.phase == "play" and not truted and any(str(a) == "trut" for a in obs.legal):
                    truted = True
                    pipe.send_text("t")
                    await until(lambda: re.search("Trut by you|Me calls Trut!", ui.screen_text()))
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
    hinted = re.match(r"Hint: (.+?)(?: — | \(the only move)", seen["hint"])
    assert hinted and hinted.group(1) in seen["legal"].split(" | "), (seen["hint"], seen["legal"])
    assert "Donneur" in seen["dealt"] and "Longs" in seen["dealt"] and "Petits" in seen["dealt"]
    assert "✓ verified:" in seen["dealt"]
    # The Trut shows in the state line, or (if the bot folded at once) in the log.
    assert "Trut by you" in seen["my trut"] or "Me calls Trut!" in seen["my trut"]
    assert "wins the hand" in seen["hand result"]
    assert re.search(r"Hand \d+ is over\n(.*\n)* → .*(win|nobody)", seen["summary"])
    assert "Enter continue" in seen["summary"]
    assert seen["no trut"] == "there is no Trut to answer now"
    assert "Game over" in seen["end"] and "Transcript saved" in seen["end"]
    assert "Score after each hand" in seen["end"]
    table_id, wires = load_transcript(transcript)
    assert audit(table_id, wires).ok
    chat = seen["chat"].splitlines()
    assert any(" chat (Esc: back to the game's log) " in row for row in chat), seen["chat"]
    assert " ⚠ nobody called 'Nobody' at this table" in seen["mute"].splitlines()
    assert " Nothing said yet. Type, then Enter: everyone at the table reads it." in seen["mute"]
    rule = next(n for n, row in enumerate(chat) if "chat (Esc" in row)
    assert chat[rule + 1 : rule + 7] == ["", "", "", "", "", " Me: bonne chance !"], chat
    assert chat[rule + 7].startswith(" ✓ verified:"), chat  # the log's six rows, kept
    assert chat[-2].rstrip() == " say:" and chat[-1].startswith(" Enter send  Esc back"), chat
    assert "Tab: chat" in seen["after chat"] and " say:" not in seen["after chat"]
    assert len(read_transcript(transcript).chat) == 1  # kept with the game, and checked:
    capsys.readouterr()
    assert main(["verify", str(transcript)]) == 0
    said = capsys.readouterr().out
    assert "chat: 1 message (1 from seats, 0 from spectators), each signed by its author" in said


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


@pytest.mark.network
@NO_TMUX
def test_trutnet_play_in_a_real_terminal_80x24_with_resize(tmp_path):
    env = f"XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    term = Tmux(
        f"{env} {sys.executable} -m trutnet play --players 2 --bots 1 --bind 127.0.0.1 "
        f"--no-announce --name Tester; echo LEFT; sleep 60"
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
        text = wait_for(r"▶ (Your turn: play|A Trut!)")
        bar = text.rstrip().splitlines()[-1]
        first = " j Joue !" if "A Trut!" in text else " 1-3/←→+Enter play"
        assert bar.startswith(first) and bar.endswith("? help  q quit"), bar
        assert "p pass" not in bar and "s sing" not in bar
        keys("i")  # a hint, in a real terminal: one line, at once
        assert re.search(r"Hint: \S", wait_for("Hint: "))
        keys("q")
        wait_for("Quit the game")
        keys("n")
        keys("C-c")  # Ctrl-C asks the same question as q
        wait_for("Quit the game")
        keys("y")
        text = wait_for("LEFT", 30)
        seat = tmp_path / "trutnet" / "tables"
        folder = next(seat.iterdir()) / "seat-0"
        assert "Your seat's files are in:" in text
        # the person's only seat left mid-game: `join --resume` alone finds it
        assert "  trutnet join --resume\n" in text, text
        assert str(folder) in text.replace("\n", "")  # the folder, wrapped at 80 columns
        assert (folder / "log.bin").exists() and (folder / "secrets.json").exists()
    finally:
        term.close()


def test_screens_show_blame_in_red_lobby_and_help():
    from trutnet.client.frontend import frontend_for
    from trutnet.client.lobby_view import lobby_lines
    from trutnet.client.view import TableInfo, plain, table_lines
    from trutnet.games.trut.rules import TrutGame
    from trutnet.games.trut.screen import HELP

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
    lines = table_lines(frontend_for("trut"), state.observation(0), info)
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


NOTATION = re.compile(r"\b(?:10|[789JQKA])[cdhs]\b")  # "10s": the engine's, not people's


def test_the_narration_speaks_one_notation_with_names_and_plurals():
    """Every event of whole games, as the log says it: names (no seat numbers), suit
    symbols (no "10s"), one arrow, "1 Petit"/"2 Petits", "Bot 1 wins"/"Ana & Bob win"."""
    from trutnet.games.trut.narration import narrate
    from trutnet.games.trut.rules import TrutGame

    for players, variant, seed in ((2, "classic", 3), (3, "gatinaise", 2), (4, "classic", 7)):
        import random

        names = ["Ana", "Bob", "Eve", "Zoé"][:players]
        rng = random.Random(seed)
        state = TrutGame(TrutConfig(players, variant)).new_initial_state()
        lines: list[str] = []
        while not state.is_terminal():
            legal = None if state.current_seat() == -1 else state.legal_actions()
            action = state.sample_chance(rng) if legal is None else rng.choice(legal)
            before = len(state.events)
            state.apply(action)
            for event in state.events[before:]:
                lines += narrate(event, state, show_hands=False, names=names)
                default = narrate(event, state, show_hands=False)
                assert not any(NOTATION.search(x) or "->" in x for x in default), default
        text = "\n".join(lines)
        assert not NOTATION.search(text), NOTATION.search(text)
        assert "->" not in text and "=>" not in text and "→" in text
        assert not re.search(r"\bseats? \d", text)  # names only
        assert not re.search(r"\b1 (?:Longs|Petits|cards)\b", text)
        assert re.search(r"\b1 (?:Long|Petit)\b", text)
        winners = re.findall(r"^Game over: (.*)$", text, re.M)
        assert len(winners) == 1
        team = winners[0].rsplit(" ", 1)[0]
        verb = "win" if players == 4 else "wins"  # a pair ("Ana & Eve win"), or one player
        assert winners[0] == f"{team} {verb}", winners


def screen_rows(ui: TableApp) -> list[str]:
    text = ui.screen_text()
    rows = text.splitlines()
    too_wide = [row for row in rows if len(row) > 80]
    assert not too_wide and len(rows) <= 24, text
    assert "You wins" not in text and "You calls" not in text, text
    return rows


LONG_NAMES = ["Anne-Marguerite de Montmorency", "Bartholomew Cornelius Whitfield"]


@pytest.mark.parametrize("players", [2, 4])
def test_every_screen_of_a_whole_game_is_true_and_fits_80x24(players):
    """A whole game with full crypto (in memory), the screen read after every entry:
    chance steps are named ("Shuffling (X)…", "Dealing (X)…"), never "seat -1"; never
    "Your turn" over unknown "??" cards; the key bar lists only the keys legal now; the
    last hand stays until dismissed; an error is cleared at a new hand; every row fits
    80 columns and every screen 24 rows, with names of 30 characters."""
    import random

    from tests.tables import make_table
    from trutnet.bots import make_bot
    from trutnet.memory_table import MemoryTable, step, table_nonce

    names = [*LONG_NAMES, "Carl", "Dora"][:players]
    _, identities, peers = make_table(players, f"screens-{players}")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(players)]
    table.broadcast(
        peers[0].open_table(
            TrutGame(TrutConfig(players)),
            [i.public for i in identities],
            names,
            nonce=table_nonce(f"screens-{players}"),
        )
    )
    ui = TableApp("memory", players, output=DummyOutput(), game="trut")
    ui.seat.peer = peers[0]
    steps_seen: set[str] = set()
    summaries = bars = 0
    hand = -1
    while step(table):
        rows = screen_rows(ui)
        text = "\n".join(rows)
        obs = ui.observation()
        if obs is None or obs.phase == "over":
            continue
        assert "seat -1" not in text and "(seat" not in text
        hand_row = next((r for r in rows if r.startswith(" Your hand:")), "")
        if "Your turn" in text or "▶ A Trut" in text:
            assert "??" not in hand_row, text
        bar = rows[-1]
        if ui.info.paused:
            summaries += 1
            assert f" Hand {ui.frontend.last_hand.number + 1} is over" in rows
            assert any(r.startswith(" → ") and (" win" in r or "nobody" in r) for r in rows)
            assert bar == " Enter continue  ? help  q quit"
            if summaries == 1:  # it never goes by itself: an Enter after it would play
                ui._summary_until = time.monotonic() - 60
                screen_rows(ui)
                assert ui.info.paused
            assert ui.dismiss() and not ui.info.paused
            rows = screen_rows(ui)
            text, bar = "\n".join(rows), rows[-1]
        turn = next(r for r in rows if r[1:2] and r[1:2] in "▶⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
        if ui.info.step:
            label = ui.info.step.split(" (")[0]
            steps_seen.add(label)
            assert re.search(r" \((you|" + "|".join(map(re.escape, names)) + r")\)…", turn), turn
            assert bar == " ? help  q quit", bar
        elif obs.to_act != obs.seat:
            assert "Waiting for " in turn and bar == " ? help  q quit", (turn, bar)
        else:
            bars += 1
            assert turn.startswith(" ▶")
            assert ("t Trut" in bar) == any(str(a) == "trut" for a in obs.legal), (bar, obs.legal)
            assert ("p pass" in bar) == (obs.phase in ("fortial", "sing_ask")), bar
            assert ("j Joue" in bar) == (obs.phase == "answer"), bar
        if obs.hand_number != hand:  # a new hand: the last hand's error is gone
            if hand >= 0:
                assert ui.info.message == "", ui.info.message
            hand = obs.hand_number
            ui.info.message = "you cannot play now: answer the Trut with j or c"
    assert peers[0].replica.state.is_terminal()
    assert {"Exchanging keys", "Drawing for Donneur", "Shuffling", "Dealing"} <= steps_seen
    assert "Closing the hand" in steps_seen
    assert not any("card" in s for s in steps_seen)  # a play shows its card at once (7.4)
    assert summaries and bars
    # The log: names, suit symbols, one arrow.
    log = "\n".join(ui.info.log)
    assert not NOTATION.search(log) and "->" not in log and not re.search(r"seat \d", log)
    # The end screen: fits, labels its columns with the teams' names, scrolls.
    ui.info.transcript = "/home/someone/.local/share/trutnet/games/" + "ab" * 32 + ".json"
    assert " Hand" in screen_rows(ui)[3] and ui.dismiss()  # the last hand first, then:
    end = screen_rows(ui)
    assert end[0].startswith(" Game over — ")
    header = next(r for r in end if r.lstrip().startswith("Hand "))
    for number, team in enumerate(peers[0].replica.state.teams, start=1):
        label = " & ".join("You" if s == 0 else names[s] for s in team)
        if label in header:  # the names fit their column
            continue  # else the column says Team N, and the score names it in full:
        assert f"Team {number}" in header, (label, header)
        assert any(r.startswith(f" Team {number}: {label} ") for r in end), end
    history = ui.frontend.history
    shown = {int(r.split()[0]) for r in end if re.match(r"^ +\d+  ", r)}
    if len(shown) < len(history):  # scroll to the top: the first hands come back
        assert any("↑/↓" in r and f"of {len(history)}" in r for r in end)
        ui.info.end_scroll = 10_000
        top = screen_rows(ui)
        shown |= {int(r.split()[0]) for r in top if re.match(r"^ +\d+  ", r)}
        assert 1 in shown
        for _ in range(len(history)):
            ui.info.end_scroll = max(0, ui.info.end_scroll - 1)
            shown |= {int(r.split()[0]) for r in screen_rows(ui) if re.match(r"^ +\d+  ", r)}
    assert shown == set(range(1, len(history) + 1))


def test_one_hand_screen_wins_grammar_and_keys():
    """ "Bot 1 wins", "You & Bot 2 win"; "1 shuffle"; the key bar without a Trut."""
    import random

    from trutnet.client.frontend import frontend_for
    from trutnet.client.view import TableInfo, end_lines, key_bar, plain, table_lines
    from trutnet.games.trut.rules import TrutGame

    rng = random.Random(5)
    state = TrutGame(TrutConfig(2)).new_initial_state()
    while not state.is_terminal():
        legal = None if state.current_seat() == -1 else state.legal_actions()
        state.apply(state.sample_chance(rng) if legal is None else rng.choice(legal))
    loser = 1 - state.winner
    obs = state.observation(state.teams[loser][0])
    info = TableInfo(names=["Bot 1", "Bot 2"], fingerprints=["A", "B"], me=obs.seat)
    info.shuffles_verified, info.reveals_verified = 1, 2
    trut = frontend_for("trut")
    text = plain(end_lines(trut, obs, info))
    winner_name = info.names[state.teams[state.winner][0]]
    assert f"Game over — {winner_name} wins" in text and "1 shuffle, 2 reveals" in text
    mine = plain(end_lines(trut, state.observation(state.teams[state.winner][0]), info))
    assert "Game over — you win!" in mine
    assert key_bar(trut, obs, info) == " ? help  q quit"
    assert "1 shuffle," in plain(table_lines(trut, obs, info))
    # A long result line wraps in the log instead of being cut at 80 columns.
    from trutnet.client.view import wrap

    score = (
        "    score: Anne-Marguerite de Montmorency & Carl: 0 Longs 1 Petit | "
        "Bartholomew Cornelius Whitfield & Dora: 0 Longs 0 Petits"
    )
    rows = wrap(" " + score)
    assert len(rows) == 2 and all(len(r) <= 80 for r in rows)
    assert " ".join(r.strip() for r in rows) == score.strip()
    # A long game: the end screen keeps 24 rows and scrolls through every hand.
    trut.history = [(h, "won by", h % 2, [h // 2, h // 2], [0, 1]) for h in range(40)]
    seen: set[int] = set()
    for scroll in range(45):
        info.end_scroll = scroll
        rows = plain(end_lines(trut, obs, info)).splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows)
        assert any("↑/↓" in r for r in rows) and any("of 40" in r for r in rows)
        seen |= {int(r.split()[0]) for r in rows if re.match(r"^ +\d+  won", r)}
    assert seen == set(range(1, 41)) and info.end_scroll < 40  # clamped at the first hand
    assert re.search(r"hands 1-\d+ of 40", plain(end_lines(trut, obs, info)))
    # the person's own team after "won by", in the form that sentence takes
    from trutnet import i18n

    info.end_scroll = 0
    trut.history = [(0, "won by", obs.team, [1, 0], [0, 0])]
    said = {}
    for language in ("en", "fr", "es"):
        i18n.use(language)
        try:
            said[language] = plain(end_lines(trut, obs, info))
        finally:
            i18n.use("en")
    assert "    1  won by you " in said["en"], said["en"]
    assert "    1  gagnée par vous " in said["fr"] and "ganador: tú" in said["es"], said


def killed_joiner(tmp_path, seed):
    """A 2-seat table over an embedded broker whose joiner (seat 1, store ``p1``) is
    killed with kill -9 after 40 entries; returns the broker and the host process."""
    import os
    import signal

    from tests.net.test_network_faults import wait_for_entries
    from tests.network_helpers import start_table

    broker = EmbeddedBroker()
    url = broker.start().url
    _, (host_proc, me) = start_table(url, 2, tmp_path, seed)
    wait_for_entries(tmp_path / "p1", 40)
    os.kill(me.pid, signal.SIGKILL)
    me.communicate()
    return broker, host_proc


@pytest.mark.network
def test_a_player_killed_mid_game_comes_back_on_screen(tmp_path):
    """`trutnet join --resume --store DIR` without --bot: the person's seat, killed with
    kill -9, is played on screen again from its files, and the game ends on one hash."""
    from tests.network_helpers import result_of
    from trutnet.runtime.resuming import resume

    transcript = tmp_path / "resumed.json"
    broker, host_proc = killed_joiner(tmp_path, "resume-ui")
    try:

        async def scenario():
            with create_pipe_input() as pipe:
                ui = TableApp("resumed", 0, input=pipe, output=DummyOutput(), game="trut")
                game = asyncio.create_task(
                    play_with_ui(
                        lambda hooks: resume(
                            tmp_path / "p1",
                            None,
                            JoinSetup(name="Me", bot_kind=None, options=Options(linger=5)),
                            hooks=hooks,
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


@pytest.mark.network
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


@pytest.mark.network
@NO_TMUX
def test_a_person_quits_mid_game_and_comes_back_with_the_printed_command(tmp_path):
    """A person's path, at 80x24: join a table, Ctrl-C and y mid-game; the terminal then
    says where the seat's files are and the exact command; that command, run as printed,
    puts the person back at the table with their cards."""

    from tests.network_helpers import spawn
    from trutnet.runtime.events import announced_table

    broker = EmbeddedBroker()
    url = broker.start().url
    host_proc = spawn(
        ["host", "--players", "2", "--broker", url, "--no-announce",
         "--store", str(tmp_path / "host"), "--json"]
    )  # fmt: skip
    table, _ = announced_table(host_proc)
    env = f"XDG_DATA_HOME={tmp_path}/data XDG_CONFIG_HOME={tmp_path}/config"
    first = Tmux(
        f"{env} {sys.executable} -m trutnet join --broker {url} --table {table} "
        f"--name Person; echo LEFT; sleep 60"
    )
    second = None
    try:
        first.wait_for(rf"Your hand: \[1\]{CARD}")
        first.keys("C-c")
        first.wait_for("Quit the game")
        first.keys("y")
        text = first.wait_for(r"LEFT", 30)
        flat = text.replace("\n", "")  # a long path wraps at 80 columns
        command = re.search(
            r"(trutnet join --resume(?: --store \S+?)?)(trutnet join: interrupted)LEFT", flat
        )
        assert command, text
        folder = tmp_path / "data" / "trutnet" / "tables" / f"{table}-join"
        assert command.group(1) == "trutnet join --resume"  # the only seat left: no --store
        assert f"Your seat's files are in:  {folder}" in flat
        second = Tmux(f"{env} {sys.executable} -m {command.group(1)}")  # python -m trutnet
        text = second.wait_for(rf"Your hand: \[1\]{CARD}", 90)
        assert "Trut — classic, 2 players" in text
        second.keys("q")
        second.wait_for("Quit the game")
        second.keys("y")
        second.wait_gone()
    finally:
        first.close()
        if second is not None:
            second.close()
        host_proc.kill()
        host_proc.communicate()
        broker.stop()


@pytest.mark.network
@NO_TMUX
def test_a_whole_game_in_a_real_terminal_ends_on_a_screen_that_fits(tmp_path):
    """`trutnet play` at 80x24, played to the end by keys: the end screen starts at its
    title (nothing lost off the top), names its columns, and every hand is reachable."""
    env = f"XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    term = Tmux(
        f"{env} {sys.executable} -m trutnet play --players 2 --bots 1 --bind 127.0.0.1 "
        f"--no-announce --name Tester"
    )
    keys_for = {
        "Your turn: play": "1",
        "A Trut!": "j",
        "Au Fortial": "t",
        "Enter continue": "Enter",
    }
    try:
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            text = term.screen()
            if "Transcript saved" in text:
                break
            for prompt, key in keys_for.items():
                if prompt in text:
                    term.keys(key)
                    break
            time.sleep(0.3)
        rows = text.rstrip("\n").splitlines()
        assert rows[0].startswith(" Game over — "), text
        header = next(r for r in rows if r.lstrip().startswith("Hand "))
        assert "How it ended" in header and "You" in header and "Bot 1" in header
        assert len(rows) <= 24 and rows[-1].rstrip().endswith("q quit")
        hands = {int(r.split()[0]) for r in rows if re.match(r"^ +\d+  ", r)}
        for _ in range(40):  # scroll up to the first hand
            term.keys("Up")
        text = term.wait_for(r"(?m)^ +1  ", timeout=30)  # the first hand's row
        hands |= {int(r.split()[0]) for r in text.splitlines() if re.match(r"^ +\d+  ", r)}
        assert 1 in hands and text.splitlines()[0].startswith(" Game over — ")
        term.keys("q")
        term.wait_gone()
    finally:
        term.close()


@NO_TMUX
def test_enter_on_a_hand_summary_in_a_real_terminal_only_dismisses_it(tmp_path):
    """A hand's summary at 80x24 says who scored what, and stays until a key; the Enter
    that dismisses it plays no card (it once went by itself after 5 s, and the Enter
    meant for it played card [1])."""
    env = f"XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    term = Tmux(
        f"{env} {sys.executable} -m trutnet play --players 2 --bots 1 --bind 127.0.0.1 "
        f"--no-announce --name Tester"
    )
    keys_for = {"Your turn: play": "1", "A Trut!": "j", "Au Fortial": "t"}
    try:
        deadline = time.monotonic() + 240
        text = term.screen()
        while " is over" not in text and time.monotonic() < deadline:
            prompt = next((p for p in keys_for if p in text), None)
            if prompt is not None:
                hand = re.findall(r"Your hand: .*", text)
                term.keys(keys_for[prompt])
                taken = time.monotonic() + 10  # the key taken: a card left the hand...
                while time.monotonic() < taken and " is over" not in text:
                    if prompt not in text or re.findall(r"Your hand: .*", text) != hand:
                        break
                    text = term.screen()
            text = term.screen()
        rows = text.splitlines()
        heading = rows.index(" Hand 1 is over")
        assert any(re.match(r" → .*(win|nobody).*", r) for r in rows[heading:]), text
        assert "Enter continue" in text and all(len(r) <= 80 for r in rows)
        term.keys("Enter")
        three = rf"Your hand: \[1\]{CARD}  \[2\]{CARD}  \[3\]{CARD}"
        text = term.wait_for(rf"Hand 2 .*Donneur(.*\n)*.*{three}", 60)
        assert " is over" not in text and "Trick 1: You" not in text, text
        term.keys("q")
        term.wait_for("Quit the game")
        term.keys("y")
        term.wait_gone()
    finally:
        term.close()


def test_the_verification_line_names_what_was_checked():
    """Shuffles and reveals for a dealt game; a game of sealed choices (Lutin & Troll's
    hands and tokens) says how many were opened instead of "0 shuffles, 0 reveals";
    cards found by equality tests (the Deluxe Falcon) are counted too."""
    from trutnet.client.view import TableInfo, _verify_line, plain

    def line(shuffles, reveals, opened, searched):
        info = TableInfo(names=[], fingerprints=[], me=0)
        info.shuffles_verified, info.reveals_verified = shuffles, reveals
        info.openings_verified, info.searches_verified = opened, searched
        return plain([_verify_line(info)])

    assert line(0, 0, 0, 0) == " ✓ verified: 0 shuffles, 0 reveals"
    assert line(0, 0, 14, 0) == " ✓ verified: 14 sealed choices opened"
    assert line(1, 2, 0, 1) == " ✓ verified: 1 shuffle, 2 reveals, 1 card search"
    both = " ✓ verified: 8 shuffles, 6 reveals, 1 sealed choice opened, 2 card searches"
    assert line(8, 6, 1, 2) == both


def test_the_message_on_leaving_mid_game_wraps_at_words(tmp_path):
    """Leaving mid-game prints where the seat is and how to come back; the prose about
    the bots this program seated is wrapped at words for an 80-column terminal (it was
    one long line, cut mid-word), the folder and the command are kept whole."""
    from types import SimpleNamespace

    ui = TableApp("Test table", 4, output=DummyOutput(), game="trut")
    me = SimpleNamespace(bot=None, name="Ann")
    bots = [
        SimpleNamespace(bot=object(), name=f"Bot {n}", store=None, peer=None) for n in (1, 2, 3)
    ]
    folder = tmp_path / ("a-rather-long-folder-name-" * 3)
    ui.seat = SimpleNamespace(
        store=SimpleNamespace(directory=folder),
        peer=SimpleNamespace(replica=SimpleNamespace(phase="play")),
    )
    ui.runtime = SimpleNamespace(seats=[me, *bots])
    ui.resume_alone = True  # no other seat left mid-game: the short command
    assert ui.left_message().splitlines()[3] == "  trutnet join --resume"
    ui.resume_alone = False
    lines = ui.left_message().splitlines()
    assert lines[1] == f"  {folder.resolve()}"
    assert lines[3] == f"  trutnet join --resume --store {folder.resolve()}"
    prose = lines[4:]
    assert len(prose) > 1 and all(len(line) <= 79 for line in prose)
    assert " ".join(prose).startswith("The 3 bots seated by this program (Bot 1, Bot 2, Bot 3)")
    assert " ".join(prose).endswith("or the game is abandoned (docs/protocol.md 7.7).")
    for bot in bots:  # bots whose keys this program kept (play's): they come back too
        bot.store = object()
    prose = " ".join(ui.left_message().splitlines()[4:])
    assert prose == (
        "The 3 bots seated by this program (Bot 1, Bot 2, Bot 3) stopped with it and come"
        " back when you resume."
    )
    ui.runtime = SimpleNamespace(seats=[me, bots[0]])  # one bot: "comes", not "come"
    prose = " ".join(ui.left_message().splitlines()[4:])
    assert (
        prose
        == "The bot seated by this program (Bot 1) stopped with it and comes back when you resume."
    )


def test_six_players_with_long_names_fit_80_columns_uncut():
    """6 players with long names: the state line with a Fortial and its Trut goes on
    two rows, a trick's six cards fit with the winner's name whole, and the end table
    names the teams Team 1 and Team 2, each named in full above it (they were cut)."""
    import dataclasses

    from trutnet.client.frontend import frontend_for
    from trutnet.client.view import TableInfo, end_lines, plain, table_lines
    from trutnet.games.trut.rules.cards import Card
    from trutnet.games.trut.rules.observation import TrickView, TrutView

    names = ["Alexandra", "Bartholomew", "Christopher", "Dorothea", "Evangeline", "Fitzgerald"]
    state = TrutGame(TrutConfig(6, "gatinaise")).new_initial_state()
    trut = frontend_for("trut")
    info = TableInfo(names=names, fingerprints=[""] * 6, me=0)
    cards = tuple(
        (seat, Card.parse(c)) for seat, c in enumerate(["7s", "8h", "9c", "10d", "Js", "Qh"])
    )
    obs = dataclasses.replace(
        state.observation(0),
        fortial_team=1,
        trut=TrutView(1, "fortial", "pending", (), ()),
        tricks=(TrickView(cards, 1, 5),),
    )
    rows = plain(table_lines(trut, obs, info)).splitlines()
    assert not [r for r in rows if r.endswith("…") or len(r) > 80], rows
    state_rows = rows[rows.index(next(r for r in rows if r.startswith(" Hand 1 "))) :][:2]
    assert "Fortial: Bartholomew & Dorothea & Fitzgerald" in state_rows[0]
    assert state_rows[1] == "  Trut (Fortial) by Bartholomew: waiting for the answer"
    trick = next(r for r in rows if r.startswith(" Trick 1: "))
    assert trick.endswith("→ Fitzgerald") and "9♣" in trick and "Q♥" in trick
    trut.history = [(0, "won by", 1, [1, 1], [0, 0]), (1, "won by fold:", 0, [1, 1], [1, 0])]
    end = plain(end_lines(trut, dataclasses.replace(obs, winner=1), info)).splitlines()
    assert not [r for r in end if r.endswith("…") or len(r) > 80], end
    assert any(r.startswith(" Team 2: Bartholomew & Dorothea & Fitzgerald ") for r in end)
    header = next(r for r in end if r.lstrip().startswith("Hand "))
    assert header.split()[-4:] == ["Team", "1", "Team", "2"]
    assert any(r.startswith("    2  won by fold: Team 1 ") for r in end)


def test_a_key_pressed_as_a_hand_ends_shows_its_summary_and_plays_nothing():
    """The hand ends between two drawings of the screen and the person, still seeing
    the last one, presses 1 just as their turn comes in the next hand: the key shows
    the hand's summary and plays nothing; the next key dismisses it and plays nothing;
    only the one after plays (Enter once played a card nobody had seen)."""
    import random
    from types import SimpleNamespace

    from tests.tables import make_table
    from trutnet.bots import make_bot
    from trutnet.memory_table import MemoryTable, step, table_nonce
    from trutnet.protocol.spectator import Watchers

    _, identities, peers = make_table(2, "summary-race")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(2)]
    table.broadcast(
        peers[0].open_table(
            TrutGame(TrutConfig(2)),
            [i.public for i in identities],
            ["Me", "Bot"],
            nonce=table_nonce("summary-race"),
        )
    )
    ui = TableApp("memory", 2, output=DummyOutput(), game="trut")
    ui.seat = SimpleNamespace(peer=peers[0], identity=identities[0], store=None, pending=None)
    ui.runtime = SimpleNamespace(  # type: ignore[assignment]
        watchers=Watchers(b"t"), caught_up=True, last_progress=time.monotonic(), wake=lambda: None
    )

    def hand_ended() -> bool:
        state = peers[0].replica.state
        return state is not None and any(e["event"] == "hand_end" for e in state.events)

    while not hand_ended():  # the screen drawn after every entry, as the app does
        screen_rows(ui)
        assert step(table)
    assert not ui.info.paused  # that hand's end was never drawn

    def my_play() -> bool:
        obs = ui.observation()
        return obs.to_act == 0 and obs.phase == "play" and not ui.info.step and peers[0].decide()

    while not (my_play() and all(card is not None for _, card in ui.observation().hand)):
        assert step(table)  # the next hand comes, and the person's turn in it
    press = ui._game_key_handler("1")
    press(None)
    assert ui.seat.pending is None and ui.info.paused  # the key showed the summary
    assert " Hand 1 is over" in screen_rows(ui)
    press(None)
    assert ui.seat.pending is None and not ui.info.paused  # the next one dismissed it
    assert "Your turn" in "\n".join(screen_rows(ui))
    press(None)
    assert ui.seat.pending is not None and ui.seat.pending.startswith("play ")


def test_b_in_a_game_is_not_about_seating_bots():
    """Once the game is on, b is no longer the lobby's key: it does nothing and says so,
    not "bots can be seated only in the host's lobby" (Lutin's pioche shows b4, b5)."""
    from types import SimpleNamespace

    ui = TableApp("Test table", 2, output=DummyOutput(), game="lutin")
    press_b = ui._keys().get_bindings_for_keys(("b",))[-1].handler
    ui.seat = SimpleNamespace(store=None, peer=None, pending=None)
    press_b(None)  # a joiner's lobby: the host seats the bots
    assert ui.info.message == "bots can be seated only in the host's lobby"
    ui.seat = SimpleNamespace(store=None, peer=object(), pending=None)
    press_b(None)
    assert ui.info.message == "'b' does nothing now (the keys you may use are shown)"


def test_a_key_that_does_nothing_says_so_and_bound_keys_win():
    """A typed key no binding takes says it does nothing (the key bar lists only the
    keys that do something, and a silent screen leaves a person wondering); the quit
    question stays on screen until y or n; bound keys are never taken by the catch-all."""
    from types import SimpleNamespace

    from prompt_toolkit.key_binding.key_processor import KeyPress
    from prompt_toolkit.keys import Keys

    ui = TableApp("Test table", 2, output=DummyOutput(), game="trut")
    ui.seat = SimpleNamespace(store=None, peer=None, pending=None)
    keys = ui._keys()

    def press(key: str, data: str | None = None) -> None:
        binding = keys.get_bindings_for_keys((key,))[-1]
        typed = KeyPress(Keys(key) if len(key) > 1 else key, data or key)
        binding.handler(SimpleNamespace(data=typed.data, key_sequence=[typed]))

    press("x")
    assert ui.info.message == "'x' does nothing here (? shows the keys)"
    press("?")  # bound: the help, not the catch-all
    assert ui.help and ui.info.message == "'x' does nothing here (? shows the keys)"
    press("1")  # a card key of the game's
    assert "does nothing here" not in ui.info.message
    ui.info.confirm_quit = True
    press("x")
    assert ui.info.message.startswith("Quit the game? y/n")
    ui.info.confirm_quit = False
    ui.info.message = ""
    press("c-left", "\x1b[1;5D")  # an escape sequence is not a typed key
    assert ui.info.message == ""
    watcher = WatchApp("Test table", output=DummyOutput())
    watcher._keys().get_bindings_for_keys(("z",))[-1].handler(SimpleNamespace(data="z"))
    assert watcher.info.message == "'z' does nothing here: you are watching (q leaves)"


def test_the_quit_question_takes_the_languages_own_yes_key():
    """French says o (oui), Spanish s (sí): while the quit question is asked, that key
    leaves (y too, in every language); otherwise the key is the game's (Trut's s sings)."""
    from types import SimpleNamespace

    from trutnet import i18n

    for language, yes in (("fr", "o"), ("es", "s"), ("en", "y")):
        i18n.use(language)
        try:
            ui = TableApp("Test table", 2, output=DummyOutput(), game="trut")
            ui.seat = SimpleNamespace(store=None, peer=None, pending=None)
            left: list[bool] = []
            ui._exit = lambda interrupted=False, left=left: left.append(interrupted)
            keys = ui._keys()

            def press(key: str, keys=keys) -> None:
                # as prompt_toolkit picks: the last binding of the key whose filter holds
                binding = [b for b in keys.get_bindings_for_keys((key,)) if b.filter()][-1]
                binding.handler(SimpleNamespace(data=key, key_sequence=[SimpleNamespace(key=key)]))

            press("s")  # no question: the game's key (sing, refused here), never a leave
            assert left == [] and not ui.info.confirm_quit
            ui.info.confirm_quit = True
            press(yes)
            assert left == [False], (language, yes)
            if yes != "y":
                ui.info.confirm_quit = True
                press("y")  # y works in every language
                assert left == [False, False]
        finally:
            i18n.use("en")
