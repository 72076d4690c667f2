"""The registry of game plugins, and loading a serialised game.

The registry names no game: each game's plugin registers its class, with its
declaration (:class:`~trutnet.engine.declaration.GameType`: title, player counts,
variants, options), when imported (:func:`register_game`). Asked for a name it does
not know, the registry calls its plugin loader (:func:`set_plugin_loader`;
:mod:`trutnet` installs :func:`trutnet.plugins.load_plugins` there when imported, so
the engine imports nothing above it), then looks again.

A serialised game is ``{"game": name, "config": {...}, "actions": ["...", ...]}``
(:meth:`trutnet.engine.api.GameState.serialise`). Loading replays every action and so
checks every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from trutnet.engine.api import Game, GameState
from trutnet.engine.declaration import GameType
from trutnet.engine.errors import ConfigError, EngineError

GAMES: dict[str, type[Game]] = {}
DECLARATIONS: dict[str, GameType] = {}  # each game's, as its plugin registered it
_loader: Callable[[], object] | None = None  # the plugin loader, once installed


def set_plugin_loader(loader: Callable[[], object]) -> None:
    """Install the function that loads the game plugins (each registers its game);
    the registry calls it when asked for a game it does not know."""
    global _loader
    _loader = loader


def game_class(name: str) -> type[Game] | None:
    """The class registered as ``name``, after loading the plugins if it is unknown;
    None if no plugin registers it."""
    if name not in GAMES and _loader is not None:
        _loader()
    return GAMES.get(name)


def game_names() -> list[str]:
    """The names of every registered game, sorted, the plugins loaded first."""
    if _loader is not None:
        _loader()
    return sorted(GAMES)


def register_game(cls: type[Game], declaration: GameType | None = None) -> type[Game]:
    """Add a game plugin under its ``name``, with its declaration (usable as a class
    decorator, without one). A name names one game: registering another class under
    a taken name is refused, and so is a declaration of another name. The same class
    again without a declaration keeps the one it was registered with."""
    existing = GAMES.get(cls.name)
    if existing is not None and existing is not cls:
        raise ConfigError(f"a game named {cls.name!r} is already registered")
    if declaration is not None and declaration.name != cls.name:
        raise ConfigError(f"the {cls.name} game is declared as {declaration.name!r}")
    GAMES[cls.name] = cls
    if declaration is not None:
        DECLARATIONS[cls.name] = declaration
    return cls


def game_type(name: str) -> GameType | None:
    """The declaration of the game ``name`` (made from its default configuration if
    its plugin registered none: :meth:`GameType.derived`); None if no plugin registers
    it."""
    cls = game_class(name)
    if cls is None:
        return None
    if name not in DECLARATIONS:
        default = cls.from_config({})
        return GameType.derived(name, default.config_dict(), default.num_players())
    return DECLARATIONS[name]


def make_game(name: str, config: Mapping[str, Any] | None = None) -> Game:
    """The game ``name`` built from a plain-data configuration."""
    cls = game_class(name)
    if cls is None:
        raise ConfigError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})")
    return cls.from_config({} if config is None else config)


def load_game(data: Mapping[str, Any]) -> GameState:
    """Rebuild a state from its serialised form; any bad field or action is an error."""
    if not isinstance(data, Mapping) or set(data) != {"game", "config", "actions"}:
        raise ConfigError("a serialised game has exactly: game, config, actions")
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise ConfigError("actions is a list of notation strings")
    game = make_game(data["game"], data["config"])
    state = game.new_initial_state()
    for index, action in enumerate(actions):
        try:
            state.apply(action)
        except EngineError as exc:
            raise ConfigError(f"action {index} ({action!r}): {exc}") from exc
    return state
