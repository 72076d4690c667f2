"""The search bot: determinised search (PIMC) for any game, written once against the
engine's contract.

At each decision with more than one legal action it draws samples of the hidden
state that its seat cannot tell from the real one (``GameState.determinise``: drawn
from what the seat's observation allows, never from another seat's hidden cards),
and in each sample plays every legal action followed by a playout of the rest of the
round (every seat played by the game's best own bot, or the random bot), scored by
``GameState.outlook`` (the game's won/lost at its end). The action with the best
total wins; ties go to the first legal one. Every action of a sample is played out
with the same random numbers (common random numbers), so the actions are compared,
not the luck of the draws.

Its budget (:class:`Budget`) is said where a bot is named: ``search`` (the default),
``search:samples=8`` (samples per decision: reproducible, what tests use),
``search:playouts=60`` (fewer samples where there are many legal actions: at most
that many playouts a decision), ``search:ms=400`` (a wall-clock budget: as many
samples as fit, at least one), ``search:samples=8:rounds=2`` (playouts over two
rounds). Deterministic for a seed with a sample budget; a time budget depends on the
machine's speed.

In a game with signs, it signs as its playout bot does, and its samples agree with
every sign its seat was shown (``heard``, given to ``determinise``): a partner that
signed a three holds a three in every sample.

A bot is asked with :func:`~trutnet.bots.base.seat_action`, which gives this bot the
state as its seat's replica holds it (:meth:`SearchBot.choose_in`); asked with the
observation alone (``choose``), it plays its playout bot's move. A game whose states
cannot determinise (``NotImplementedError``) gets the playout bot's move too.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trutnet.bots.signs import Heard, bot_heard
from trutnet.engine.api import CHANCE, Action, GameState
from trutnet.engine.hidden import Told

SEARCH = "search"

# Budget keys and their bounds (the value of each is a whole number).
LIMITS = {
    "samples": (1, 10_000),
    "playouts": (1, 1_000_000),
    "ms": (1, 600_000),
    "rounds": (1, 100),
}


class BudgetError(ValueError):
    """A search budget that cannot be had: the message says which part and why."""


@dataclass(frozen=True)
class Budget:
    """How much a search decision may spend: ``samples`` determinisations, each
    playing every legal action out, but no more samples than let ``playouts`` playouts
    be played in all (at least one sample: a decision among many actions draws fewer
    samples), or as many as fit in ``ms`` milliseconds when given (``samples`` and
    ``playouts`` as ceilings then), each playout over ``rounds`` rounds."""

    samples: int = 24
    playouts: int = 120
    ms: int | None = None
    rounds: int = 1

    @staticmethod
    def parse(text: str) -> Budget:
        """``samples=8``, ``ms=400``, ``samples=8:rounds=2``... (empty: the default)."""
        values: dict[str, int] = {}
        for part in filter(None, text.split(":")):
            key, eq, raw = part.partition("=")
            if not eq or key not in LIMITS:
                raise BudgetError(f"{part!r}: give KEY=N, KEY one of {', '.join(LIMITS)}")
            low, high = LIMITS[key]
            if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
                raise BudgetError(f"{key}={raw}: a whole number {low}..{high}")
            if key in values:
                raise BudgetError(f"{key} given twice")
            values[key] = int(raw)
        for key in ("samples", "playouts"):  # a time budget alone: as many as fit
            if "ms" in values and key not in values:
                values[key] = LIMITS[key][1]
        return Budget(**values)


def split_kind(kind: str) -> tuple[str, str]:
    """``search:ms=30`` -> (``search``, ``ms=30``); a plain kind has no options."""
    base, _, options = kind.partition(":")
    return base, options


class SearchBot:
    """Determinised search over samples of what its seat cannot see (see the module).

    ``playout``: makes the bot that plays every seat in the playouts, from its
    ``random.Random``."""

    def __init__(
        self,
        rng: random.Random,
        playout: Callable[[random.Random], Any],
        budget: Budget | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.rng = rng
        self.playout = playout
        self.budget = budget or Budget()
        self.clock = clock
        self._fallback = playout(random.Random(rng.getrandbits(64)))
        self.told = Heard()  # the signs its seat was shown
        self.last: dict[str, Any] = {}  # the last decision: samples, each action's mean

    def choose(self, observation: Any) -> Action:
        """Asked with the observation alone: the playout bot's move."""
        return self._fallback.choose(observation)  # type: ignore[no-any-return]

    def sign(self, observation: Any, menu: tuple[str, ...]) -> str | None:
        """A sign, where the game has them: its playout bot's (none if it makes none)."""
        sign = getattr(self._fallback, "sign", None)
        return sign(observation, menu) if sign is not None else None

    def heard(self, told: Told) -> None:
        """A sign its seat was shown: its samples agree with it (and its playout bot
        hears it too, for the moves it makes alone)."""
        self.told.add(told)
        bot_heard(self._fallback, told)

    def choose_in(self, state: GameState, seat: int) -> Action:
        """``seat``'s decision at ``state``: searched over determinisations of it that
        depend on the seat's observation alone."""
        legal = list(state.observation(seat).legal)
        seed = self.rng.getrandbits(64)  # one draw per decision, whatever it does
        if len(legal) == 1:
            return legal[0]
        budget = self.budget
        deadline = None if budget.ms is None else self.clock() + budget.ms / 1000
        totals = [0.0] * len(legal)
        samples = 0
        most = min(budget.samples, max(1, budget.playouts // len(legal)))
        while samples < most:
            try:
                deal = random.Random(f"{seed}/{samples}/deal")
                sample = state.determinise(seat, deal, self.told.all())
            except NotImplementedError:
                return self.choose(state.observation(seat))
            for index, action in enumerate(legal):
                child = sample.clone()
                child.apply(action)
                totals[index] += self._playout(child, seat, f"{seed}/{samples}")
            samples += 1
            if deadline is not None and self.clock() >= deadline:
                break
        best = max(range(len(legal)), key=lambda i: (totals[i], -i))
        self.last = {
            "samples": samples,
            "means": {str(a): totals[i] / samples for i, a in enumerate(legal)},
        }
        return legal[best]

    def _playout(self, state: GameState, seat: int, seed: str) -> float:
        """Play ``state`` on to the end of the ``rounds``-th round from here (or of
        the game), every seat by the playout bot from its observation (a bot that can
        search the state itself, ``choose_in``, is not asked to: a search inside each
        playout would multiply the cost); the seat's outlook there."""
        chance = random.Random(f"{seed}/chance")
        bots: dict[int, Any] = {}
        stop = state.round_number() + self.budget.rounds
        while not state.is_terminal() and state.round_number() < stop:
            actor = state.current_seat()
            if actor == CHANCE:
                action = state.sample_chance(chance)
            else:
                assert actor is not None
                if not state.legal_actions(actor):
                    break  # a sample the rules cannot go on from (a word it cannot prove)
                bot = bots.get(actor)
                if bot is None:
                    bot = bots[actor] = self.playout(random.Random(f"{seed}/seat{actor}"))
                observation = state.observation(actor)
                legal = observation.legal
                action = bot.choose(observation) if legal else state.legal_actions(actor)[0]
            state.apply(action)
        return state.outlook(seat)
