"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random

from trutnet.engine.api import Action
from trutnet.engine.games.trut.observation import TrutObservation


class RandomBot:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: TrutObservation) -> Action:
        if not observation.legal:
            raise ValueError(f"seat {observation.seat} has nothing to do")
        return self.rng.choice(observation.legal)
