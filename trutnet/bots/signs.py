"""Bots and signs: what a bot signs, what it was shown, and the table's part in between
when the engine alone plays (self-play, the arena).

A bot signs if it has ``sign(observation, menu)`` (:func:`bot_sign`); it reads signs if
it has ``heard(told)`` (:func:`bot_heard`), given each :class:`~trutnet.engine.hidden.Told`
its seat was shown: by a table's runtime as the signs arrive, or by
:func:`sign_round` at each state of a game the engine plays alone. A bot keeps them in
a :class:`Heard` and reads those of the period at hand (``Heard.of``), or gives them to
``GameState.determinise``, whose game draws each signer's cards to agree with them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from trutnet.engine.api import GameState
from trutnet.engine.hidden import Signs, Told

KEEP = 64  # signs a bot remembers (a few hands' worth: the oldest go first)


class Heard:
    """The signs a bot's seat was shown, the newest :data:`KEEP`, each once."""

    def __init__(self) -> None:
        self._told: list[Told] = []

    def add(self, told: Told) -> None:
        if told not in self._told:
            self._told = [*self._told, told][-KEEP:]

    def of(self, period: int) -> tuple[Told, ...]:
        """The signs of ``period``, in the order they were shown."""
        return tuple(t for t in self._told if t.period == period)

    def all(self) -> tuple[Told, ...]:
        return tuple(self._told)


def bot_sign(bot: Any, state: GameState, seat: int, signs: Signs) -> str | None:
    """The sign ``bot`` makes now for ``seat`` (a card of ``signs.menu``), from the
    seat's observation; None: no sign (a bot without a ``sign`` method never signs)."""
    sign = getattr(bot, "sign", None)
    if sign is None:
        return None
    card = sign(state.observation(seat), signs.menu.cards)
    return card if card in signs.menu.cards else None


def bot_heard(bot: Any, told: Told) -> None:
    """Tell ``bot`` a sign its seat was shown (a bot that reads none ignores it)."""
    heard = getattr(bot, "heard", None)
    if heard is not None:
        heard(told)


def sign_round(
    state: GameState, bots: Sequence[Any], signed: set[tuple[int, int]], catch: random.Random
) -> None:
    """What a table does with its bots' signs at ``state``, the engine alone playing
    every seat: each seat's bot signs once a period, at the first state where its seat
    may and it has something to tell (``signed`` keeps ``(seat, period)``); the sign's
    partners are shown it, and each watcher whose draw with ``catch`` falls below the
    chance (as the table's joint draw does, ``docs/protocol.md`` 9.8)."""
    for seat, bot in enumerate(bots):
        rules = state.signs(seat)
        if rules is None or (seat, rules.period) in signed:
            continue
        card = bot_sign(bot, state, seat, rules)
        if card is None:
            continue
        signed.add((seat, rules.period))
        told = Told(seat, rules.period, card)
        for partner in rules.partners:
            bot_heard(bots[partner], told)
        numerator, denominator = rules.catch
        for watcher in rules.watchers:
            if catch.randrange(denominator) < numerator:
                bot_heard(bots[watcher], told)
