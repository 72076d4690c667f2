"""Trut's plugin: importing it registers the game's engine
(:mod:`trutnet.engine.games.trut`), its heuristic bot (:mod:`.heuristic`) and its
front-end for the terminal client (:mod:`.frontend`: the screen, :mod:`.screen`, and
the narration, :mod:`.narration`). pyproject.toml declares it as the ``trut`` entry
point of the ``trutnet.games`` group."""

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.engine.games.trut import TrutGame
from trutnet.games.trut.frontend import TrutFrontend
from trutnet.games.trut.heuristic import HeuristicBot

register_game(TrutGame)
register_bots(TrutGame.name, {"heuristic": HeuristicBot})
register_frontend(TrutFrontend)

__all__ = ["HeuristicBot", "TrutFrontend"]
