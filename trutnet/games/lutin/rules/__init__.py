"""Lutin & Troll's rules: two players, a deck each, hands chosen in secret
(``docs/games/lutin.md``). Pure, above nothing but the engine's contract
(:mod:`trutnet.engine`): the contracts of pyproject.toml keep it so."""

from trutnet.games.lutin.rules.observation import LutinObservation
from trutnet.games.lutin.rules.state import LutinGame, LutinState

__all__ = ["LutinGame", "LutinObservation", "LutinState"]
