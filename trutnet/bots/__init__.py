"""Bots for Trut. A bot is given one seat's observation and never the state.

Bots are deterministic given the ``random.Random`` they are built with.
"""

from trutnet.bots.base import Bot, make_bot
from trutnet.bots.heuristic import HeuristicBot
from trutnet.bots.random_bot import RandomBot

__all__ = ["BOT_KINDS", "Bot", "HeuristicBot", "RandomBot", "make_bot"]

BOT_KINDS = ("heuristic", "random")
