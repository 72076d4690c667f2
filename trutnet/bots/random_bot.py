"""A bot that picks uniformly among the legal actions: it plays any game."""

from __future__ import annotations

import random
from typing import Any

from trutnet.engine.api import Action


class RandomBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: Any) -> Action:
        """One of ``observation.legal``, uniformly (every game's observation has
        ``legal``: the seat's legal actions, ``docs/engine.md``)."""
        legal = observation.legal
        if not legal:
            raise ValueError(f"seat {observation.seat} has nothing to do")
        return self.rng.choice(legal)
