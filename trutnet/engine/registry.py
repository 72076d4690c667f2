"""The registry of game plugins, and loading a serialised game.

A serialised game is ``{"game": name, "config": {...}, "actions": ["...", ...]}``
(:meth:`trutnet.engine.api.GameState.serialise`). Loading replays every action and so
checks every one of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trutnet.engine.api import Game, GameState
from trutnet.engine.errors import ConfigError, EngineError
from trutnet.engine.games.trut import TrutGame

GAMES: dict[str, type[Game]] = {"trut": TrutGame}


def register_game(cls: type[Game]) -> type[Game]:
    """Add a game plugin under its ``name`` (usable as a class decorator). A name
    names one game: registering another class under a taken name is refused."""
    existing = GAMES.get(cls.name)
    if existing is not None and existing is not cls:
        raise ConfigError(f"a game named {cls.name!r} is already registered")
    GAMES[cls.name] = cls
    return cls


def make_game(name: str, config: Mapping[str, Any] | None = None) -> Game:
    """The game ``name`` built from a plain-data configuration."""
    cls = GAMES.get(name)
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
