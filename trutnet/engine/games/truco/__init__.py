"""Truco: the bluffing trick-taking game of the Río de la Plata (``docs/rules-truco.md``,
rulings K1-K31)."""

from trutnet.engine.games.truco.actions import (
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
from trutnet.engine.games.truco.game import TrucoGame
from trutnet.engine.games.truco.observation import TrucoObservation
from trutnet.engine.games.truco.state import TrucoState

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
