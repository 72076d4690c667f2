"""Truco's package and plugin: importing it (or any module of it, its rules too)
registers the game's rules (:mod:`.rules`) with its declaration
(:mod:`.rules.declaration`: title, player counts, options), its heuristic bot
(:mod:`.heuristic`) and its front-end (:mod:`.frontend`, drawing with :mod:`.screen`).
pyproject.toml declares it as the ``truco`` entry point of the ``trutnet.games``
group."""

from pathlib import Path

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.games.truco.frontend import TrucoFrontend
from trutnet.games.truco.heuristic import HeuristicBot
from trutnet.games.truco.rules import TrucoGame
from trutnet.games.truco.rules.declaration import TRUCO
from trutnet.i18n import add_catalogs

add_catalogs(Path(__file__).parent / "locale")  # the game's own words (fr, es)
register_game(TrucoGame, TRUCO)
register_bots(TrucoGame.name, {"heuristic": HeuristicBot})
register_frontend(TrucoFrontend)

__all__ = ["HeuristicBot", "TrucoFrontend"]
