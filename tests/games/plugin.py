"""A game plugin module for the tests: importing it registers the test game Tokens,
its front-end and its bot (``TRUTNET_GAME_PLUGINS=tests.games.plugin trutnet host
--game tokens``); :func:`register` does it again, for an entry point
(``tests.games.plugin:register``)."""

from trutnet.bots import register_bots
from trutnet.client.frontend import register_frontend
from trutnet.engine import register_game

from .tokens import TokensGame
from .tokens_screen import GreedyBot, TokensFrontend


def register() -> None:
    register_game(TokensGame)
    register_bots(TokensGame.name, {"greedy": GreedyBot})
    register_frontend(TokensFrontend)


register()
