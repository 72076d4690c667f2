"""Truco's game: the configuration (K5, K31: the options of its declaration,
:mod:`.declaration`) and the seats' teams (K6, K9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trutnet.engine.api import Game
from trutnet.engine.errors import ConfigError
from trutnet.engine.hidden import Deck
from trutnet.games.truco.rules.cards import DECK
from trutnet.games.truco.rules.declaration import PLAYER_COUNTS, TRUCO

if TYPE_CHECKING:
    from trutnet.games.truco.rules.state import TrucoState

PLAYERS = PLAYER_COUNTS  # K5
# Each option's allowed values and default, as declared (K31).
OPTIONS = {option.key: option.choices for option in TRUCO.options}
DEFAULTS = TRUCO.defaults()


class TrucoGame(Game):
    """Truco for 2, 3, 4, 6 or 8 players with the options of K31 (:data:`TRUCO`)."""

    name = "truco"

    def __init__(self, **options: Any) -> None:
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise ConfigError(f"truco has no option {sorted(unknown)[0]!r} (K31)")
        for key, allowed in OPTIONS.items():
            got = options.get(key, DEFAULTS[key])
            if type(got) is not type(allowed[0]) and not (
                key == "pica_pica_until" and type(got) in (int, str)
            ):
                raise ConfigError(f"{key} is one of {allowed} (K5, K31)")
            if got not in allowed:
                raise ConfigError(f"{key} is one of {allowed} (K5, K31)")
            setattr(self, key, got)
        for key in OPTIONS:
            if key in options and not self._applies(key) and options[key] != DEFAULTS[key]:
                rule = "K15" if key.startswith("senas") else "K9, K11"
                raise ConfigError(f"{key} applies to other player counts ({rule})")
        self.players: int
        self.flor: bool
        self.falta_wins_chico: bool
        self.gallo: str
        self.pica_pica: bool
        self.pica_pica_until: int | str
        self.chicos: int
        self.senas: bool
        self.senas_catch: int

    def config_dict(self) -> dict[str, Any]:
        """Every option that applies to this player count (K9: gallo with 3 players;
        K11: pica-pica with 6 and 8)."""
        return {key: getattr(self, key) for key in OPTIONS if self._applies(key)}

    def _applies(self, key: str) -> bool:
        if key == "gallo":
            return self.players == 3
        if key.startswith("pica_pica"):
            return self.players in (6, 8)
        if key.startswith("senas"):  # K15: only where a seat has partners
            return self.players in (4, 6)
        return True

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TrucoGame:
        if not isinstance(config, Mapping):
            raise ConfigError("a truco configuration is a mapping")
        return cls(**dict(config))

    def num_players(self) -> int:
        return self.players

    @property
    def rotating(self) -> bool:
        """K9: three players with a rotating gallo keep one score each."""
        return self.players == 3 and self.gallo == "rotating"

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """K6, K9: even counts alternate; 3 players: the fixed gallo (seat 0) against
        the two others, or every seat alone with a rotating gallo."""
        n = self.players
        if n == 3:
            return ((0,), (1,), (2,)) if self.rotating else ((0,), (1, 2))
        return tuple(tuple(range(t, n, 2)) for t in range(2))

    def decks(self) -> tuple[Deck, ...]:
        return (DECK,)

    def new_initial_state(self) -> TrucoState:
        from trutnet.games.truco.rules.state import TrucoState

        return TrucoState(self)
