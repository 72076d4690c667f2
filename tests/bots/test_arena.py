"""``trutnet arena``: two bots, both seat orders, the counts, the JSON, the interval and
Elo, the same result for the same seed whatever the number of processes."""

from __future__ import annotations

import json
import math

import pytest

from trutnet.arena import elo, run, seating, summarise, wilson
from trutnet.cli import main
from trutnet.engine import make_game

KEYS = {
    "bots", "ci95", "config", "decisions", "elo", "elo_ci95", "game", "games", "players",
    "results", "rounds", "seconds", "seed", "share", "wins",
}  # fmt: skip


def arena(capsys, *args: str) -> dict:
    assert main(["arena", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_counts_add_up_and_the_json_says_everything(capsys):
    summary = arena(capsys, "--game", "trut", "--bots", "heuristic,random", "--games", "7")
    assert set(summary) == KEYS
    wins = summary["wins"]
    assert wins["a"] + wins["b"] + wins["none"] == summary["games"] == 7
    assert summary["results"].count("a") == wins["a"] and len(summary["results"]) == 7
    assert summary["bots"] == ["heuristic", "random"] and summary["players"] == 2
    assert summary["share"] == pytest.approx((wins["a"] + wins["none"] / 2) / 7, abs=1e-4)
    low, high = summary["ci95"]
    assert 0 <= low <= summary["share"] <= high <= 1
    assert all(set(d) == {"count", "median_ms", "p99_ms"} for d in summary["decisions"])
    assert summary["decisions"][0]["count"] > 0


def test_the_same_seed_gives_the_same_games_in_one_process_or_two(capsys):
    args = ["--game", "lutin", "--bots", "search:samples=1,heuristic", "--games", "4"]
    one = arena(capsys, *args, "--seed", "5", "--jobs", "1")
    two = arena(capsys, *args, "--seed", "5", "--jobs", "2")
    for summary in (one, two):
        del summary["seconds"], summary["decisions"]  # times: the machine's, not the games'
    assert one == two
    assert one["games"] == 4


def test_both_seat_orders_and_teams():
    """Each deal twice, the first bot on each side; in a team game, on every seat of its
    team."""
    game = make_game("trut", {"players": 4})
    assert seating(game, ("search", "heuristic"), 0) == (0, ["search", "heuristic"] * 2)
    assert seating(game, ("search", "heuristic"), 1) == (1, ["heuristic", "search"] * 2)
    outcomes = run(game, ("heuristic", "random"), 4, seed=2)
    assert [o.a_team for o in outcomes] == [0, 1, 0, 1]
    summary = summarise(game, ("heuristic", "random"), 2, outcomes)
    assert summary["players"] == 4 and sum(summary["wins"].values()) == 4
    three = make_game("trut", {"players": 3})
    assert [seating(three, ("a", "b"), i)[0] for i in range(4)] == [0, 1, 2, 0]
    assert summarise(three, ("a", "b"), 0, run(three, ("random", "random"), 3, 0))["elo"] is None


def test_wilson_and_elo():
    low, high = wilson(65, 100)
    assert low == pytest.approx(0.5525, abs=1e-3) and high == pytest.approx(0.7364, abs=1e-3)
    assert wilson(0, 10)[0] == 0 and wilson(10, 10)[1] == pytest.approx(1)
    assert elo(0.5) == 0 and elo(1.0) is None
    assert elo(0.75) == pytest.approx(400 * math.log10(3))


def test_a_bad_pair_of_bots_is_refused(capsys):
    assert main(["arena", "--bots", "heuristic", "--games", "2"]) == 2
    assert "give two bots" in capsys.readouterr().err
    assert main(["arena", "--bots", "heuristic,genius", "--games", "2"]) == 2
    assert main(["arena", "--bots", "search:samples=0,heuristic", "--games", "2"]) == 2


def test_bench_bots_times_each_bot_of_the_game(capsys):
    """``trutnet bench bots``: every bot the game has, in every seat, and the CPU time of
    its decisions with a choice (issue 21: the search bot's time is measured)."""
    from trutnet.bots import bot_kinds

    assert main(["bench", "bots", "--game", "trut", "--option", "players=2", "--games", "1",
                 "--json"]) == 0  # fmt: skip
    figures = json.loads(capsys.readouterr().out)
    assert figures["game"] == "trut" and figures["games"] == 1
    assert set(figures["bots"]) == set(bot_kinds("trut"))
    for kind, row in figures["bots"].items():
        assert row["count"] > 10, kind  # a whole game of decisions
        assert 0 <= row["median_ms"] <= row["p99_ms"], (kind, row)
    from trutnet.arena import decision_report

    said = decision_report(figures).splitlines()  # what it prints without --json
    assert said[0].startswith("bots benchmark: trut, each bot in every seat, 1 games")
    assert len(said) == 1 + len(figures["bots"]) and "search" in "".join(said)
