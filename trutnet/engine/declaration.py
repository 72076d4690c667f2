"""A game's declaration, in the spirit of OpenSpiel's ``GameType``: what a game is called,
how many play it, its variants, and every option of its configuration with its type
(that of its default and allowed values), default, allowed values (or a validator),
and a one-line help.

Each game's package declares one (:class:`GameType`) and registers it with its game
class in one call (:func:`trutnet.engine.register_game`); a command line, a screen or
a test reads the options from it (help, defaults, validation, one-line refusals in
words) and so never names an option of a game. A class registered without one gets
a declaration made from its default configuration (:meth:`GameType.derived`): each
key an option of its default's type, with no allowed values said.

Two keys are the contract's own, since every game has a player count and some have
variants: :data:`PLAYERS` (declared when a game lets you choose how many play; its
allowed values are :attr:`GameType.players`) and :data:`VARIANT` (declared when a game
has variants; its allowed values are :attr:`GameType.variants`). Pure values, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from trutnet.engine.errors import ConfigError

PLAYERS = "players"
VARIANT = "variant"
SWITCH = {"on": True, "true": True, "yes": True, "off": False, "false": False, "no": False}


def shown(value: Any) -> str:
    """A value as a person writes it: on/off for a yes-or-no option, else its text."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def in_words(values: tuple[Any, ...] | list[Any]) -> str:
    """``2, 3, 4 or 6``; ``on or off``."""
    words = [shown(v) for v in values]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type (True is not 1)."""
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class Option:
    """One option of a game's configuration.

    ``choices``: the allowed values, in the order a help lists them (a yes-or-no
    option, whose default is a bool, allows on and off without saying so); with none,
    any value of the default's type that ``check`` accepts, said as ``values``.
    ``needs``: other options under which every allowed value applies (``players`` 6
    for an option of six players), for the help and the tests. ``flag``: a
    command-line alias (``--deluxe``: an on/off option that the flag turns on).
    ``said``: how a summary of the game says it when on (default: its key in words).
    ``rule``: the rulings it follows (``T21``), cited by its help and its refusals.
    """

    key: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    check: Callable[[Any], bool] | None = field(default=None, compare=False)
    values: str = ""
    needs: tuple[tuple[str, Any], ...] = ()
    flag: str = ""
    said: str = ""
    rule: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.default, bool) and not self.choices:
            object.__setattr__(self, "choices", (False, True))
        if self.choices and not any(_same(self.default, c) for c in self.choices):
            raise ConfigError(f"option {self.key}: its default is not one of its choices")
        if self.flag and not self.flag.startswith("--"):
            raise ConfigError(f"option {self.key}: a flag starts with --")

    @property
    def allowed(self) -> str:
        """The allowed values in words: ``3 or 1``, ``on or off (or true, false)``, or
        ``values``."""
        if isinstance(self.default, bool) and set(self.choices) == {False, True}:
            return "on or off (or true, false)"
        if self.choices:
            return in_words(self.choices)
        if self.values:
            return self.values
        return {int: "a whole number", str: "a word"}.get(
            type(self.default), f"a {type(self.default).__name__}"
        )

    def refusal(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, in one line naming the allowed values; None
        if it is allowed."""
        if self.choices:
            ok = any(_same(value, c) for c in self.choices)
        else:
            ok = type(value) is type(self.default) and (self.check is None or self.check(value))
        return None if ok else self._refused()

    def _refused(self) -> str:
        return f"{self.key} is {self.allowed}" + (f" ({self.rule})" if self.rule else "")

    @property
    def described(self) -> str:
        """Its help, citing its rulings."""
        return self.help + (f" ({self.rule})" if self.rule else "")

    def parse(self, text: str) -> Any:
        """The value a person wrote (``on``, ``3``, ``rotating``);
        :class:`~trutnet.engine.errors.ConfigError` naming the allowed values if it is
        none of them."""
        if self.choices:
            for choice in self.choices:
                if isinstance(choice, bool):
                    if SWITCH.get(text.lower()) is choice:
                        return choice
                elif str(choice).lower() == text.lower():
                    return choice
            raise ConfigError(self._refused())
        value: Any = text
        kind = type(self.default)
        if kind is bool:
            value = SWITCH.get(text.lower(), text)
        elif kind is int and text.lstrip("-").isdigit() and text.isascii():
            value = int(text)
        refused = self.refusal(value)
        if refused:
            raise ConfigError(refused)
        return value

    def text(self, value: Any) -> str:
        """``key=value`` as a person writes it."""
        return f"{self.key}={shown(value)}"


@dataclass(frozen=True)
class GameType:
    """What a game is: ``name`` (its registry name), ``title`` (as people say it),
    ``players`` (the player counts it is played with), ``variants`` (if any), and
    ``options``: every option a person may set in its configuration, the contract's
    :data:`PLAYERS` and :data:`VARIANT` among them when the game has them."""

    name: str
    title: str
    players: tuple[int, ...]
    options: tuple[Option, ...] = ()
    variants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        keys = [o.key for o in self.options]
        if len(set(keys)) != len(keys):
            raise ConfigError(f"the {self.name} game declares an option twice")
        flags = [o.flag for o in self.options if o.flag]
        if len(set(flags)) != len(flags):
            raise ConfigError(f"the {self.name} game declares a flag twice")
        players = self.option(PLAYERS)
        if not self.players or (players is None and len(self.players) != 1):
            raise ConfigError(f"the {self.name} game declares its player counts as {PLAYERS}")
        if players is not None and players.choices and players.choices != self.players:
            raise ConfigError(f"the {self.name} game's {PLAYERS} option allows its player counts")
        variant = self.option(VARIANT)
        if self.variants and (variant is None or variant.choices != self.variants):
            raise ConfigError(f"the {self.name} game's {VARIANT} option allows its variants")

    def option(self, key: str) -> Option | None:
        """The option ``key``; None if the game has none by that name."""
        return next((o for o in self.options if o.key == key), None)

    def keys(self) -> list[str]:
        """Every option's key, sorted."""
        return sorted(o.key for o in self.options)

    def defaults(self) -> dict[str, Any]:
        """Every option at its default."""
        return {o.key: o.default for o in self.options}

    @classmethod
    def derived(cls, name: str, default_config: Mapping[str, Any], players: int) -> GameType:
        """The declaration of a game registered without one: its title is its name,
        its player count that of its default configuration, and each key of that
        configuration an option of its default's type, any value of which the game
        itself then checks."""
        options = tuple(Option(key, value, "") for key, value in default_config.items())
        return cls(name, name, (players,), options)
