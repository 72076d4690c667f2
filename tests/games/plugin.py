"""A game plugin module for processes started by the tests: importing it registers the
test game Tokens (``TRUTNET_GAME_PLUGINS=tests.games.plugin trutnet host --game tokens``)."""

from trutnet.engine import register_game

from .tokens import TokensGame

register_game(TokensGame)
