"""Game engines: pure, deterministic rules behind one interface (:mod:`.api`).

No I/O, no clock, no randomness except what callers pass in. Knows nothing of crypto
or the network.
"""

from trutnet.engine.api import CHANCE, Action, Game, GameState
from trutnet.engine.errors import ConfigError, EngineError, HiddenCard, IllegalAction, NotationError
from trutnet.engine.registry import GAMES, load_game, make_game, register_game

__all__ = [
    "CHANCE",
    "GAMES",
    "Action",
    "ConfigError",
    "EngineError",
    "Game",
    "GameState",
    "HiddenCard",
    "IllegalAction",
    "NotationError",
    "load_game",
    "make_game",
    "register_game",
]
