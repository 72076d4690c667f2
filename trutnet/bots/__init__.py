"""Bots: a bot is given one seat's observation and never the state; a bot that
searches is given the state its seat's replica holds (:func:`decide`), and samples
from it only what the seat may see (``GameState.determinise``, proven in tests).

:class:`RandomBot` plays any game (it picks among the observation's legal actions),
and so does :class:`~trutnet.bots.search.SearchBot` (:mod:`.search`, the ``search``
kind: determinised search, its playouts by the game's own best bot); a game plugin
registers its own bots (:func:`register_bots`), and :func:`make_bot` builds one by
game and kind (with options: ``search:samples=8``). Bots are deterministic given the
``random.Random`` they are built with. No game is named here: a game's own bots are in
its plugin (``trutnet/games/<game>/``).
"""

from trutnet.bots.base import (
    BEST,
    LEVELS,
    RANDOM,
    Bot,
    BotError,
    bot_kinds,
    check_bot,
    decide,
    default_bot,
    make_bot,
    register_bots,
    seat_action,
)
from trutnet.bots.random_bot import RandomBot

__all__ = [
    "BEST",
    "LEVELS",
    "RANDOM",
    "Bot",
    "BotError",
    "RandomBot",
    "bot_kinds",
    "check_bot",
    "decide",
    "default_bot",
    "make_bot",
    "register_bots",
    "seat_action",
]
