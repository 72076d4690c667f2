"""``--game NAME`` on every command that plays: a typo, a game option or a bot the game
does not have gets one line and status 2; the test game Tokens (loaded from
``$TRUTNET_GAME_PLUGINS``) plays through ``selfplay`` and ``bench``; ``join`` refuses a
table of another game than the one it asks for."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests import ROOT
from tests.network_helpers import track
from trutnet.net.broker import EmbeddedBroker
from trutnet.plugins import BUILT_IN

TRUTNET = [sys.executable, "-m", "trutnet"]
TABLE = "ab" * 16


def run(*args: str, plugins: bool = False, timeout: float = 120) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TRUTNET_GAME_PLUGINS", None)
    if plugins:
        env["TRUTNET_GAME_PLUGINS"] = "tests.games.plugin"
    done = subprocess.run(
        [*TRUTNET, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout
    )
    return done.returncode, done.stdout, done.stderr


COMMANDS = [
    ["selfplay"],
    ["host", "--no-announce"],
    ["join", "--broker", "mqtt://127.0.0.1:1", "--table", TABLE],
    ["play", "--no-announce"],
    ["bench", "engine"],
    ["bench", "protocol"],
    ["bench", "network"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_game_name_with_a_typo_gets_one_line_listing_the_known_games(command):
    code, out, err = run(*command, "--game", "trutt", plugins=True)
    name = " ".join(command[:2]) if command[0] == "bench" else command[0]
    assert code == 2 and out == ""
    known = ", ".join(sorted({"tokens", *BUILT_IN}))  # the test game and trutnet's own
    assert err.splitlines() == [
        f"trutnet {name.split()[0]}: error: unknown game 'trutt' (known games: {known}) "
        f"(trutnet {name.split()[0]} --help shows every option)"
    ]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--variant", "gatinaise"],
            "the tokens game has no --variant option (its options: rounds)",
        ),
        (["--sum-on-patte"], "the tokens game has no --sum-on-patte option (its options: rounds)"),
        (["--players", "4"], "the tokens game is for 2 players, not --players 4"),
        (
            ["--bots", "heuristic"],
            "--bots: the tokens game has no heuristic bot (its bots: greedy, search, random;",
        ),
    ],
)
def test_an_option_the_game_does_not_take_is_refused_in_one_line(args, says):
    code, out, err = run("selfplay", "--game", "tokens", *args, plugins=True)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and says in err, err


@pytest.mark.parametrize(
    "command",
    [
        ["host", "--no-announce", "--bot", "heuristic"],
        ["join", "--broker", "mqtt://127.0.0.1:1", "--table", TABLE, "--bot", "heuristic"],
        ["play", "--no-announce", "--bot", "heuristic"],
    ],
    ids=lambda c: c[0],
)
def test_a_bot_the_game_does_not_have_is_refused_naming_its_bots(command):
    code, out, err = run(*command, "--game", "tokens", plugins=True)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"trutnet {command[0]}: error: the tokens game has no heuristic bot (its bots: greedy, "
        f"search, random; or a level: easy, normal, hard) (trutnet {command[0]} --help shows"
        " every option)"
    ]
    code, _, err = run(*command[:-1], "genius")  # Trut's bots, by default
    assert code == 2
    assert err.splitlines() == [
        f"trutnet {command[0]}: error: the trut game has no genius bot (its bots: heuristic, "
        f"search, random; or a level: easy, normal, hard) (trutnet {command[0]} --help shows"
        " every option)"
    ]


def test_selfplay_plays_the_test_game_from_its_plugin():
    """``selfplay --game tokens``: the engine alone, then with full crypto in memory; a
    fixed number of players is accepted when it is the game's; the narration is the
    game's front-end's; the same seed gives the same games."""
    code, out, err = run(
        "selfplay", "--game", "tokens", "--players", "2", "--games", "4", "--seed", "3",
        "--json", plugins=True,
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["game"] == "tokens" and summary["rounds"] == 3 and summary["players"] == 2
    assert summary["games"] == 4 and sum(summary["wins"]) + summary.get("draws", 0) == 4
    assert summary["hands"] == 4 * 4  # the bets, then three rounds: a checkpoint each
    code, out, err = run(
        "selfplay", "--game", "tokens", "--bots", "random,greedy", "--seed", "3", "--verbose",
        plugins=True,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("=== Game 1 of --seed 3 ===\n")
    assert "goes first" in out and "the stake is" in out
    assert "Tokens, 2 players, rounds 3, seed 3" in out
    again = run(
        "selfplay", "--game", "tokens", "--bots", "random,greedy", "--seed", "3", "--verbose",
        plugins=True,
    )  # fmt: skip
    assert again[1] == out
    code, out, err = run(
        "selfplay", "--game", "tokens", "--transport", "memory", "--json", plugins=True
    )
    assert code == 0, err
    assert json.loads(out)["transport"] == "memory" and json.loads(out)["game"] == "tokens"


def test_bench_engine_and_protocol_measure_the_game_asked_for():
    code, out, err = run("bench", "engine", "--game", "tokens", "--games", "5", "--json",
                         plugins=True)  # fmt: skip
    assert code == 0, err
    figures = json.loads(out)
    assert figures["game"] == "tokens" and figures["players"] == [2]
    assert figures["hands_per_s_2p"] > 0 and "hands_per_s_4p" not in figures
    code, out, err = run("bench", "protocol", "--game", "tokens", "--json", plugins=True)
    assert code == 0, err
    figures = json.loads(out)
    assert figures["game"] == "tokens" and figures["players"] == 2 and figures["hands"] >= 1
    code, _, err = run("bench", "crypto", "--game", "tokens", plugins=True)
    assert code == 2 and err.splitlines() == [
        "trutnet bench: error: the crypto benchmark plays no game (no --game) "
        "(trutnet bench --help shows every option)"
    ]


@pytest.fixture
def tokens_table():
    """A host of Tokens waiting in its lobby for its second seat, over a broker."""
    broker = EmbeddedBroker()
    url = broker.start().url
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRUTNET_GAME_PLUGINS": "tests.games.plugin"}
    host = track(
        subprocess.Popen(
            [*TRUTNET, "host", "--game", "tokens", "--broker", url, "--no-announce", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
    )
    assert host.stdout is not None
    first = json.loads(host.stdout.readline())
    assert first["game"] == "tokens" and first["variant"] == ""
    yield url, first["table"]
    host.kill()
    host.communicate()
    broker.stop()


@pytest.mark.network
def test_join_refuses_a_table_of_another_game_in_one_line(tokens_table):
    """A bot joiner, and a person (the screen is not even opened), asked for Trut (the
    default): the host's signed announcement says Tokens."""
    url, table = tokens_table
    where = ["join", "--broker", url, "--table", table, "--lobby-timeout", "60"]
    for extra in (["--bot", "random"], ["--bot", "random", "--json"], []):
        code, out, err = run(*where, *extra, plugins=True)
        assert code == 1, (extra, err)
        assert err.splitlines() == [
            f"trutnet join: table {table} plays tokens, not trut: join it with --game tokens"
        ], extra
        assert "Traceback" not in out


def test_a_table_announces_its_variant_and_the_options_that_are_on():
    """9.1: ``trutnet tables`` and a joiner's lobby say how a table plays, not only
    which game: a Deluxe table is not listed as plain classic Trut."""
    from tests.games.tokens import TokensGame
    from trutnet.cli.play_command import _about
    from trutnet.games.truco.rules.game import TrucoGame
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.protocol.lobby import announced_variant

    deluxe = TrutGame(TrutConfig(4, deluxe=True, bonus_cards=True))
    assert announced_variant(deluxe) == "classic deluxe bonus-cards"
    assert announced_variant(TrutGame(TrutConfig(3, variant="gatinaise"))) == "gatinaise"
    assert announced_variant(TrucoGame(players=2, flor=True)) == "flor"
    assert announced_variant(TokensGame(1)) == ""
    assert _about(deluxe) == "Trut (classic deluxe bonus-cards), 4 players"


def test_bots_are_named_by_kind_or_by_level_and_a_typo_gets_the_bot_meant():
    """``--bots`` takes what ``--bot`` takes (the README: levels name bots wherever a
    bot is named), gives each back by kind, and refuses a bot the game does not have
    by its name, with the one meant."""
    from trutnet.cli.games import ChoiceError, bot_of, bots_of
    from trutnet.engine import make_game

    trut = make_game("trut", {"players": 2})
    assert bots_of("hard,normal", trut) == ["search", "heuristic"]
    assert bots_of("easy", trut) == ["random", "random"]
    assert bots_of("search:samples=8,random", trut) == ["search:samples=8", "random"]
    assert bots_of("hard,easy", trut, count=2) == ["search", "random"]
    assert bots_of(None, trut) == ["heuristic", "heuristic"]
    with pytest.raises(ChoiceError, match=r"no heurstic bot .*; did you mean heuristic\?$"):
        bots_of("search,heurstic", trut)
    with pytest.raises(ChoiceError, match=r"ms=x: a whole number 1\.\.600000$"):
        bots_of("search:ms=x,random", trut)  # what is wrong with it, no guess
    with pytest.raises(ChoiceError, match="or 2 of them separated by commas"):
        bots_of("search,heuristic,random", trut)
    with pytest.raises(ChoiceError, match=r"no hrad bot .*; did you mean hard\?$"):
        bot_of(trut, "hrad")
