"""Which game a command line asks for: ``--game NAME``, the game options that only some
games take (``--players``, ``--variant``, ``--sum-on-patte``, ``--deluxe``..., and
``--option KEY=VALUE`` for any other key of a game's configuration), and the bots each
game has.

A game is built through the engine's registry (:func:`trutnet.engine.make_game`),
after the plugins are loaded (:mod:`trutnet.plugins`): this module names no game but
the default one, :data:`DEFAULT_GAME`. An option is passed as the game's configuration
when the game takes it (its default configuration names it, or, for an option that is
off by default and so not named, the game accepts it); one the game does not take is
refused when given on the command line (``--players N`` is accepted for a
game with N seats). Every refusal is one line (:class:`ChoiceError`), and the command
exits with status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from trutnet.bots import BotError, bot_kinds, check_bot, default_bot
from trutnet.engine import ConfigError, game_class, game_names, make_game
from trutnet.engine.api import Game

DEFAULT_GAME = "trut"
# Command-line options that are game options (Trut's, today; a game that takes one has
# it in its default configuration): configuration key -> flag, and an on/off option as
# a summary says it when on.
OPTIONS = (
    ("players", "--players"),
    ("variant", "--variant"),
    ("sum_on_patte", "--sum-on-patte"),
    ("deluxe", "--deluxe"),
    ("bonus_cards", "--bonus-cards"),
    ("michao_hare", "--michao-hare"),
)
SAID = {"sum_on_patte": "sum on patté", "deluxe": "Deluxe", "michao_hare": "Michao with the Hare"}


class ChoiceError(Exception):
    """A game, game option or bot the command line asks for that cannot be had."""


class Given(argparse.Action):
    """Store an option's value and note that the command line gave it (``given``), so
    that a game that does not take the option refuses it only when it was asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        self.flag = kwargs.pop("flag", False)  # an on/off flag: no value
        if self.flag:
            kwargs.update(nargs=0, default=False)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, True if self.flag else values)
        given = set(getattr(namespace, "given", ()))
        namespace.given = given | {self.dest}


def game_argument(p: argparse.ArgumentParser, what: str = "the game to play") -> None:
    p.add_argument(
        "--game",
        default=DEFAULT_GAME,
        action=Given,
        metavar="NAME",
        help=f"{what}: a registered game (trutnet's own, those of installed plugins "
        "and of the modules in $TRUTNET_GAME_PLUGINS)",
    )


def known_games() -> str:
    return ", ".join(game_names())


def game_named(name: str) -> Game:
    """The game ``name`` with its default configuration; :class:`ChoiceError` listing
    the known games when there is none by that name."""
    if game_class(name) is None:
        raise ChoiceError(f"unknown game {name!r} (known games: {known_games()})")
    try:
        return make_game(name)
    except ConfigError as exc:
        raise ChoiceError(f"the {name} game: {exc}") from None


def game_of(args: argparse.Namespace) -> Game:
    """The game a command line asks for (``--game``, default :data:`DEFAULT_GAME`),
    configured by the game options it takes (see the module's docstring)."""
    name = getattr(args, "game", DEFAULT_GAME)
    default = game_named(name)
    takes = default.config_dict()
    given = getattr(args, "given", set())
    config: dict[str, Any] = {}
    for key, flag in OPTIONS:
        if not hasattr(args, key):
            continue
        value = getattr(args, key)
        if value is None:  # not given, and no default of the command's: the game's own
            continue
        shown = flag if value is True else f"{flag} {value}"
        if key not in takes and key in given and value is True and _accepts(name, config, key):
            config[key] = value  # an option that is off by default, so not named
            continue
        if key not in takes:
            if key in given and not (key == "players" and value == default.num_players()):
                if key == "players":
                    raise ChoiceError(
                        f"the {name} game is for {default.num_players()} players, not {shown}"
                    )
                options = ", ".join(sorted(takes)) or "none"
                raise ChoiceError(f"the {name} game has no {flag} option (its options: {options})")
            continue
        try:
            make_game(name, {**config, key: value})
        except ConfigError as exc:
            if key not in given:
                continue  # a command's default that this game does not allow: its own
            if value is True:
                raise ChoiceError(f"{flag}: {exc}") from None
            raise ChoiceError(f"{flag}: invalid choice {value!r}: {exc}") from None
        config[key] = value
    given_options = getattr(args, "option", None) or []
    if given_options:  # the options this configuration takes (gallo: 3 players...)
        config.update(_options(given_options, make_game(name, config).config_dict()))
    try:
        return make_game(name, config)
    except ConfigError as exc:
        said = " ".join(given_options)
        raise ChoiceError(f"--option {said}: {_in_words(str(exc))}") from None


def _options(given: list[str], takes: dict[str, Any]) -> dict[str, Any]:
    """``--option KEY=VALUE`` (repeatable): any option of the game's configuration
    (``on``/``off`` are true/false, digits a number); one it does not take is refused."""
    options: dict[str, Any] = {}
    for text in given:
        key, eq, raw = text.partition("=")
        if not eq or key not in takes:
            known = ", ".join(sorted(takes)) or "none"
            raise ChoiceError(f"--option {text}: give KEY=VALUE, KEY one of: {known}")
        value: Any = SWITCH.get(raw.lower(), raw)
        if isinstance(takes[key], bool) and not isinstance(value, bool):
            raise ChoiceError(f"--option {key}={raw}: {key} is on or off (or true, false)")
        options[key] = int(raw) if raw.isdigit() and raw.isascii() else value
    return options


SWITCH = {"on": True, "true": True, "yes": True, "off": False, "false": False, "no": False}


def _in_words(text: str) -> str:
    """A game's refusal with Python's notation put in words: ``one of (3, 1)`` as
    ``3 or 1``, ``True``/``False`` as on/off, quotes dropped."""
    import re

    def choices(match: re.Match[str]) -> str:
        values = [v.strip().strip("'\"") for v in match.group(1).split(",") if v.strip()]
        words = [{"True": "on", "False": "off"}.get(v, v) for v in values]
        return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)

    text = re.sub(r"(?:one of )?\(([^()]*)\)(?= \()", choices, text)
    return re.sub(r"\b(True|False)\b", lambda m: {"True": "on", "False": "off"}[m[1]], text)


def _accepts(name: str, config: dict[str, Any], key: str) -> bool:
    try:
        make_game(name, {**config, key: True})
    except ConfigError:
        return False
    return True


def bot_of(game: Game, kind: str | None) -> str:
    """The bot kind asked for (None: the game's best); :class:`ChoiceError` naming the
    bots the game has when it has no bot of that kind."""
    if kind is None:
        return default_bot(game.name)
    try:
        return check_bot(game.name, kind)
    except BotError as exc:
        raise ChoiceError(str(exc)) from None


def bots_of(text: str | None, game: Game) -> list[str]:
    """``--bots``: one bot kind for every seat, or one per seat, comma-separated."""
    players = game.num_players()
    kinds = [default_bot(game.name)] if text is None else text.split(",")
    if len(kinds) == 1:
        kinds = kinds * players
    known = bot_kinds(game.name)
    if len(kinds) != players or not all(_is_bot(game.name, k) for k in kinds):
        raise ChoiceError(
            f"--bots: give one of {', '.join(known)}, or {players} of them separated by commas"
        )
    return kinds


def _is_bot(game: str, kind: str) -> bool:
    """Whether ``game`` has a bot of ``kind`` (options included: ``search:ms=30``)."""
    try:
        return check_bot(game, kind) == kind
    except BotError:
        return False


def config_arguments(game: Game) -> list[str]:
    """The command-line options that give a process ``game`` and its configuration
    (``--game trut --players 4 --variant classic``), for the seats it starts."""
    config = game.config_dict()
    out = ["--game", game.name]
    for key, flag in OPTIONS:
        if key not in config:
            continue
        value = config[key]
        if isinstance(value, bool):
            out += [flag] if value else []
        else:
            out += [flag, str(value)]
    return out


def describe(game: Game) -> tuple[str, str]:
    """A game's name as people say it, and its configuration in one phrase:
    ``("Trut", "4 players, classic")``."""
    from trutnet.client.frontend import NoFrontend, frontend_for

    try:
        name = frontend_for(game.name).long_name
    except NoFrontend:
        name = game.name
    words = [f"{game.num_players()} players"]
    for key, value in game.config_dict().items():
        if isinstance(value, bool):
            words += [SAID.get(key, key.replace("_", " "))] if value else []
        elif key != "players" and not isinstance(value, dict):
            words.append(str(value) if isinstance(value, str) else f"{key} {value}")
    return name, ", ".join(words)
