"""Truco on the command line: ``selfplay --game truco`` for every player count, a
saved 4-player match over the memory transport (full crypto) that ``trutnet verify``
accepts, and ``bench engine --game truco --json``."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from tests.cli.test_game_cli import run


@pytest.mark.parametrize("players", [2, 3, 4, 6, 8])
def test_selfplay_every_player_count(players):
    code, out, err = run(
        "selfplay", "--game", "truco", "--players", str(players), "--games", "3", "--seed", "7",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert summary["game"] == "truco" and summary["players"] == players
    assert summary["games"] == 3 and sum(summary["wins"]) == 3


def test_players_5_is_refused_in_one_line():
    code, out, err = run("selfplay", "--game", "truco", "--players", "5")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "players" in err


def test_a_saved_memory_match_passes_verify(tmp_path):
    code, out, err = run(
        "selfplay", "--game", "truco", "--players", "2", "--games", "1", "--seed", "7",
        "--option", "chicos=1", "--transport", "memory", "--save", str(tmp_path), timeout=300,
    )  # fmt: skip
    assert code == 0, err
    saved = sorted(tmp_path.glob("*.json"))
    assert len(saved) == 2  # one transcript per seat
    code, out, err = run("verify", str(saved[0]))
    assert code == 0, err
    assert all(len(line) <= 80 for line in out.splitlines())  # wrapped, indented
    flat = out.replace("\n    ", " ")
    assert "OK: the transcript is valid" in flat and re.search(
        r", chicos \d+-\d+, points \d+-\d+\n", flat
    )
    # Each hand by its number and dealer, each card by the seat that played it (it once
    # printed `hand 61: seat 1 deals` for every hand, and one seat for every card).
    hands = re.findall(r"^hand (\d+): seat (\d) deals$", out, re.M)
    assert [int(h) for h, _ in hands] == list(range(1, len(hands) + 1)) and len(hands) > 3
    dealers = [int(d) for _, d in hands]
    assert all(b == (a + 1) % 2 for a, b in itertools.pairwise(dealers))
    hands_said = re.split(r"^hand \d+: ", out, flags=re.M)[1:]
    assert any(len(set(re.findall(r"^seat (\d) plays ", h, re.M))) > 1 for h in hands_said)


def test_bench_engine_json():
    code, out, err = run("bench", "engine", "--game", "truco", "--games", "20", "--json")
    assert code == 0, err
    figures = json.loads(out)
    assert figures["game"] == "truco" and figures["hands_per_s_4p"] > 0


def test_option_sets_the_other_keys_of_the_configuration():
    code, out, err = run(
        "selfplay", "--game", "truco", "--players", "3", "--option", "gallo=rotating",
        "--option", "flor=on", "--option", "chicos=1", "--games", "1", "--seed", "7", "--json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out.splitlines()[-1])
    assert (summary["gallo"], summary["flor"], summary["chicos"]) == ("rotating", True, 1)
    assert summary["teams"] == [[0], [1], [2]]  # K9: every seat keeps its own score


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("colour=red", "--option colour=red: give KEY=VALUE, KEY one of: chicos, falta_wins_chico"),
        ("chicos=2", "--option chicos=2: chicos is 3 or 1 (K30, K31)"),  # in words, no tuple
        (
            "gallo=rotating",
            "--option gallo=rotating: gallo does not go with the options given",
        ),  # 4
    ],
)
def test_a_bad_option_is_refused_in_one_line(option, says):
    code, out, err = run("selfplay", "--game", "truco", "--option", option)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and says in err, err
