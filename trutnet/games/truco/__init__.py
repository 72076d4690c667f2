"""Truco's package and plugin: importing it (or any module of it, its rules too)
registers the game's rules (:mod:`.rules`) with its declaration
(:mod:`.rules.declaration`: title, player counts, options), its heuristic bot
(:mod:`.heuristic`) and its front-end (:mod:`.frontend`, drawing with :mod:`.screen`).
pyproject.toml declares it as the ``truco`` entry point of the ``trutnet.games``
group."""

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.games.truco.frontend import TrucoFrontend
from trutnet.games.truco.heuristic import HeuristicBot
from trutnet.games.truco.rules import TrucoGame
from trutnet.games.truco.rules.declaration import TRUCO

register_game(TrucoGame, TRUCO)
register_bots(TrucoGame.name, {"heuristic": HeuristicBot})
register_frontend(TrucoFrontend)

__all__ = ["HeuristicBot", "TrucoFrontend"]
