"""Truco's plugin: importing it registers the game's engine
(:mod:`trutnet.engine.games.truco`), its heuristic bot (:mod:`.heuristic`) and its
front-end (:mod:`.frontend`, drawing with :mod:`.screen`). pyproject.toml declares it
as the ``truco`` entry point of the ``trutnet.games`` group."""

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.engine.games.truco import TrucoGame
from trutnet.games.truco.frontend import TrucoFrontend
from trutnet.games.truco.heuristic import HeuristicBot

register_game(TrucoGame)
register_bots(TrucoGame.name, {"heuristic": HeuristicBot})
register_frontend(TrucoFrontend)

__all__ = ["HeuristicBot", "TrucoFrontend"]
