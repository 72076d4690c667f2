"""Trut's package and plugin: importing it (or any module of it, its rules too)
registers the game's rules (:mod:`.rules`, Deluxe in :mod:`.rules.deluxe`) with its
declaration (:mod:`.rules.declaration`: title, player counts, variants, options), its
heuristic bot (:mod:`.heuristic`) and its front-end for the terminal client
(:mod:`.frontend`: the screen, :mod:`.screen`, the narration, :mod:`.narration`, and
Deluxe's names and lines, :mod:`.deluxe`). pyproject.toml declares it as the ``trut``
entry point of the ``trutnet.games`` group."""

from pathlib import Path

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game
from trutnet.games.trut.frontend import TrutFrontend
from trutnet.games.trut.heuristic import HeuristicBot
from trutnet.games.trut.rules import TrutGame
from trutnet.games.trut.rules.declaration import TRUT
from trutnet.i18n import add_catalogs

add_catalogs(Path(__file__).parent / "locale")  # the game's own words, fr.po and es.po
register_game(TrutGame, TRUT)
register_bots(TrutGame.name, {"heuristic": HeuristicBot})
register_frontend(TrutFrontend)

__all__ = ["HeuristicBot", "TrutFrontend"]
