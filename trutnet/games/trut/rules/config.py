"""Trut configuration: player count, variant, options, and an optional start position.

The configuration is plain data both ways (``to_dict`` / ``from_dict``) and validated
strictly, because it also arrives from files and from the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trutnet.engine.errors import ConfigError, NotationError
from trutnet.games.trut.rules.cards import FULL_DECK, Card, parse_card

PLAYER_COUNTS = (2, 3, 4, 6)
VARIANTS = ("classic", "gatinaise")
TARGETS = {"classic": 7, "gatinaise": 5}  # T14, T17
OPTIONS = ("deluxe", "bonus_cards", "michao_hare")  # T23, each off by default


def teams_for(players: int) -> tuple[tuple[int, ...], ...]:
    """Seats of each team [T2]: alternate seats in 4 and 6 players, one seat per team in 2/3."""
    if players in (2, 3):
        return tuple((s,) for s in range(players))
    return (tuple(range(0, players, 2)), tuple(range(1, players, 2)))


@dataclass(frozen=True, slots=True)
class StartPosition:
    """Where a game starts instead of the beginning: tokens, the Donneur, maybe the deck.

    With ``deck`` (full knowledge), the first hand is already dealt from that order.
    Deluxe: ``hedgehog`` is the team whose Petits the set-aside Hedgehog protects
    (T42, D23): the Hedgehog is then out of the preparation's pool.
    """

    longs: tuple[int, ...]
    petits: tuple[int, ...]
    dealer: int
    deck: tuple[Card, ...] | None = None
    hedgehog: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "longs": list(self.longs),
            "petits": list(self.petits),
            "dealer": self.dealer,
        }
        if self.deck is not None:
            data["deck"] = [str(c) for c in self.deck]
        if self.hedgehog is not None:
            data["hedgehog"] = self.hedgehog
        return data


@dataclass(frozen=True, slots=True)
class TrutConfig:
    """A validated Trut configuration."""

    players: int = 4
    variant: str = "classic"
    sum_on_patte: bool = False
    start: StartPosition | None = None
    deluxe: bool = False  # T23: the 13 special cards (trutnet/games/trut/rules/deluxe/)
    bonus_cards: bool = False  # T23: the 5 bonus cards N-R, with deluxe only
    michao_hare: bool = False  # T23, T44: Wolf + Fox + Hare also sings Michao

    def __post_init__(self) -> None:
        if self.players not in PLAYER_COUNTS:
            raise ConfigError(f"Trut is for 2, 3, 4 or 6 players, not {self.players!r}")
        if self.variant not in VARIANTS:
            raise ConfigError(f"unknown variant {self.variant!r} (classic or gatinaise)")
        if self.sum_on_patte and self.players != 6:
            raise ConfigError("the sum-on-patté option is for 6 players only [T21]")
        for name in OPTIONS:
            if type(getattr(self, name)) is not bool:
                raise ConfigError(f"{name} is a boolean")
        if (self.bonus_cards or self.michao_hare) and not self.deluxe:
            raise ConfigError("bonus_cards and michao_hare are options of deluxe [T23]")
        if self.start is not None:
            self._check_start(self.start)
            if self.deluxe and self.start.deck is not None:
                raise ConfigError("a start position with a dealt deck is for classic Trut")

    @property
    def target(self) -> int:
        return TARGETS[self.variant]

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        return teams_for(self.players)

    def _check_start(self, start: StartPosition) -> None:
        n_teams = len(self.teams)
        if len(start.longs) != n_teams or len(start.petits) != n_teams:
            raise ConfigError(f"start position needs tokens for {n_teams} teams")
        if any(not 0 <= x < self.target for x in start.longs):
            raise ConfigError(f"start Longs must be 0..{self.target - 1}")
        if any(not 0 <= x <= 2 for x in start.petits):
            raise ConfigError("start Petits must be 0..2")
        if not 0 <= start.dealer < self.players:
            raise ConfigError(f"start dealer must be a seat 0..{self.players - 1}")
        if start.deck is not None and sorted(start.deck) != sorted(FULL_DECK):
            raise ConfigError("start deck must hold each of the 32 cards once")
        if start.hedgehog is not None and not (
            self.deluxe and type(start.hedgehog) is int and 0 <= start.hedgehog < n_teams
        ):
            raise ConfigError(f"start hedgehog is a team 0..{n_teams - 1}, with deluxe [T42]")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "players": self.players,
            "variant": self.variant,
            "sum_on_patte": self.sum_on_patte,
        }
        if self.start is not None:
            data["start"] = self.start.to_dict()
        for name in OPTIONS:  # only when on: a classic
            if getattr(self, name):  # configuration hashes as it always did [T23]
                data[name] = True
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrutConfig:
        if not isinstance(data, Mapping):
            raise ConfigError("a Trut configuration is a map")
        unknown = set(data) - {"players", "variant", "sum_on_patte", "start", *OPTIONS}
        if unknown:
            raise ConfigError(f"unknown configuration fields: {sorted(unknown)}")
        players = data.get("players", 4)
        variant = data.get("variant", "classic")
        sum_on_patte = data.get("sum_on_patte", False)
        if type(players) is not int or not isinstance(variant, str):
            raise ConfigError("players is an integer and variant a string")
        if not isinstance(sum_on_patte, bool):
            raise ConfigError("sum_on_patte is a boolean")
        start = data.get("start")
        options = {name: data.get(name, False) for name in OPTIONS}
        return cls(
            players, variant, sum_on_patte, None if start is None else _start(start), **options
        )


def _int_list(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or not all(type(x) is int for x in value):
        raise ConfigError(f"start {name} must be a list of integers")
    return tuple(value)


def _start(data: Any) -> StartPosition:
    if not isinstance(data, Mapping) or set(data) - {
        "longs",
        "petits",
        "dealer",
        "deck",
        "hedgehog",
    }:
        raise ConfigError("start position fields: longs, petits, dealer, deck, hedgehog")
    hedgehog = data.get("hedgehog")
    if hedgehog is not None and type(hedgehog) is not int:
        raise ConfigError("start hedgehog must be a team number")
    dealer = data.get("dealer", 0)
    if type(dealer) is not int:
        raise ConfigError("start dealer must be an integer")
    deck = data.get("deck")
    if deck is not None:
        if not isinstance(deck, list | tuple) or not all(isinstance(c, str) for c in deck):
            raise ConfigError("start deck must be a list of cards")
        try:
            deck = tuple(parse_card(c) for c in deck)
        except NotationError as exc:
            raise ConfigError(f"start deck: {exc}") from exc
    return StartPosition(
        _int_list(data.get("longs"), "longs"),
        _int_list(data.get("petits"), "petits"),
        dealer,
        deck,
        hedgehog,
    )
