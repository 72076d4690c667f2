"""Trut: the 17th-century bluffing trick-taking game (``docs/rules.md``)."""

from trutnet.engine.games.trut.actions import CardRef, Deal, Draw, Keep, Play, SingCount, Word
from trutnet.engine.games.trut.config import StartPosition, TrutConfig, teams_for
from trutnet.engine.games.trut.game import TrutGame
from trutnet.engine.games.trut.observation import TrutObservation
from trutnet.engine.games.trut.setup import deal_position, deck_for_hands
from trutnet.engine.games.trut.state import TrutState

__all__ = [
    "CardRef",
    "Deal",
    "Draw",
    "Keep",
    "Play",
    "SingCount",
    "StartPosition",
    "TrutConfig",
    "TrutGame",
    "TrutObservation",
    "TrutState",
    "Word",
    "deal_position",
    "deck_for_hands",
    "teams_for",
]
