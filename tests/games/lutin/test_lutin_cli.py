"""Lutin & Troll from the command line: self-play for every variant built (the engine
alone and the memory table with full crypto), a saved game that ``trutnet verify``
passes, a whole game between two peer processes over the real broker, and the engine
benchmark."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trutnet", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("variant", ["base", "expert-white", "expert-black", "initiation"])
def test_selfplay_of_each_variant(variant):
    result = run("selfplay", "--game", "lutin", "--variant", variant, "--games", "3",
                 "--seed", "7", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 3 and summary["variant"] == variant
    if variant != "initiation":
        assert sum(summary["wins"]) == 3  # the 5th VP always ends a base game (L3)


@pytest.mark.parametrize("variant", ["base", "expert-white", "expert-black", "initiation"])
def test_a_saved_memory_game_passes_verify(tmp_path, variant):
    result = run("selfplay", "--game", "lutin", "--variant", variant, "--games", "1",
                 "--seed", "7", "--transport", "memory", "--save", str(tmp_path))  # fmt: skip
    assert result.returncode == 0, result.stderr
    checked = run("verify", str(tmp_path / "game-1-seat-0.json"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: the transcript is valid" in checked.stdout and "VP " in checked.stdout


def test_a_game_between_peer_processes_over_the_real_broker():
    result = run("selfplay", "--game", "lutin", "--games", "1", "--seed", "7",
                 "--transport", "mqtt", "--bots", "heuristic,random")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "2 peer processes: games 1" in result.stdout


def test_the_engine_benchmark():
    result = run("bench", "engine", "--game", "lutin", "--games", "20", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["game"] == "lutin" and figures["games_per_s_2p"] > 0
    assert figures["variant"] == "base"  # the game's own first variant


def test_the_engine_benchmark_of_a_variant():
    """``--variant`` on ``bench``: random play over the engine's own legal actions of
    an expert game (it once listed token targets that the engine then refused)."""
    result = run("bench", "engine", "--game", "lutin", "--variant", "expert-black",
                 "--games", "20", "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["variant"] == "expert-black" and figures["games_per_s_2p"] > 0
    refused = run("bench", "engine", "--game", "truco", "--variant", "base")
    assert refused.returncode == 2 and "has no --variant option" in refused.stderr


@pytest.mark.network
def test_host_and_join_play_an_expert_game_over_the_embedded_broker(tmp_path):
    """``trutnet host --game lutin --variant expert-black`` and ``trutnet join``: two
    processes play to the end over the real broker and agree on every hash (the joiner
    takes the host's configuration)."""
    from tests.network_helpers import EARLY, result_of, spawn
    from trutnet.net.broker import EmbeddedBroker
    from trutnet.runtime.events import announced_table

    broker = EmbeddedBroker()
    url = broker.start().url
    try:
        common = ["--seed", "net-lutin", "--json", "--broker", url, "--bot", "heuristic"]
        game = ["--game", "lutin", "--variant", "expert-black"]
        host = spawn(["host", *game, "--no-announce", "--store", str(tmp_path / "h"), *common])
        table, early = announced_table(host)
        EARLY[host.pid] = early
        assert '"game": "lutin"' in "".join(early)
        guest = spawn(["join", "--game", "lutin", "--table", table, "--name", "guest",
                       "--store", str(tmp_path / "g"), *common])  # fmt: skip
        results = [result_of(p) for p in (host, guest)]
    finally:
        broker.stop()
    assert len({r["state_hash"] for r in results}) == 1
    assert all(r["halted"] is None for r in results)
    assert [r["seats"] for r in results] == [[0], [1]]
    assert all(r["log"] is None and r["entries_applied"] is None for r in results)  # no stamps


def test_the_combat_marks_of_a_logged_game():
    """``combat_marks`` finds every combat of a base game's log: from the attacker's
    ``act`` (``play hand/N``, L6) to the other seat's ``unseal`` of its riposte, which
    gives the result (L16, L7-L13)."""
    from tests.tables import play_memory_game
    from trutnet.bench.combats import combat_marks, has_combats
    from trutnet.games.lutin.rules import LutinGame
    from trutnet.games.trut.rules import TrutGame
    from trutnet.protocol.envelope import parse_entry

    table = play_memory_game(LutinGame(), "marks", ["heuristic", "random"])
    entries = {e.id.hex()[:16]: e for e in map(parse_entry, table.log)}
    plays = [e for e in entries.values() if e.type == "act" and "play" in e.body["action"]]
    marks = combat_marks(list(table.log))
    assert len(marks) == len(plays) // 2 > 0
    for attack, result in marks:
        attacker, opened = entries[attack], entries[result]
        assert attacker.type == "act" and attacker.body["action"].startswith("play")
        assert opened.type == "unseal" and opened.seat == 1 - attacker.seat
    assert combat_marks([]) == []
    assert has_combats(LutinGame()) and not has_combats(TrutGame())


@pytest.mark.network
def test_the_network_benchmark_times_the_combats_of_two_peer_processes():
    """``trutnet bench network --game lutin``'s game, once: two peer processes over the
    real embedded broker, each combat timed from the attack to both peers having its
    result (figures present and consistent; their size is the benchmark's business)."""
    from trutnet import plugins
    from trutnet.bench import network_bench
    from trutnet.games.lutin.rules import LutinGame
    from trutnet.net.broker import EmbeddedBroker

    plugins.load_plugins("")  # the lutin game is known here, to replay the host's log

    broker = EmbeddedBroker()
    endpoint = broker.start()
    try:
        played = network_bench.Played(LutinGame(), ["--game", "lutin"], "heuristic")
        figures = network_bench.real_game(endpoint, "bench-test", played)
    finally:
        broker.stop()
    assert figures["agree"] is True
    assert figures["combats"] >= 5  # one at least in each of the 5 manches a win needs (L3)
    assert 0 < figures["combat_ms_median"] <= figures["combat_ms_p90"]
    assert 0 < figures["hop_ms_median"] < figures["combat_ms_p90"]  # a combat takes hops
    line = network_bench._game_line(figures)
    assert f"median {figures['combat_ms_median']} ms" in line and "combats)" in line
    assert "median card" not in line  # a base game reveals no card by the crypto


def test_bench_protocol_times_each_manche_and_each_combat():
    """``bench protocol`` counts a Lutin & Troll game by its hands (manches, and a tied
    one's continuations: the engine's rounds), not as one, and times each combat from
    its attack to its result; a game without combats has no combat figures."""
    from trutnet.bench import protocol_bench
    from trutnet.bench.combats import combat_marks
    from trutnet.games.lutin.rules import LutinGame
    from trutnet.games.trut.rules import TrutGame
    from trutnet.memory_table import play_memory_game

    figures = protocol_bench.run(LutinGame(), seed=3)
    table = play_memory_game(LutinGame(), "bench/3", ["heuristic", "heuristic"])
    state = table.peers[0].replica.state
    assert state is not None
    assert figures["hands"] == state.round_number() + 1 > 1
    assert figures["combats"] == len(combat_marks(list(table.log))) > figures["hands"]
    assert 0 < figures["combat_ms_median"] <= figures["combat_ms_p90"]
    assert "combats: " in protocol_bench.report(figures)
    assert "combats" not in protocol_bench.run(TrutGame(players=2))
