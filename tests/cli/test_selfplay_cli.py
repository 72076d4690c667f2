"""``trutnet selfplay`` and ``trutnet bench`` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from trutnet.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trutnet", *args], capture_output=True, text=True, timeout=300
    )


def test_issue_command_completes_and_prints_summary():
    result = run("selfplay", "--players", "4", "--games", "50", "--seed", "7")
    assert result.returncode == 0, result.stderr
    assert "games: 50" in result.stdout
    assert "mean hands per game" in result.stdout
    assert "team 0+2" in result.stdout and "team 1+3" in result.stdout


def test_same_seed_same_output_different_seed_different_games(capsys):
    outputs = []
    for seed in ("3", "3", "4"):
        assert (
            main(
                [
                    "selfplay",
                    "--players",
                    "3",
                    "--variant",
                    "gatinaise",
                    "--games",
                    "2",
                    "--seed",
                    seed,
                    "--verbose",
                ]
            )
            == 0
        )
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert outputs[0] != outputs[2]


def test_verbose_prints_deal_tricks_truts_and_tokens(capsys):
    assert main(["selfplay", "--players", "4", "--games", "1", "--seed", "7", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "Hand 1: Donneur seat" in out
    assert "seat 0 holds" in out
    assert "trick 1:" in out
    assert "calls Trut!" in out
    assert "Longs" in out and "Petits" in out
    assert "Game over:" in out


@pytest.mark.parametrize("players,variant", [(2, "classic"), (3, "gatinaise"), (6, "classic")])
def test_json_summary(capsys, players, variant):
    args = [
        "selfplay",
        "--players",
        str(players),
        "--variant",
        variant,
        "--games",
        "3",
        "--seed",
        "1",
        "--json",
    ]
    if players == 6:
        args.append("--sum-on-patte")
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 3
    assert sum(summary["wins"]) == 3
    assert len(summary["wins"]) == (players if players in (2, 3) else 2)
    assert summary["hands"] >= 3
    assert summary["mean_hands_per_game"] == round(summary["hands"] / 3, 3)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--players", "5"], "the trut game is for 2, 3, 4 or 6 players, not --players 5"),
        (["--games", "0"], "must be 1.."),
        (["--games", "many"], "not a whole number"),
        (["--seed", "-1"], "must be 0.."),
        (["--variant", "breton"], "invalid choice"),
        (["--sum-on-patte", "--players", "4"], "applies with players=6) (T21)"),
        (["--bots", "genius"], "--bots"),
        (["--bots", "random,random,random", "--players", "4"], "--bots"),
        (["--unknown"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(args, message):
    result = run("selfplay", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["host", "--stall-timeout", "-5"], "must be above 0"),
        (["host", "--void-timeout", "nan"], "must be above 0"),
        (["join", "--linger", "inf"], "must be above 0"),
        (["play", "--give-up-after", "soon"], "not a number of seconds"),
        (["tables", "--timeout", "0"], "must be above 0"),
    ],
)
def test_bad_durations_exit_2_before_anything_starts(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_bench_engine_json_has_the_figures():
    result = run("bench", "engine", "--games", "5", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    for key in ("hands_per_s_2p", "hands_per_s_4p", "games_per_s_4p"):
        assert figures[key] > 0


def test_bench_crypto_json_has_every_row_and_figure():
    result = run("bench", "crypto", "--repeats", "1", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["rows"]
    assert {(r["cards"], r["seats"]) for r in rows} == {
        (c, s) for c in (32, 40) for s in (2, 3, 4, 6, 8)
    }
    for row in rows:
        for key in (
            "shuffle_prove_ms",
            "verify_ms",
            "share_ms",
            "share_verify_ms",
            "phase_per_seat_ms",
        ):
            assert row[key] > 0
        # output deck + proof: 2 + 66 N + 130 N + 160 bytes
        assert row["shuffle_bytes"] == 2 + 196 * row["cards"] + 160
    sealed = json.loads(result.stdout)["sealed"]
    assert [r["positions"] for r in sealed] == [1, 3, 6]
    for row in sealed:
        assert row["seal_ms"] > 0 and row["seal_verify_ms"] > 0 and row["open_ms"] > 0
        # u8 u8 u16, K positions and K (R, E), then three scalars (8.8)
        assert row["sealed_bytes"] == 4 + 68 * row["positions"] + 96
    equality = json.loads(result.stdout)["equality"]
    assert [(r["seats"], r["positions"]) for r in equality] == [(4, 12), (6, 18)]
    for row in equality:
        for key in ("blind_ms", "blind_verify_ms", "unblind_ms", "unblind_verify_ms"):
            assert row[key] > 0
        assert row["blind_per_seat_ms"] > row["blind_ms"]
        # 8.12: u8 u16, K positions, K (A, B), the challenge, K responses; 8.8's shares
        assert row["blind_bytes"] == 100 * row["positions"] + 35
        assert row["unblind_bytes"] == 35 * row["positions"] + 67


def test_selfplay_over_the_protocol_saves_transcripts_that_verify(tmp_path):
    result = run(
        "selfplay",
        "--players",
        "2",
        "--games",
        "1",
        "--seed",
        "4",
        "--transport",
        "memory",
        "--save",
        str(tmp_path),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["transport"] == "memory" and summary["games"] == 1
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == ["game-1-seat-0.json", "game-1-seat-1.json"]
    assert files[0].read_text() == files[1].read_text()  # both peers hold the same log
    check = run("verify", str(files[0]))
    assert check.returncode == 0 and "OK" in check.stdout
    assert run("selfplay", "--save", str(tmp_path)).returncode == 2  # needs --transport memory


def test_bench_protocol_json_has_the_figures():
    result = run("bench", "protocol", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["hands"] >= 1 and figures["players"] == 4
    for key in ("hand_ms_median", "bytes_per_hand", "game_s"):
        assert figures[key] > 0


def test_the_winner_is_named_by_seats_and_by_names():
    from trutnet.selfplay import side_name, who_won

    teams = [[0, 2], [1, 3]]
    assert side_name(teams, 1) == "team 1+3" and who_won(teams, 1) == "team 1+3 wins"
    names = ["Ann", "Bob", "Cid", "Dee"]
    assert who_won(teams, 1, names) == "Bob & Dee (team 1+3) win"
    assert who_won([[0], [1]], 0, names[:2]) == "Ann (seat 0) wins"
    assert who_won(teams, None, names) == "nobody wins"
    assert who_won(teams, 0, names[:2]) == "team 0+2 wins"  # names missing: seats only
    assert who_won([[0], [1]], 1, ["seat 0", "seat 1"]) == "seat 1 wins"  # said once
