"""Lutin & Troll's package and plugin: importing it (or any module of it, its rules too)
registers the game's rules (:mod:`.rules`) with its declaration
(:mod:`.rules.declaration`: title, player count, variants), its heuristic bot
(:mod:`.heuristic`) and its front-end (:mod:`.frontend`). pyproject.toml declares it
as the ``lutin`` entry point of the ``trutnet.games`` group."""

from pathlib import Path

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.games.lutin.frontend import LutinFrontend
from trutnet.games.lutin.heuristic import HeuristicBot
from trutnet.games.lutin.rules import LutinGame
from trutnet.games.lutin.rules.declaration import LUTIN
from trutnet.i18n import add_catalogs

add_catalogs(Path(__file__).parent / "locale")  # the game's own words (fr, es)
register_game(LutinGame, LUTIN)
register_bots(LutinGame.name, {"heuristic": HeuristicBot})
register_frontend(LutinFrontend)

__all__ = ["HeuristicBot", "LutinFrontend"]
