"""Each registered game's declaration (:class:`trutnet.engine.GameType`) and the
options the command line builds from it: the defaults build the game, each allowed
value builds it, a bad value is refused in one line naming the allowed values in
words, a misspelt key gets the right one suggested, the old flags (``--players``,
``--variant``, ``--sum-on-patte``, ``--deluxe``...) still work, a seat's command line
(:func:`config_arguments`) gives back the same game, and no module of the command
line, the client or the runtime names an option of a game."""

from __future__ import annotations

import argparse
import re

import pytest

from tests import ROOT
from trutnet import cli
from trutnet.cli.games import (
    ChoiceError,
    config_arguments,
    describe,
    game_of,
    options_listing,
)
from trutnet.engine import (
    GAMES,
    PLAYERS,
    VARIANT,
    ConfigError,
    GameType,
    Option,
    game_names,
    game_type,
    make_game,
    register_game,
)
from trutnet.engine.registry import DECLARATIONS
from trutnet.plugins import BUILT_IN, load_plugins

load_plugins()
NAMES = sorted(BUILT_IN)
OPTIONS = [(name, o) for name in NAMES for o in game_type(name).options]  # type: ignore[union-attr]


def _id(case: tuple[str, Option]) -> str:
    return f"{case[0]}-{case[1].key}"


def _parse(*argv: str) -> argparse.Namespace:
    """The arguments ``trutnet selfplay ARGV`` parses to."""
    args, extra = cli._parser().parse_known_args(["selfplay", *argv])
    assert not extra
    return args


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", NAMES)
def test_each_game_registers_its_declaration_and_its_defaults_build_it(name):
    declared = game_type(name)
    assert declared is DECLARATIONS[name] and declared.name == name and declared.title
    default = make_game(name)
    assert default.num_players() in declared.players
    assert make_game(name, declared.defaults()).config_dict() == default.config_dict()
    for key, value in default.config_dict().items():  # every key of its configuration
        option = declared.option(key)
        assert option is not None and _same(option.default, value), key
    assert game_of(argparse.Namespace(game=name)).config_dict() == default.config_dict()
    from trutnet.client.frontend import frontend_for

    assert frontend_for(name).long_name == declared.title  # the screen says the same
    listing = options_listing(name)
    assert declared.title in listing and all(f"{o.key}=" in listing for o in declared.options)


@pytest.mark.parametrize("case", OPTIONS, ids=_id)
def test_each_allowed_value_builds_the_game(case):
    name, option = case
    assert option.choices and option.help and option.rule
    for value in option.choices:
        config = {**dict(option.needs), option.key: value}
        game = make_game(name, config)
        assert _same(game.config_dict().get(option.key, option.default), value)
        assert option.parse(option.text(value).split("=", 1)[1]) == value
        args = argparse.Namespace(game=name, option=[option.text(value)], given={"game"})
        for key, needed in option.needs:
            args.option.insert(0, f"{key}={needed}")
        assert game_of(args).config_dict() == game.config_dict()
        # a seat's command line gives back the same game
        assert game_of(_parse(*config_arguments(game))).config_dict() == game.config_dict()


@pytest.mark.parametrize("case", OPTIONS, ids=_id)
def test_a_bad_value_is_refused_in_one_line_naming_the_allowed_values(case, capsys):
    name, option = case
    with pytest.raises(ConfigError):  # the game itself refuses it too
        make_game(name, {**dict(option.needs), option.key: "maybe"})
    assert cli.main(["selfplay", "--game", name, "--option", f"{option.key}=maybe"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"trutnet selfplay: error: --option {option.key}=maybe: {option.key} is "
        f"{option.allowed} ({option.rule}) (trutnet selfplay --help shows every option)"
    ]
    assert not re.search(r"\((True|False|'|\d+,)", err)  # words, not Python's values


@pytest.mark.parametrize("name", NAMES)
def test_a_misspelt_key_gets_the_right_one_suggested(name):
    key = game_type(name).options[-1].key  # type: ignore[union-attr]
    with pytest.raises(ChoiceError, match=rf"KEY one of: .*; did you mean {key}\?$"):
        game_of(argparse.Namespace(game=name, option=[f"{key[:-1]}=1"], given={"game"}))


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        (["--players", "6", "--sum-on-patte"], ["players=6", "sum_on_patte=on"]),
        (["--variant", "gatinaise", "--players", "3"], ["variant=gatinaise", "players=3"]),
        (["--deluxe", "--bonus-cards"], ["deluxe=on", "bonus_cards=on"]),
        (
            ["--deluxe", "--michao-hare", "--players", "2"],
            ["deluxe=on", "michao_hare=on", "players=2"],
        ),
        (["--game", "truco", "--players", "8"], ["players=8"]),
        (["--game", "lutin", "--variant", "expert-white"], ["variant=expert-white"]),
    ],
)
def test_the_old_flags_still_work(flags, options):
    game = [w for w in flags[flags.index("--game") :][:2]] if "--game" in flags else []
    by_flags = game_of(_parse(*flags))
    by_options = game_of(_parse(*game, *(w for o in options for w in ("--option", o))))
    assert by_flags.config_dict() == by_options.config_dict()
    for option in options:
        key, _, text = option.partition("=")
        value = game_type(by_flags.name).option(key).parse(text)  # type: ignore[union-attr]
        assert _same(by_flags.config_dict()[key], value)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--sum-on-patte"],
            "--sum-on-patte: sum_on_patte does not go with the options given"
            " (it applies with players=6) (T21)",
        ),
        (
            ["--bonus-cards"],
            "--bonus-cards: bonus_cards does not go with the options given"
            " (it applies with deluxe=on) (T23)",
        ),
        (["--game", "truco", "--deluxe"], "the truco game has no --deluxe option (its options: "),
        (["--game", "lutin", "--players", "4"], "the lutin game is for 2 players, not --players 4"),
        (["--game", "truco", "--players", "5"], "the truco game is for 2, 3, 4, 6 or 8 players"),
        (["--variant", "breton"], "--variant breton: invalid choice: variant is classic or "),
        (["--game", "truco", "--option", "flor"], "--option flor: give KEY=VALUE, KEY one of: "),
    ],
)
def test_a_flag_a_game_refuses_gets_one_line(argv, says):
    with pytest.raises(ChoiceError) as refused:
        game_of(_parse(*argv))
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_option_help_lists_the_games_options(capsys):
    assert cli.main(["play", "--game", "truco", "--option", "help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Truco (--game truco): 2, 3, 4, 6 or 8 players.")
    assert "  chicos=3|1 (default 3)" in out and all(len(line) <= 80 for line in out.splitlines())


def test_the_summary_says_an_option_as_its_declaration_does():
    game = game_of(_parse("--players", "6", "--sum-on-patte", "--deluxe"))
    assert describe(game) == ("Trut", "6 players, classic, sum on patté, Deluxe")


def test_a_game_registered_without_a_declaration_gets_one_from_its_defaults():
    from tests.games.tokens import TokensGame

    register_game(TokensGame)
    try:
        declared = game_type("tokens")
        assert declared is not None and declared.players == (2,)
        assert [(o.key, o.default) for o in declared.options] == [("rounds", 3)]
        rounds = declared.option("rounds")
        assert rounds is not None and rounds.refusal("x") == "rounds is a whole number"
        with pytest.raises(ChoiceError, match=r"rounds=x: rounds is a whole number$"):
            game_of(argparse.Namespace(game="tokens", option=["rounds=x"], given=set()))
        game = game_of(argparse.Namespace(game="tokens", option=["rounds=2"], given=set()))
        assert config_arguments(game) == ["--game", "tokens", "--option", "rounds=2"]
    finally:
        GAMES.pop("tokens", None)


def test_an_option_with_a_validator_instead_of_allowed_values():
    rounds = Option("rounds", 3, "how many rounds", check=lambda n: 1 <= n <= 9, values="1 to 9")
    assert rounds.parse("5") == 5 and rounds.refusal(9) is None and rounds.allowed == "1 to 9"
    for text in ("12", "x", "3.5"):
        with pytest.raises(ConfigError, match=r"^rounds is 1 to 9$"):
            rounds.parse(text)
    assert rounds.refusal(True) == "rounds is 1 to 9"  # a bool is no number of rounds


def test_a_declaration_is_checked_when_made():
    with pytest.raises(ConfigError, match="default is not one of its choices"):
        Option("colour", "red", "", choices=("blue",))
    with pytest.raises(ConfigError, match="player counts"):
        GameType("x", "X", (2, 4))  # two counts and no players option
    with pytest.raises(ConfigError, match="variants"):
        GameType("x", "X", (2,), variants=("a", "b"))
    with pytest.raises(ConfigError, match="declared as"):
        register_game(GAMES["trut"], game_type("truco"))


def _option_words() -> set[str]:
    """Every option key of the registered games but the contract's own, as a key, a
    flag and in words (``sum_on_patte``, ``sum-on-patte``)."""
    words = set()
    for name in game_names():
        for option in game_type(name).options:  # type: ignore[union-attr]
            if option.key not in (PLAYERS, VARIANT):
                words |= {option.key, option.key.replace("_", "-")}
                words |= {option.flag[2:]} if option.flag else set()
    return words


def test_no_module_of_the_command_line_the_client_or_the_runtime_names_a_game_option():
    """The declarations say every option: the layers above the games read them, and
    name none, as a key or a flag (not even in a help text or a comment; a game's
    name, capitalised, is a word of a help text)."""
    words = _option_words()
    assert {"deluxe", "flor", "chicos"} <= words  # the built-in games' options are there
    pattern = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, words))) + r")(?![\w-])")
    declaring = (ROOT / "trutnet/games/trut/rules/declaration.py").read_text()
    assert pattern.search(declaring)  # the pattern finds a key where one is named
    found = []
    trees = ["cli", "client", "runtime", "bench", "sim", "selfplay.py"]
    for tree in trees:
        top = ROOT / "trutnet" / tree
        for path in [top] if top.is_file() else sorted(top.rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_a_declared_flag_that_takes_a_value_and_one_a_command_has_already():
    """A game's flag may take a value (``--rounds 2``), parsed and refused by its
    declaration; a flag that a command has already (``--seed``) stays the command's,
    and the option is given with ``--option``."""
    from tests.games.tokens import TokensGame

    cls = type("RoundsGame", (TokensGame,), {"name": "rounds-test"})
    declared = GameType(
        "rounds-test",
        "Rounds",
        (2,),
        (
            Option("rounds", 3, "how many rounds", choices=(1, 2, 3), flag="--rounds", rule="R1"),
            Option("deluxe", False, "the exile, the peek, the watch", flag="--seed", rule="R2"),
        ),
    )
    register_game(cls, declared)
    try:
        game = game_of(_parse("--game", "rounds-test", "--rounds", "2", "--option", "deluxe=on"))
        assert game.config_dict() == {"rounds": 2, "deluxe": True}
        assert config_arguments(game) == [
            *("--game", "rounds-test", "--rounds", "2", "--option", "deluxe=on")
        ]
        with pytest.raises(ChoiceError, match=r"^--rounds 5: rounds is 1, 2 or 3 \(R1\)$"):
            game_of(_parse("--game", "rounds-test", "--rounds", "5"))
        with pytest.raises(ChoiceError, match="the trut game has no --rounds option"):
            game_of(_parse("--rounds", "2"))
        assert _parse("--seed", "7").seed == 7  # the command's own
    finally:
        GAMES.pop("rounds-test", None)
        DECLARATIONS.pop("rounds-test", None)
