"""``trutnet replay``: a saved game read as a spectator, every frame checked, stepped
through move by move and round by round; a transcript that stops verifying is
replayed up to there and says so; the screen fits 80x24 in a real terminal."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.cli.test_person_path import Screen, person_env
from tests.tables import play_memory_game
from trutnet.cli import main
from trutnet.client.replay import frame_lines, frame_text, load_replay
from trutnet.client.view import plain
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame
from trutnet.store import load_transcript, save_transcript


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """A whole 2-player game from 5 Longs apiece (its last hands), saved."""
    table = play_memory_game(
        TrutGame(TrutConfig(2, start=StartPosition((5, 5), (0, 0), 0))), "replay", ["heuristic"] * 2
    )
    replica = table.peers[0].replica
    assert replica.phase == "done"
    path = tmp_path_factory.mktemp("replay") / "game.json"
    return save_transcript(path, replica.table_id, [e.wire for e in replica.log.entries])


def test_every_frame_is_the_spectators_and_fits_the_screen(saved):
    replay = load_replay(*load_transcript(saved))
    assert replay.failure is None and len(replay.frames) > 10
    for index, frame in enumerate(replay.frames):
        lines = plain(frame_lines(replay, index)).splitlines()
        assert len(lines) <= 24 and all(len(line) <= 80 for line in lines), lines
        assert lines[-1].endswith(f"move {index + 1}/{len(replay.frames)}")
        observation = replay.frontend.spectator_observation(frame.state)
        assert not observation.hand  # a spectator's view: no hand, ever
    assert "Game over" in frame_text(replay, len(replay.frames) - 1)
    ends = [i for i, f in enumerate(replay.frames) if f.round_ends]
    assert len(ends) >= 2 and "is over" in frame_text(replay, ends[0])  # a round's summary
    for index in ends[:-1]:  # each summary is its own round's, with its own score
        hand = replay.frames[index].round  # the round just over (the frame is past it)
        text = frame_text(replay, index)
        assert f"Hand {hand} is over" in text and "Game over" not in text, text
        assert "7/7" not in text  # the last hand's score is not there yet
    assert "▷ Next: " in frame_text(replay, 1) and "Waiting" not in frame_text(replay, 1)
    # a saved game has no chat: its rule offers no chat key (the table's says "Tab: chat")
    assert "Tab" not in frame_text(replay, 1) and " " + "─" * 77 in frame_text(replay, 1)
    # ↓ goes to the next round's first frame, ↑ back to this round's, then the one before
    second = replay.round_start(0, 1)
    assert replay.frames[second].round == replay.frames[0].round + 1
    assert replay.frames[second - 1].round == replay.frames[0].round
    assert replay.round_start(second + 1, -1) == second
    assert replay.round_start(second, -1) == 0


def test_a_transcript_that_stops_verifying_is_replayed_up_to_there(saved, tmp_path, capsys):
    table_id, wires = load_transcript(saved)
    whole = load_replay(table_id, wires)
    broken = list(wires)
    middle = len(broken) // 2
    broken[middle] = broken[middle][:-1] + bytes([broken[middle][-1] ^ 1])  # its signature
    path = save_transcript(tmp_path / "broken.json", table_id, broken)
    replay = load_replay(table_id, broken)
    assert replay.failure is not None and replay.failure.startswith(f"entry {middle}: ")
    assert 0 < len(replay.frames) < len(whole.frames)
    last = frame_text(replay, len(replay.frames) - 1)
    assert "the transcript stops verifying here" in last.replace("\n", " ")
    assert main(["replay", str(path), "--print", "--at", "999"]) == 1
    err = capsys.readouterr().err
    assert f"stops verifying at entry {middle}: " in err and "replayed up to there" in err


def test_the_command_prints_a_move_and_refuses_what_is_not_a_game(saved, tmp_path, capsys):
    assert main(["replay", str(saved), "--print", "--at", "3"]) == 0
    out = capsys.readouterr().out
    replay = load_replay(*load_transcript(saved))
    assert out.rstrip("\n") == frame_text(replay, 2)
    (tmp_path / "junk.json").write_text("{}")
    assert main(["replay", str(tmp_path / "junk.json")]) == 2
    assert "trutnet replay: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["replay", str(saved), "--at", "0"])


def test_without_a_file_it_replays_the_newest_saved_game(saved, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["replay", "--print"]) == 2
    assert "trutnet replay: no saved game in " in capsys.readouterr().err
    newest = tmp_path / "trutnet" / "games" / "newest.json"
    newest.write_bytes(saved.read_bytes())
    assert main(["replay", "--print", "--at", "2"]) == 0
    captured = capsys.readouterr()
    assert f"the newest saved game, {newest}" in captured.err and "move 2/" in captured.out


@pytest.mark.network
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_stepping_through_a_saved_game_in_a_real_terminal(saved, tmp_path):
    screen = Screen()
    try:
        screen.start(
            [sys.executable, "-m", "trutnet", "replay", str(saved)], person_env(tmp_path), tmp_path
        )
        screen.wait_for("move 1/", timeout=60)
        screen.keys("Right", "Right")
        text = screen.wait_for("move 3/", timeout=30)
        assert "replay" in text.splitlines()[0] and "Next: " in text
        screen.keys("Left")
        screen.wait_for("move 2/", timeout=30)
        screen.keys("?")  # the replay's own help: its keys, no table's, no chat
        text = screen.wait_for("A saved game, checked again as it goes", timeout=30)
        assert "as a spectator saw it" in text and "chat" not in text.lower(), text
        screen.keys("Escape")
        screen.wait_for("move 2/", timeout=30)
        screen.keys("End")
        text = screen.wait_for("Game over", timeout=30)  # the end, not "→ goes on"
        assert all(len(line) <= 80 for line in text.splitlines())
        assert "goes on" not in text, text
        screen.keys("q")
        status, text = screen.exit_status(timeout=30)
        assert status == 0 and "Traceback" not in text
    finally:
        screen.close()
