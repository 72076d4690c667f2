"""Which game a command line asks for: ``--game NAME``, the game's options, and the bots
each game has.

A game's options come from its declaration (:class:`trutnet.engine.GameType`, which
its plugin registers with it): ``--players N`` and ``--variant NAME`` (the contract's
two keys: every game has a player count, some have variants), the flags that the
registered games declare for their options (:func:`option_flags`: building a
parser loads the plugins), and ``--option KEY=VALUE`` for any option (``--option help`` lists them:
:func:`options_listing`). The help, the defaults, the allowed values and the
refusals all come from the declarations, so this module names no option of a game,
and no game but the default one, :data:`DEFAULT_GAME`.

A game is built through the engine's registry (:func:`trutnet.engine.make_game`),
after the plugins are loaded (:mod:`trutnet.plugins`). An option a game does not
declare is refused when given on the command line (``--players N`` is accepted for a
game with N seats), and so is a value it does not allow, naming the allowed values in
words. Every refusal is one line (:class:`ChoiceError`), and the command exits with
status 2.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import Any

from trutnet.bots import LEVELS, BotError, bot_kinds, check_bot, default_bot
from trutnet.cli.arguments import meant, whole
from trutnet.cli.language import PLACEHOLDERS
from trutnet.engine import (
    PLAYERS,
    VARIANT,
    ConfigError,
    GameType,
    Option,
    game_names,
    game_type,
    make_game,
)
from trutnet.engine.api import Game
from trutnet.engine.declaration import shown
from trutnet.i18n import N_, _, clauses, labelled, ngettext
from trutnet.plugins import DEFAULT_GAME as DEFAULT_GAME  # re-exported: the commands' default

FLAG_DEST = "game_flag_"  # the argparse dest of a declared flag: FLAG_DEST + its name
SHADOWED: set[str] = set()  # the games' flags that a command's own option took


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


def game_argument(p: argparse.ArgumentParser, what: str = N_("the game to play")) -> None:
    """``--game``; ``what``: what the game is for, in English (marked with ``N_``)."""
    p.add_argument(
        "--game",
        default=DEFAULT_GAME,
        action=Given,
        metavar="NAME",
        help=_(
            "{what}: a registered game (trutnet's own, those of installed plugins "
            "and of the modules in $TRUTNET_GAME_PLUGINS)"
        ).format(what=_(what)),
    )


def known_games() -> str:
    return ", ".join(game_names())


def declarations() -> list[GameType]:
    """Every registered game's declaration, by name (the plugins loaded first)."""
    found = (game_type(name) for name in game_names())
    return [declared for declared in found if declared is not None]


def declared(name: str) -> GameType:
    """The declaration of the game ``name``; :class:`ChoiceError` listing the known
    games when there is none by that name."""
    found = game_type(name)
    if found is None:
        raise ChoiceError(
            _("unknown game {name} (known games: {known})").format(
                name=repr(name), known=known_games()
            )
        )
    return found


def _help(text: str) -> str:
    return text.replace("%", "%%")  # argparse formats a help with %


# a game says which
_players = whole(1, 16, N_("invalid choice: {value} (a table has 1..16 seats)"))


def game_options(p: argparse.ArgumentParser, players: int) -> None:
    """The options of the games: ``--players`` (``players``: the command's default),
    ``--variant``, ``--option`` and every declared flag; given to the game as its
    configuration, refused by a game that does not take them."""
    counts = [labelled(d.title, or_said(d.players)) for d in declarations() if d.option(PLAYERS)]
    p.add_argument(
        "--players",
        type=_players,
        default=players,
        action=Given,
        help=_help(
            _("seats at the table, for a game that lets you choose ({counts})").format(
                counts=clauses(counts)
            )
        ),
    )
    variant_option(p)
    config_options(p)


def variant_option(p: argparse.ArgumentParser) -> None:
    """``--variant``: the game's own first variant unless given."""
    said = [labelled(d.title, or_said(d.variants)) for d in declarations() if d.variants]
    p.add_argument(
        "--variant",
        default=None,
        action=Given,
        help=_help(
            _(
                "the game's variant, for a game that has some; its own first by default "
                "({variants})"
            ).format(variants=clauses(said))
        ),
    )


def config_options(p: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE``, and the flags the games declare for their options."""
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=_(
            "any option of the game, repeatable; on/off for a yes-or-no option. "
            "--option help lists the game's options, their values and defaults"
        ),
    )
    _commands_first(p)
    taken = {o for action in p._actions for o in action.option_strings}
    for flag, owners in option_flags().items():
        if flag in taken:  # a command's own option: the game's flag is --option only
            continue
        option = owners[0][1]
        said = clauses(labelled(title, described_said(option)) for title, option in owners)
        if isinstance(option.default, bool):
            p.add_argument(flag, dest=_dest(flag), action=GameFlag, flag=True, help=_help(said))
        else:
            p.add_argument(
                flag, dest=_dest(flag), action=GameFlag, metavar="VALUE", help=_help(said)
            )


class GameFlag(Given):
    """A flag that a game declares for one of its options."""


def _commands_first(p: argparse.ArgumentParser) -> None:
    """A game's flag gives way to an option of the command added after it with the same
    name (the game's option is then given with ``--option``); any other clash of
    names is argparse's error, as always."""

    def handle(action: argparse.Action, clashes: list[tuple[str, argparse.Action]]) -> None:
        if all(isinstance(clash, GameFlag) for _, clash in clashes):
            SHADOWED.update(flag for flag, _ in clashes)
            p._handle_conflict_resolve(action, clashes)  # type: ignore[attr-defined]
        else:
            p._handle_conflict_error(action, clashes)  # type: ignore[attr-defined]

    # argparse calls the _handle_conflict_<handler> of the parser or of the group that
    # an option is added to (the parser's own options go to its group of optionals)
    for container in (p, p._optionals):  # type: ignore[attr-defined]
        container._handle_conflict_commands_first = handle  # type: ignore[attr-defined]
        container.conflict_handler = "commands_first"


def option_flags() -> dict[str, list[tuple[str, Option]]]:
    """Each flag the registered games declare, with the games' titles and options."""
    flags: dict[str, list[tuple[str, Option]]] = {}
    for game in declarations():
        for option in game.options:
            if option.flag:
                flags.setdefault(option.flag, []).append((game.title, option))
    return flags


def _dest(flag: str) -> str:
    return FLAG_DEST + flag[2:].replace("-", "_")


class _Choices:
    """The configuration a command line asks for, built one option at a time: each
    checked against the declaration, then with the game (an option may need another:
    a refusal names the option given)."""

    def __init__(self, name: str, given: set[str]) -> None:
        self.name = name
        self.declared = declared(name)
        self.given = given
        self.config: dict[str, Any] = {}

    def take(self, option: Option, value: Any, shown_as: str, gave: bool) -> None:
        """``value`` of ``option``, said on the command line as ``shown_as``; ``gave``:
        the person gave it (else a command's default, dropped if the game refuses it)."""
        refused = None if option.refusal(value) is None else refused_said(option)
        if refused is None:
            try:
                make_game(self.name, {**self.config, option.key: value})
            except ConfigError as exc:  # with the others given: said from its ``needs``
                refused = needs_said(option) if option.needs else in_plain_words(str(exc))
            else:
                self.config[option.key] = value
                return
        if gave:
            raise ChoiceError(labelled(shown_as, refused))

    def players(self, count: int, gave: bool) -> None:
        option = self.declared.option(PLAYERS)
        counts = self.declared.players
        if option is not None and option.refusal(count) is None:
            self.take(option, count, f"--players {count}", gave)
        elif gave and not (option is None and count in counts):
            raise ChoiceError(
                _("the {game} game is for {counts} players, not --players {count}").format(
                    game=self.name, counts=or_said(counts), count=count
                )
            )

    def given_flag(self, option: Option, value: Any) -> None:
        """The flag of ``option``: on, or followed by a value a person wrote."""
        if isinstance(option.default, bool):
            self.take(option, value, option.flag, True)
            return
        try:
            parsed = option.parse(value)
        except ConfigError:
            raise ChoiceError(labelled(f"{option.flag} {value}", refused_said(option))) from None
        self.take(option, parsed, f"{option.flag} {value}", True)

    def unmet(self, texts: list[str]) -> list[Option]:
        """The options of ``texts`` (``KEY=VALUE``) whose ``needs`` the configuration
        does not meet (an option not given counts at its default)."""
        found = []
        for text in texts:
            option = self.declared.option(text.partition("=")[0])
            if option is None or not option.needs:
                continue
            for key, value in option.needs:
                other = self.declared.option(key)
                default = other.default if other is not None else None
                if self.config.get(key, default) != value:
                    found.append(option)
                    break
        return found

    def absent(self, flag: str) -> ChoiceError:
        keys = ", ".join(self.declared.keys())
        said = (
            _("the {game} game has no {flag} option (its options: {keys})")
            if keys
            else _("the {game} game has no {flag} option (its options: none)")
        )
        return ChoiceError(said.format(game=self.name, flag=flag, keys=keys))

    def option(self, text: str) -> None:
        """``--option KEY=VALUE``."""
        key, eq, raw = text.partition("=")
        option = self.declared.option(key) if eq else None
        if option is None:
            keys = self.declared.keys()
            said = (
                _("--option {text}: give KEY=VALUE, KEY one of: {known}")
                if keys
                else _("--option {text}: give KEY=VALUE, KEY one of: none")
            )
            raise ChoiceError(said.format(text=text, known=", ".join(keys)) + meant(key, keys))
        try:
            self.config[key] = option.parse(raw)
        except ConfigError:
            raise ChoiceError(labelled(f"--option {text}", refused_said(option))) from None


def game_of(args: argparse.Namespace) -> Game:
    """The game a command line asks for (``--game``, default :data:`DEFAULT_GAME`),
    configured by the options it gives (see the module's docstring)."""
    choices = _Choices(getattr(args, "game", DEFAULT_GAME), set(getattr(args, "given", ())))
    given = choices.given
    count = getattr(args, "players", None)
    if count is not None:  # given, or the command's default
        choices.players(count, "players" in given)
    variant = getattr(args, "variant", None)
    if variant is not None:
        option = choices.declared.option(VARIANT)
        if option is None:
            raise choices.absent("--variant")
        if option.refusal(variant) is not None:  # with the variant meant, if a typo
            typed = meant(variant, [shown(c) for c in option.choices])
            said = _("--variant {variant}: invalid choice").format(variant=variant)
            raise ChoiceError(labelled(said, refused_said(option) + typed))
        choices.take(option, variant, f"--variant {variant}", True)
    for flag in option_flags():  # a flag of another game's option, given: refused
        if _dest(flag) in given and not any(o.flag == flag for o in choices.declared.options):
            raise choices.absent(flag)
    for option in choices.declared.options:  # in the declaration's order
        if option.flag and _dest(option.flag) in given:
            choices.given_flag(option, getattr(args, _dest(option.flag)))
    given_options = getattr(args, "option", None) or []
    for text in given_options:
        choices.option(text)
    try:
        return make_game(choices.name, choices.config)
    except ConfigError as exc:
        said = " ".join(given_options)
        unmet = choices.unmet(given_options)  # the one that needs other options, if so
        why = needs_said(unmet[0]) if len(unmet) == 1 else in_plain_words(str(exc))
        raise ChoiceError(labelled(f"--option {said}", why)) from None


def game_named(name: str) -> Game:
    """The game ``name`` with its default configuration; :class:`ChoiceError` listing
    the known games when there is none by that name."""
    declared(name)
    try:
        return make_game(name)
    except ConfigError as exc:
        raise ChoiceError(_("the {game} game: {problem}").format(game=name, problem=exc)) from None


def or_said(values: tuple[Any, ...] | list[Any]) -> str:
    """``2, 3, 4 or 6`` in the person's language (the values as a person types them)."""
    words = [shown(v) for v in values]
    if len(words) < 2:
        return "".join(words)
    return _("{first} or {last}").format(first=", ".join(words[:-1]), last=words[-1])


def allowed_said(option: Option) -> str:
    """An option's allowed values in the person's words (the declaration's
    :attr:`~trutnet.engine.declaration.Option.allowed`, translated)."""
    if isinstance(option.default, bool) and set(option.choices) == {False, True}:
        return _("on or off (or true, false)")
    if option.choices:
        return or_said(option.choices)
    if option.values:
        return _(option.values)
    kinds = {int: N_("a whole number"), str: N_("a word")}
    return _(kinds[type(option.default)]) if type(option.default) in kinds else option.allowed


def refused_said(option: Option) -> str:
    """Why a value is refused: ``KEY is 3 or 1 (RULING)``, in the person's words."""
    said = _("{key} is {allowed}").format(key=option.key, allowed=allowed_said(option))
    return _ruled(said, option)


def needs_said(option: Option) -> str:
    """Why an option does not go with the others given: the declaration says under
    which options it applies (``KEY applies with players=6``)."""
    needs = ", ".join(f"{key}={shown(value)}" for key, value in option.needs)
    said = _("{key} does not go with the options given (it applies with {needs})")
    return _ruled(said.format(key=option.key, needs=needs), option)


def described_said(option: Option) -> str:
    """An option's help in the person's language (the game's catalog has it), citing
    its rulings."""
    return _ruled(_(option.help), option)


def _ruled(said: str, option: Option) -> str:
    """``said``, citing the rulings the option follows: ``... (T21)``."""
    return said + (f" ({option.rule})" if option.rule else "")


def in_plain_words(text: str) -> str:
    """A game's refusal with Python's notation put in words: ``one of (3, 1)`` as
    ``3 or 1``, ``True``/``False`` as on/off, quotes dropped."""

    def choices(match: re.Match[str]) -> str:
        values = [v.strip().strip("'\"") for v in match.group(1).split(",") if v.strip()]
        words = [{"True": "on", "False": "off"}.get(v, v) for v in values]
        if len(words) < 2:
            return "".join(words)
        return _("{first} or {last}").format(first=", ".join(words[:-1]), last=words[-1])

    text = re.sub(r"(?:one of )?\(([^()]*)\)(?= \()", choices, text)
    return re.sub(r"\b(True|False)\b", lambda m: {"True": "on", "False": "off"}[m[1]], text)


def wants_listing(args: argparse.Namespace) -> bool:
    """``--option help``: the person asks for the game's options."""
    return "help" in (getattr(args, "option", None) or [])


def options_listing(name: str, width: int = 80, players: int | None = None) -> str:
    """The options of the game ``name``, from its declaration: each with its allowed
    values, its default and its flag, then its help (``--option help``); ``players``:
    the command's own count, said as the default (``play`` seats 2 unless told)."""
    import textwrap

    game = declared(name)
    lines = [
        _("{title} (--game {name}): {counts} players.").format(
            title=game.title, name=game.name, counts=or_said(game.players)
        ),
        _("Its options (--option KEY=VALUE):") if game.options else _("It has no option."),
    ]
    for option in game.options:
        values = "|".join(shown(c) for c in option.choices) or "{value} ({allowed})".format(
            value=_(PLACEHOLDERS["VALUE"]), allowed=allowed_said(option)
        )
        also = {
            PLAYERS: "--players " + _(PLACEHOLDERS["PLAYERS"]),
            VARIANT: "--variant " + _(PLACEHOLDERS["VARIANT"]),
        }.get(option.key, option.flag)
        default = players if option.key == PLAYERS and players is not None else option.default
        about = (_("default {value}; or {also}") if also else _("default {value}")).format(
            value=shown(default), also=also
        )
        lines += textwrap.wrap(
            f"{option.key}={values} ({about})",
            width,
            initial_indent="  ",
            subsequent_indent=" " * 6,
            break_on_hyphens=False,
        )
        indent = " " * 6
        lines += textwrap.wrap(
            described_said(option), width, initial_indent=indent, subsequent_indent=indent
        )
    return "\n".join(lines)


def bot_of(game: Game, kind: str | None) -> str:
    """The bot kind asked for (None: the game's best); :class:`ChoiceError` naming the
    bots the game has when it has no bot of that kind."""
    if kind is None:
        return default_bot(game.name)
    try:
        return check_bot(game.name, kind)
    except BotError as exc:
        raise ChoiceError(_no_such_bot(game, kind, exc)) from None


def _no_such_bot(game: Game, kind: str, exc: BotError) -> str:
    """Why ``game`` has no bot ``kind``: what is wrong with a known bot's options (a
    search budget, in the registry's words), or the bots the game has and the one
    meant when it looks like a typo."""
    kinds, base = bot_kinds(game.name), kind.partition(":")[0]
    if base in kinds or base in LEVELS:
        return str(exc)
    said = _("the {game} game has no {bot} bot (its bots: {kinds}; or a level: {levels})")
    return said.format(
        game=game.name, bot=kind, kinds=", ".join(kinds), levels=", ".join(LEVELS)
    ) + meant(base, [*kinds, *LEVELS])


def bots_of(text: str | None, game: Game, count: int | None = None) -> list[str]:
    """``--bots``: one bot for every seat, or one per seat (``count``: that many;
    by default the game's seats), comma-separated; each by kind (options included:
    ``search:ms=30``) or by level (``hard``), given back by kind. A bot the game does
    not have is named in the refusal, with the bot meant when it looks like a typo."""
    count = game.num_players() if count is None else count
    kinds = [default_bot(game.name)] if text is None else text.split(",")
    if len(kinds) == 1:
        kinds = kinds * count
    if len(kinds) != count:
        raise ChoiceError(
            _(
                "--bots: give one of {known} (or a level: {levels}), or {count} of them"
                " separated by commas"
            ).format(known=", ".join(bot_kinds(game.name)), levels=", ".join(LEVELS), count=count)
        )
    found = []
    for kind in kinds:
        try:
            found.append(check_bot(game.name, kind))
        except BotError as exc:
            raise ChoiceError("--bots: " + _no_such_bot(game, kind, exc)) from None
    return found


def config_arguments(game: Game) -> list[str]:
    """The command-line options that give a process ``game`` and its configuration
    (``--game trut --players 4 --variant classic``), for the seats it starts: the
    player count and the variant, then each option not at its default (by its flag
    when it has one that no command took, else ``--option KEY=VALUE``)."""
    config = game.config_dict()
    out = ["--game", game.name]
    for option in declared(game.name).options:
        if option.key not in config:
            continue
        value = config[option.key]
        if option.key == PLAYERS:
            out += ["--players", str(value)]
        elif option.key == VARIANT:
            out += ["--variant", str(value)]
        elif type(value) is type(option.default) and value == option.default:
            continue
        elif option.flag in SHADOWED or not option.flag:
            out += ["--option", option.text(value)]
        elif value is True:
            out.append(option.flag)
        elif not isinstance(value, bool):
            out += [option.flag, shown(value)]
        else:
            out += ["--option", option.text(value)]
    return out


def describe(game: Game) -> tuple[str, str]:
    """A game's name as people say it, and its configuration in one phrase:
    ``("Trut", "4 players, classic")``; an on/off option that is on as its declaration
    says it."""
    from trutnet.client.frontend import NoFrontend, frontend_for

    try:
        name = frontend_for(game.name).long_name
    except NoFrontend:
        name = game.name
    game_type_ = declared(game.name)
    count = game.num_players()
    words = [ngettext("{count} player", "{count} players", count).format(count=count)]
    for key, value in game.config_dict().items():
        if isinstance(value, bool):
            option = game_type_.option(key)
            said = option.said if option is not None and option.said else key.replace("_", " ")
            words += [_(said)] if value else []  # in the game's catalog, if it says it
        elif key != PLAYERS and not isinstance(value, dict):
            words.append(_(value) if isinstance(value, str) else f"{key} {value}")
    return name, ", ".join(words)
