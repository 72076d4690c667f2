"""The bot interface and a factory by name."""

from __future__ import annotations

import random
from typing import Protocol

from trutnet.bots.heuristic import HeuristicBot
from trutnet.bots.random_bot import RandomBot
from trutnet.engine.api import Action
from trutnet.engine.games.trut.observation import TrutObservation


class Bot(Protocol):
    """Something that picks one of ``observation.legal``."""

    def choose(self, observation: TrutObservation) -> Action: ...


def make_bot(kind: str, rng: random.Random) -> Bot:
    """A bot by name: ``random`` or ``heuristic``."""
    if kind == "random":
        return RandomBot(rng)
    if kind == "heuristic":
        return HeuristicBot(rng)
    raise ValueError(f"unknown bot {kind!r} (heuristic or random)")
