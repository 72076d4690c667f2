"""Truco's rules: the bluffing trick-taking game of the Río de la Plata
(``docs/games/truco.md``, rulings K1-K31). Pure, above nothing but the engine's contract
(:mod:`trutnet.engine`): the contracts of pyproject.toml keep it so."""

from trutnet.games.truco.rules.actions import (
    Deal,
    Dealer,
    Declare,
    Discard,
    Play,
    Show,
    Void,
    Word,
    parse_action,
)
from trutnet.games.truco.rules.game import TrucoGame
from trutnet.games.truco.rules.observation import TrucoObservation
from trutnet.games.truco.rules.state import TrucoState

__all__ = [
    "Deal",
    "Dealer",
    "Declare",
    "Discard",
    "Play",
    "Show",
    "TrucoGame",
    "TrucoObservation",
    "TrucoState",
    "Void",
    "Word",
    "parse_action",
]
