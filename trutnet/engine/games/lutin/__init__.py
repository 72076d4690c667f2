"""Lutin & Troll: two players, a deck each, hands chosen in secret (``docs/rules-lutin.md``)."""

from trutnet.engine.games.lutin.observation import LutinObservation
from trutnet.engine.games.lutin.state import LutinGame, LutinState

__all__ = ["LutinGame", "LutinObservation", "LutinState"]
