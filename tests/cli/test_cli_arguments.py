"""The command line's number options: each refuses a non-number and an out-of-range
number in one line of its own, and takes the bounds themselves."""

from __future__ import annotations

import argparse
import math

import pytest

from trutnet import cli
from trutnet.cli import games, table_arguments
from trutnet.cli.arguments import bounded, whole

CASES = [
    # parser, good texts (and values), a text that is no number, (out of range, message)
    (cli._positive, {"1": 1, "1000000": 1_000_000}, "x", ("0", "must be 1..1000000, not 0")),
    (cli._seed, {"0": 0, str(2**64 - 1): 2**64 - 1}, "7.5", ("-1", "must be 0..2^64-1")),
    (cli._delay, {"0": 0.0, "1000": 1000.0}, "fast", ("1000.5", "must be 0..1000 ms, not 1000.5")),
    (table_arguments.count_arg, {"0": 0, "5": 5}, "", ("6", "must be 0..5, not 6")),
    (table_arguments.port_arg, {"0": 0, "65535": 65535}, "http",
     ("65536", "a port is 0..65535, not 65536")),
    (games._players, {"1": 1, "16": 16}, "four",
     ("17", "invalid choice: 17 (a table has 1..16 seats)")),
    (table_arguments.seconds_arg, {"0.5": 0.5, "9999999": 9_999_999.0}, "5s",
     ("nan", "must be above 0 and finite, not nan")),
]  # fmt: skip


@pytest.mark.parametrize("parse, good, word, bad", CASES)
def test_a_number_option_takes_its_range_and_refuses_the_rest(parse, good, word, bad):
    for text, value in good.items():
        assert parse(text) == value
    with pytest.raises(argparse.ArgumentTypeError, match=r"^not a .*: "):
        parse(word)
    text, message = bad
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        parse(text)
    assert str(refused.value) == message


def test_bounded_names_the_value_and_the_text():
    parse = bounded(float, "a ratio", lambda r: 0 <= r <= 1, "{value} from {text!r} is not 0..1")
    assert parse("0.25") == 0.25
    with pytest.raises(argparse.ArgumentTypeError, match=r"^2\.0 from '2' is not 0\.\.1$"):
        parse("2")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^not a ratio: 'inf%'$"):
        parse("inf%")
    assert math.isnan(bounded(float, "x", lambda v: True, "")("nan"))
    assert whole(3, 4)("3") == 3


@pytest.mark.parametrize(
    "command", ["play", "host", "join", "watch", "tables", "selfplay", "verify", "bench"]
)
def test_help_says_each_default_once_and_never_an_empty_one(command, capsys):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: )" not in text
    options = text.split(" --")[1:]
    assert options and all(option.count("(default:") <= 1 for option in options), text


def test_variant_defaults_to_each_games_own(capsys):
    """``--variant`` has no default of its own (it once said "default: classic", Trut's,
    on every game's help): a game without it given plays its own first variant."""
    from trutnet.cli.games import game_of
    from trutnet.plugins import load_plugins

    load_plugins()
    with pytest.raises(SystemExit):
        cli.main(["selfplay", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    variant = text.split("--variant VARIANT ")[-1].split(" --")[0]
    assert "(default:" not in variant and "expert-black" in variant
    for game, first in (("trut", "classic"), ("lutin", "base")):
        args = argparse.Namespace(game=game, variant=None, given={"game"})
        assert game_of(args).config_dict()["variant"] == first


def test_the_help_names_every_registered_game():
    """``trutnet --help`` says which games it plays, from their declarations (a new
    game is named the day it registers)."""
    from trutnet.engine import game_names, game_type

    said = " ".join(cli._parser().format_help().split())
    for name in game_names():
        declared = game_type(name)
        assert declared is not None and declared.title in said, (name, said)
