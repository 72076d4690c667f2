"""Trut's rules: the 17th-century bluffing trick-taking game (``docs/games/trut.md``), its
deck (:mod:`.cards`) and the Deluxe options (:mod:`.deluxe`). Pure, above nothing but
the engine's contract (:mod:`trutnet.engine`): the contracts of pyproject.toml keep it
so."""

from trutnet.games.trut.rules.actions import CardRef, Deal, Draw, Keep, Play, SingCount, Word
from trutnet.games.trut.rules.config import StartPosition, TrutConfig, teams_for
from trutnet.games.trut.rules.game import TrutGame
from trutnet.games.trut.rules.observation import TrutObservation
from trutnet.games.trut.rules.setup import deal_position, deck_for_hands
from trutnet.games.trut.rules.state import TrutState

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
