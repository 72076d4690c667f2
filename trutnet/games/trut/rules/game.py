"""The Trut game plugin: configuration in, initial states out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trutnet.engine.api import Game
from trutnet.engine.hidden import Deck
from trutnet.games.trut.rules.config import TrutConfig
from trutnet.games.trut.rules.deluxe.hedgehog import FRESH_DECK, TALON2_DECK
from trutnet.games.trut.rules.deluxe.rules import TALON_DECK, pool_deck
from trutnet.games.trut.rules.hidden import DECK
from trutnet.games.trut.rules.state import TrutState


class TrutGame(Game):
    """Trut for 2, 3, 4 or 6 players, classic or Gâtinaise (``docs/games/trut.md``)."""

    name = "trut"

    def __init__(self, config: TrutConfig | None = None, **options: Any) -> None:
        self.config = config if config is not None else TrutConfig(**options)
        self._config_dict = self.config.to_dict()

    def config_dict(self) -> dict[str, Any]:
        return dict(self._config_dict)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TrutGame:
        return cls(TrutConfig.from_dict(config))

    def new_initial_state(self) -> TrutState:
        return TrutState(self)

    def num_players(self) -> int:
        return self.config.players

    def teams(self) -> tuple[tuple[int, ...], ...]:
        return self.config.teams  # T2

    def decks(self) -> tuple[Deck, ...]:
        if self.config.deluxe:  # T23, T25: the pool of special cards, its own deck
            # T26: the talon; T42: the second talon, while the Hedgehog lies in the first;
            # D23: a start position's set-aside Hedgehog, out of the pool, has its own deck
            aside = self.config.start is not None and self.config.start.hedgehog is not None
            pool = pool_deck(self.config.bonus_cards, aside)
            fresh = (FRESH_DECK,) if aside else ()
            return (DECK, pool, TALON_DECK, TALON2_DECK, *fresh)
        return (DECK,)  # T1: the 32 cards, whatever the variant

    def __repr__(self) -> str:
        return f"TrutGame({self._config_dict})"
