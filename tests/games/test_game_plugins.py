"""Games are plugins above the engine too: where plugins come from (entry points, the
built-in list, ``$TRUTNET_GAME_PLUGINS``), the bots each game has, and the terminal
client's frame showing another game's table (the test game Tokens, whose front-end is
``tests/games/tokens_screen.py``)."""

from __future__ import annotations

import importlib.metadata
import random
import sys
import time
import uuid
from types import SimpleNamespace

import pytest
from prompt_toolkit.output import DummyOutput

from tests import ROOT
from tests.games.tokens import TokensGame
from trutnet import plugins
from trutnet.bots import BotError, RandomBot, bot_kinds, default_bot, make_bot
from trutnet.bots import base as bots_base
from trutnet.client import frontend as frontends
from trutnet.engine import GAMES


@pytest.fixture
def registries():
    """The registries of games, bots and front-ends as they were, after the test."""
    plugins.load_plugins("")  # the built-in plugins are in, before and after
    games, screens = dict(GAMES), dict(frontends._FRONTENDS)
    bots = {game: dict(kinds) for game, kinds in bots_base._BOTS.items()}
    called = set(plugins._called)
    yield
    for registry, saved in ((GAMES, games), (frontends._FRONTENDS, screens)):
        registry.clear()
        registry.update(saved)
    bots_base._BOTS.clear()
    bots_base._BOTS.update(bots)
    plugins._called.clear()
    plugins._called.update(called)


@pytest.fixture
def tokens(registries):
    """Tokens registered as its plugin does it (engine, bot, front-end)."""
    from tests.games.plugin import register

    register()


# ------------------------------------------------------------- where plugins come from


def dist_info(tmp_path, entry_points: str):
    """An installed distribution, as pip leaves it: a ``.dist-info`` folder with an
    ``entry_points.txt``, found on ``sys.path`` (no reinstall of trutnet needed)."""
    name = f"trutnet_extra_{uuid.uuid4().hex[:8]}"
    folder = tmp_path / f"{name}-1.0.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (folder / "entry_points.txt").write_text(entry_points)
    return name


def test_an_installed_package_adds_a_game_through_its_entry_point(
    tmp_path, monkeypatch, registries
):
    """A third party's package declares ``[trutnet.games]``: loading the plugins imports
    its module, which registers the game, its bot and its screen."""
    module = f"tokens_plugin_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text("from tests.games.plugin import register\n")
    dist_info(tmp_path, f"[trutnet.games]\ntokens = {module}:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    GAMES.pop("tokens", None)
    frontends._FRONTENDS.pop("tokens", None)
    bots_base._BOTS.pop("tokens", None)
    assert plugins.entry_point_modules()["tokens"] == f"{module}:register"
    assert plugins.load_plugins("") == []
    assert GAMES["tokens"] is TokensGame
    assert frontends.frontend_for("tokens").long_name == "Tokens"
    assert bot_kinds("tokens") == ("greedy", "search", "random")


def test_the_built_in_game_loads_when_the_installed_metadata_predates_its_entry_point(
    monkeypatch, registries
):
    """An editable install made before the entry point was declared lists no
    ``trutnet.games``: the loader falls back to the built-in list."""
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    assert plugins.entry_point_modules() == plugins.BUILT_IN
    frontends._FRONTENDS.pop("trut", None)
    bots_base._BOTS.pop("trut", None)
    monkeypatch.delitem(sys.modules, "trutnet.games.trut")  # imported afresh: registers
    assert plugins.load_plugins("") == []
    assert frontends.frontend_for("trut").long_name == "Trut"
    assert default_bot("trut") == "heuristic"


def test_the_engine_registry_names_no_game_and_loads_the_plugins_when_asked():
    """A fresh process that only imports the engine: its registry starts empty (no game
    is wired into it) and loads the plugins when asked for a game it does not know,
    through the loader that importing trutnet installs."""
    import subprocess

    code = (
        "import sys\n"
        "from trutnet.engine import GAMES, ConfigError, load_game, make_game\n"
        "assert GAMES == {} and 'trutnet.games.trut' not in sys.modules\n"
        "state = load_game({'game': 'trut', 'config': {}, 'actions': []})\n"
        "assert type(state).__module__ == 'trutnet.games.trut.rules.state'\n"
        "assert make_game('lutin').name == 'lutin'\n"
        "try:\n"
        "    make_game('nope')\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    import os

    env = {k: v for k, v in os.environ.items() if k != plugins.PLUGINS_VARIABLE}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "unknown game 'nope' (known: lutin, truco, trut)"


def test_pyproject_declares_the_built_in_plugins():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["trutnet.games"] == plugins.BUILT_IN


def test_a_plugin_that_cannot_be_loaded_is_reported_and_the_others_load(
    tmp_path, monkeypatch, registries
):
    dist_info(tmp_path, "[trutnet.games]\nbroken = no_such_module_at_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tests.games.plugin", raising=False)  # imported afresh
    problems = plugins.load_plugins("tests.games.plugin, not_a_module_either")
    assert [(p.source, p.target, p.from_variable) for p in problems] == [
        ("broken", "no_such_module_at_all", False),
        (plugins.PLUGINS_VARIABLE, "not_a_module_either", True),
    ]
    assert str(problems[0]).startswith("entry point 'broken': cannot load 'no_such_module_at_all'")
    assert "tokens" in GAMES and "trut" in frontends.frontends()


def test_the_command_line_reports_a_broken_installed_plugin_and_goes_on(tmp_path):
    """A package whose plugin fails to import: one line on stderr, and trutnet works."""
    import os
    import subprocess

    dist_info(tmp_path, "[trutnet.games]\nbroken = no_such_module_at_all\n")
    root = str(ROOT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), root])}
    run = subprocess.run(
        [sys.executable, "-m", "trutnet", "selfplay", "--players", "2", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().splitlines() == [
        "trutnet selfplay: entry point 'broken': cannot load 'no_such_module_at_all': "
        "ModuleNotFoundError: No module named 'no_such_module_at_all'"
    ]


# ------------------------------------------------------------------------- bots


def test_the_bot_factory_gives_each_game_its_own_bots_and_everyone_the_random_one(tokens):
    from tests.games.tokens_screen import GreedyBot
    from trutnet.games.trut.heuristic import HeuristicBot

    assert isinstance(make_bot("trut", "heuristic", random.Random(1)), HeuristicBot)
    assert isinstance(make_bot("tokens", "greedy", random.Random(1)), GreedyBot)
    assert isinstance(make_bot("tokens", "random", random.Random(1)), RandomBot)
    assert bot_kinds("trut") == ("heuristic", "search", "random")
    assert default_bot("tokens") == "greedy"
    with pytest.raises(BotError, match=r"the tokens game has no heuristic bot \(its bots: "):
        make_bot("tokens", "heuristic", random.Random(1))
    with pytest.raises(
        BotError,
        match=r"no genius bot \(its bots: heuristic, search, random; or a level: easy, norm",
    ):
        make_bot("trut", "genius", random.Random(1))
    # a level names a bot: easy is random, normal the game's best own bot, hard search
    assert type(make_bot("tokens", "easy", random.Random(1))).__name__ == "RandomBot"
    assert type(make_bot("tokens", "normal", random.Random(1))).__name__ == "GreedyBot"
    assert type(make_bot("trut", "hard", random.Random(1))).__name__ == "SearchBot"
    with pytest.raises(BotError, match="already has a greedy bot"):
        bots_base.register_bots("tokens", {"greedy": RandomBot})


def test_every_bot_of_the_test_game_plays_it_from_observations_only(tokens):
    """The random bot plays a game it has never heard of from ``observation.legal``."""
    from tests.tables import play_memory_game

    for kinds in (["random", "greedy"], ["greedy", "random"]):
        table = play_memory_game(TokensGame(2), f"bots-{kinds[0]}", kinds)
        replica = table.peers[0].replica
        assert replica.phase == "done" and replica.halted is None
        hashes = {p.replica.state.state_hash() for p in table.peers}
        assert len(hashes) == 1


# --------------------------------------------------------------- the frame, generic


def test_a_front_end_may_not_take_the_frames_keys(registries):
    class Greedy(frontends.Frontend):
        game = "greedy-keys"
        keys = ("1", "q")

    with pytest.raises(ValueError, match=r"takes the frame's keys \['q'\]"):
        frontends.register_frontend(Greedy)
    with pytest.raises(frontends.NoFrontend, match="no screen for the game 'nope'"):
        frontends.frontend_for("nope")


def rows_of(ui) -> list[str]:
    text = ui.screen_text()
    rows = text.splitlines()
    assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), text
    return rows


def test_the_frame_shows_another_games_table(tokens):
    """A whole game of Tokens with full crypto (in memory), seat 0 played by keys on
    the client's screen and seat 1 by Tokens' bot, a spectator watching: the frame is
    Trut's (title line with "you:", waiting line, log, spectators' line, verification
    line, message line, key bar, quit question, end screen) around Tokens' table area,
    prompts, keys and narration."""
    from tests.tables import make_table
    from trutnet.client.app import TableApp
    from trutnet.client.watch_app import WatchApp
    from trutnet.crypto import Identity, SeededRandom
    from trutnet.crypto.identity import fingerprint
    from trutnet.memory_table import MemoryTable, step, table_nonce
    from trutnet.protocol.spectator import Spectator, Watchers, watcher_message

    table_id, identities, peers = make_table(2, "tokens-screen")
    table = MemoryTable(peers, identities=identities)
    table.bots = [make_bot("tokens", "greedy", random.Random(s)) for s in range(2)]
    eve = Identity.generate(SeededRandom("eve"))
    watchers = Watchers(table_id)
    watchers.receive(fingerprint(eve.public), watcher_message(eve, table_id, "Eve"))
    runtime = SimpleNamespace(
        watchers=watchers, caught_up=True, last_progress=time.monotonic(), wake=lambda: None
    )
    player = TableApp("memory", 2, output=DummyOutput(), game="tokens", about="Tokens, 2 players")
    assert "Game: Tokens, 2 players" in player.screen_text()  # the lobby says which game
    player.seat = SimpleNamespace(peer=peers[0], identity=identities[0], store=None, pending=None)
    player.runtime = runtime  # type: ignore[assignment]
    spectator = Spectator(table_id)
    watching = WatchApp("memory", output=DummyOutput())
    watching.seat = SimpleNamespace(peer=spectator, identity=eve, store=None, pending=None)
    watching.runtime = runtime  # type: ignore[assignment]
    send = table.broadcast

    def broadcast(wire: bytes) -> None:
        send(wire)
        spectator.receive(wire)

    table.broadcast = broadcast  # type: ignore[method-assign]
    table.broadcast(
        peers[0].open_table(
            TokensGame(3),
            [i.public for i in identities],
            ["Ana", "Bob"],
            nonce=table_nonce("tokens-screen"),
        )
    )
    seen: dict[str, list[str]] = {}
    while True:
        rows = rows_of(player)
        watched = rows_of(watching)
        obs = player.observation()
        if obs.to_act is None:
            break
        assert rows[0].startswith(" Tokens — round ") and rows[0].endswith("you: Ana")
        assert watched[0].endswith("watching") and "Your cards" not in "\n".join(watched)
        assert watched[-1] == " ? help  q stop watching"
        assert rows[-3].startswith(" ✓ verified: ") and rows[-4].startswith(" Watching: Eve (")
        if player.info.step:
            seen.setdefault("step", rows)
        elif obs.to_act == 1:
            seen.setdefault("waiting", rows)
            player.game_key("1")  # not this seat's turn: the frame says so
            seen.setdefault("not mine", [player.info.message])
        elif peers[0].decide():
            seen.setdefault(obs.phase, rows)
            if obs.phase == "pick":
                player.game_key("6")
                seen.setdefault("no card", [player.info.message])
            player.game_key("1")
            assert player.seat.pending is not None, player.info.message
            action, player.seat.pending = player.seat.pending, None
            table.broadcast(peers[0].act(action))
            continue
        if not step(table):
            break
    assert any(r.startswith(" ▶ Your bet: how many rounds you win (0-3)") for r in seen["bet"])
    assert seen["bet"][-1] == " 0-3 bet  ? help  q quit"
    assert seen["pick"][-1] == " 1-3 card  ? help  q quit"
    assert any(r.startswith(" Your cards: [1]r") for r in seen["pick"])
    assert any(r.startswith(" ⠋ Waiting for Bob to ") or "Waiting for Bob to " in r
               for r in seen["waiting"])  # fmt: skip
    assert any(r.startswith(" Scores: You ") for r in seen["waiting"])
    assert seen["not mine"] == ["not your turn: waiting for Bob"]
    assert seen["no card"] == ["no card 6 to choose now"]
    assert any("(you)…" in r or "(Bob)…" in r for r in seen["step"])  # an automatic step
    assert any(r.strip() in ("Ana goes first", "Bob goes first") for r in seen["bet"])
    end = rows_of(player)
    assert end[0].startswith(" Game over — ") and " Final scores:" in end
    assert " ✓ verified: 4 shuffles, 0 reveals, 8 sealed choices opened" in end  # 2 decks x 2
    assert end[-1] == " Tab chat  q quit" and rows_of(watching)[0].startswith(" Game over — ")
    player.help = True
    assert rows_of(player)[0] == "Tokens — the test game"
    player.help = False
    assert peers[0].replica.state.state_hash() == spectator.replica.state.state_hash()


def test_a_seat_shows_no_screen_for_a_table_of_another_game(tokens):
    """A person who asked for Trut at a table whose ``open`` names Tokens (a host
    that announced one game and opened another): no Trut keys on a Tokens table, one
    line saying which game it is; a spectator follows whatever the table plays."""
    from tests.tables import new_memory_table
    from trutnet.client.app import TableApp
    from trutnet.client.watch_app import WatchApp

    table = new_memory_table(TokensGame(1), "other-game", ["random", "random"])
    player = TableApp("memory", 0, output=DummyOutput(), game="trut")
    watching = WatchApp("memory", output=DummyOutput())
    for ui in (player, watching):
        ui.seat = SimpleNamespace(peer=table.peers[0], identity=None, store=None, pending=None)
    assert player.observation() is None
    rows = rows_of(player)
    assert rows[1] == " this table plays tokens, not trut" and rows[2] == " q quit"
    player.game_key("1")
    assert player.info.message == "this table plays tokens, not trut"
    assert rows_of(watching)[0].startswith(" Tokens — round ")
    assert player.refused is not None and player.quit_requested  # the seat leaves
    assert (player.refused.game, player.refused.asked) == ("tokens", "trut")
    assert watching.refused is None


def test_a_seat_at_a_table_of_another_game_stops_with_one_line(tokens):
    """The screen of a person who asked for Trut, running, finds that the table plays
    Tokens: ``play_with_ui`` stops the seat and raises ``WrongGame`` (``trutnet join``
    prints it in one line), instead of keeping a seat that can never act."""
    import asyncio

    from prompt_toolkit.input import create_pipe_input

    from tests.tables import new_memory_table
    from trutnet.client.app import TableApp
    from trutnet.client.playing import play_with_ui
    from trutnet.runtime.lobby_watch import WrongGame

    table = new_memory_table(TokensGame(1), "other-game", ["random", "random"])
    stopped = []

    async def main() -> None:
        with create_pipe_input() as keys:
            player = TableApp("memory", 0, input=keys, output=DummyOutput(), game="trut")

            async def start(hooks):  # the seat process: sits, then waits for ever
                player.seat = SimpleNamespace(
                    peer=table.peers[0], identity=None, store=None, pending=None
                )
                try:
                    await asyncio.Event().wait()
                finally:
                    stopped.append(True)

            await asyncio.wait_for(play_with_ui(start, player), 10)

    with pytest.raises(WrongGame, match="plays tokens, not trut"):
        asyncio.run(main())
    assert stopped == [True]  # the seat process was stopped, not left running


def test_a_front_end_that_fails_is_shown_in_one_line_and_the_seat_goes_on(tokens):
    """A bug in a game's front-end (drawing, or a key) does not stop the client, which
    would take the person's seat away from the table: the screen says it in one red
    line, q still quits, and the traceback is kept (once) for when the screen is gone."""
    from tests.tables import new_memory_table
    from trutnet.client.app import TableApp
    from trutnet.client.view import plain

    table = new_memory_table(TokensGame(1), "broken-screen", ["random", "random"])
    player = TableApp("memory", 0, output=DummyOutput(), game="tokens")
    player.seat = SimpleNamespace(peer=table.peers[0], identity=None, store=None, pending=None)
    assert "Tokens" in player.screen_text()

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    player.frontend.table_area = broken
    player.frontend.press = broken
    for _ in range(2):
        text = plain([[f] for f in player._fragments() if f[1] != "\n"])
        assert "The tokens screen failed: RuntimeError: boom" in text and "q quit" in text
    assert len(player.screen_errors) == 1 and "RuntimeError: boom" in player.screen_errors[0]
    assert "Traceback" in player.screen_errors[0]
    player.info.confirm_quit = True
    assert "Quit the game? y/n" in "".join(t for _, t, *_ in player._fragments())
    player._game_key_handler("1")(None)
    assert player.info.message == "that key failed: RuntimeError: boom"
