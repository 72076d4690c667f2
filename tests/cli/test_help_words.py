"""``--help`` in the person's language down to its placeholders: every option that
takes a value shows a word for it that :data:`trutnet.cli.language.PLACEHOLDERS`
names, and in French and Spanish no English placeholder is left, neither beside an
option nor in the help texts that name it (``--clock SECONDES|RÉSERVE+INC``,
``trutnet verify FICHIER``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from trutnet import i18n
from trutnet.cli import _parser
from trutnet.cli.language import PLACEHOLDERS, name_placeholders, placeholder


def commands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """``parser`` and every command's parser under it."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in set(action.choices.values()):
                yield from commands(command)


def written_placeholders() -> dict[str, set[str]]:
    """Each placeholder as the code writes it, and the options that have it."""
    found: dict[str, set[str]] = {}
    for command in commands(_parser(named=False)):
        for action in command._actions:
            written = placeholder(action)
            if written is not None:
                name = action.option_strings[0] if action.option_strings else action.dest
                found.setdefault(written, set()).add(f"{command.prog} {name}")
    return found


def test_every_option_that_takes_a_value_has_a_named_placeholder():
    found = written_placeholders()
    assert "SECONDS|BANK+INC" in found and "file" in found  # the walk reaches them
    missing = {word: sorted(where)[:2] for word, where in found.items() if word not in PLACEHOLDERS}
    assert not missing, f"give these a word in PLACEHOLDERS: {missing}"


def test_placeholders_say_what_the_value_is_in_english():
    shown = _parser()
    assert "{COMMAND}" not in shown.format_usage()
    help_of = {c.prog: c.format_help() for c in commands(shown)}
    assert "--stall-timeout SECONDS" in help_of["trutnet play"]
    assert "--bots K " in help_of["trutnet play"]  # as its help says: seat K bots
    assert "--loss P " in help_of["trutnet sim"]
    assert "--shrink N " in help_of["trutnet sim"] and "up to N runs" in help_of["trutnet sim"]
    assert "STALL_TIMEOUT" not in help_of["trutnet play"]


@pytest.mark.parametrize("language", ["fr", "es"])
def test_no_english_placeholder_is_left_in_any_help(language):
    i18n.use(language)
    try:
        parser = _parser()
        english = {
            word
            for written, shown in PLACEHOLDERS.items()
            for word in re.findall(r"[A-Z][A-Z0-9]+", shown)
            if word not in re.findall(r"[A-Z][A-Z0-9]+", i18n._(shown))
        } - {"LANG"}  # also the environment variable's name, which --lang's help says
        assert {"SECONDS", "KIND", "FILE", "KEY", "VALUE", "BANK"} <= english
        left = {}
        for command in commands(parser):
            text = command.format_help()
            words = set(re.findall(r"(?<![\w$])[A-Z][A-Z0-9]+(?!\w)", text)) & english
            if words:
                left[command.prog] = sorted(words)
        assert not left, f"English placeholders in {language} help: {left}"
    finally:
        i18n.use("en")


def test_a_placeholder_is_named_once_per_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stall-timeout", type=float)
    parser.add_argument("--transport", choices=["memory", "mqtt"])
    parser.add_argument("--deluxe", action="store_true")
    name_placeholders(parser)
    by_flag = {a.option_strings[0]: a.metavar for a in parser._actions if a.option_strings}
    assert by_flag["--stall-timeout"] == "SECONDS"
    assert by_flag["--transport"] is None  # its choices show, as argparse shows them
    assert by_flag["--deluxe"] is None
