"""The bot interface, the registry of each game's bots, and the factory by game and kind.

A game plugin registers its bots by kind (:func:`register_bots`); every game also has
the search bot (:mod:`trutnet.bots.search`, its playouts by the game's best own bot)
and the random bot, also named by level: ``easy`` (random), ``normal`` (the game's
best own bot), ``hard`` (search). A kind may carry options after a colon: the search bot's budget
(``search:samples=8``, ``search:ms=400``). :func:`make_bot` loads the game plugins
(:mod:`trutnet.plugins`) when asked for a game whose bots it does not know yet.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from trutnet.bots.random_bot import RandomBot
from trutnet.bots.search import SEARCH, Budget, BudgetError, SearchBot, split_kind
from trutnet.engine.api import Action
from trutnet.plugins import load_plugins

RANDOM = "random"
BEST = "best"  # a game's best bot, whichever it is (its first registered, else random)
# Levels, wherever a bot is named: random play, the game's own best bot, the search bot
LEVELS = {"easy": RANDOM, "normal": BEST, "hard": SEARCH}


class Bot(Protocol):
    """Something that picks one of ``observation.legal`` from one seat's observation."""

    def choose(self, observation: Any) -> Action: ...


BotFactory = Callable[[random.Random], Bot]


class BotError(ValueError):
    """No such bot for that game; the message names the bots it has."""


# game name -> kind -> factory; a game's own bots, best first (the random bot is extra)
_BOTS: dict[str, dict[str, BotFactory]] = {}


def register_bots(game: str, bots: Mapping[str, BotFactory]) -> None:
    """Register ``game``'s bots by kind, best first (the first is the game's default
    bot). Registering the same factories again changes nothing; another factory
    under a kind already taken (or the random or search bot's) is refused."""
    known = _BOTS.setdefault(game, {})
    for kind, factory in bots.items():
        if kind in (RANDOM, SEARCH) or ":" in kind or known.get(kind, factory) is not factory:
            raise BotError(f"the {game} game already has a {kind} bot")
        known[kind] = factory


def _registered(game: str) -> dict[str, BotFactory]:
    if game not in _BOTS:
        load_plugins()  # the game's plugin registers its bots when imported
    return _BOTS.get(game, {})


def bot_kinds(game: str) -> tuple[str, ...]:
    """The bots ``game`` has, its own first (best first), then the search bot and the
    random bot."""
    return (*_registered(game), SEARCH, RANDOM)


def default_bot(game: str) -> str:
    """The best bot ``game`` has: its first registered one, else the random bot."""
    return bot_kinds(game)[0]


def seat_action(bot: Bot, state: Any, seat: int) -> Action:
    """What ``seat`` does at a state of the engine alone: its bot's choice from the
    seat's observation, or, when the observation offers nothing to decide (an automatic
    step that the seat's program writes at a table, such as opening a sealed choice),
    the seat's first legal action."""
    observation = state.observation(seat)
    if observation.legal:
        return decide(bot, state, seat, observation)
    return state.legal_actions(seat)[0]


def decide(bot: Bot, state: Any, seat: int, observation: Any = None) -> Action:
    """``bot``'s decision for ``seat`` at ``state``, a state that knows what the seat's
    replica knows (or more: the engine alone). A bot that searches (``choose_in``,
    :class:`~trutnet.bots.search.SearchBot`) is given the state, from which it samples
    only what the seat may see; any other bot, the seat's observation."""
    choose_in = getattr(bot, "choose_in", None)
    if choose_in is not None:
        return choose_in(state, seat)  # type: ignore[no-any-return]
    return bot.choose(state.observation(seat) if observation is None else observation)


def check_bot(game: str, kind: str) -> str:
    """``kind`` if ``game`` has a bot of that kind (:data:`BEST`: the game's best; a
    level of :data:`LEVELS`: its bot); :class:`BotError` naming the bots ``game`` has
    otherwise."""
    kind = LEVELS.get(kind, kind)
    if kind == BEST:
        return default_bot(game)
    base, options = split_kind(kind)
    if base == SEARCH:
        try:
            Budget.parse(options)
        except BudgetError as exc:
            raise BotError(f"{kind}: {exc}") from None
        return kind
    if options or (kind != RANDOM and kind not in _registered(game)):
        raise BotError(
            f"the {game} game has no {kind} bot (its bots: {', '.join(bot_kinds(game))};"
            f" or a level: {', '.join(LEVELS)})"
        )
    return kind


def make_bot(game: str, kind: str, rng: random.Random) -> Bot:
    """A bot of ``kind`` (or :data:`BEST`) for ``game``, deciding with ``rng``
    (:class:`BotError` when ``game`` has no bot of that kind)."""
    kind = check_bot(game, kind)
    if kind == RANDOM:
        return RandomBot(rng)
    base, options = split_kind(kind)
    if base == SEARCH:
        own = _registered(game)
        playout = next(iter(own.values()), RandomBot)  # the game's best own bot
        return SearchBot(rng, playout, Budget.parse(options))
    return _registered(game)[kind](rng)
