"""The engine contract: the interface every game's rules implement (:mod:`.api`), its
hidden-information description (:mod:`.hidden`), canonical encoding and state hashes
(:mod:`.canonical`), errors, each game's declaration (:mod:`.declaration`: its title,
player counts, variants and options) and the registry the game plugins fill
(:mod:`.registry`).

No I/O, no clock, no randomness except what callers pass in. Knows nothing of crypto
or the network, and names no game: each game's rules are in its package
(``trutnet/games/<game>/rules/``).
"""

from trutnet.engine.api import CHANCE, Action, Game, GameState
from trutnet.engine.declaration import PLAYERS, VARIANT, GameType, Option
from trutnet.engine.errors import ConfigError, EngineError, HiddenCard, IllegalAction, NotationError
from trutnet.engine.registry import (
    GAMES,
    game_class,
    game_names,
    game_type,
    load_game,
    make_game,
    register_game,
    set_plugin_loader,
)

__all__ = [
    "CHANCE",
    "GAMES",
    "PLAYERS",
    "VARIANT",
    "Action",
    "ConfigError",
    "EngineError",
    "Game",
    "GameState",
    "GameType",
    "HiddenCard",
    "IllegalAction",
    "NotationError",
    "Option",
    "game_class",
    "game_names",
    "game_type",
    "load_game",
    "make_game",
    "register_game",
    "set_plugin_loader",
]
