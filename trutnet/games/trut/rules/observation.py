"""What one seat may see of a Trut game: the only input a bot or a screen gets.

An observation holds the public state, the seat's own cards (and only those), and the
seat's legal actions. It never holds another seat's unrevealed card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trutnet.engine.api import Action
from trutnet.games.trut.rules.cards import Card


@dataclass(frozen=True, slots=True)
class TrickView:
    """A finished trick as everyone saw it."""

    cards: tuple[tuple[int, Card], ...]
    team: int | None  # None: patté (T6)
    winner: int | None


@dataclass(frozen=True, slots=True)
class TrutView:
    """The Trut of this hand, if any."""

    caller: int | None  # None for la Chanson's Trut d'office (D7)
    kind: str  # "call", "office" (T18), "fortial" (T15), "chanson" (T19), "weasel" (T37)
    status: str  # "pending", "accepted", "folded"
    accepted_by: tuple[int, ...]
    folded_by: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TrutObservation:
    seat: int
    players: int
    variant: str
    target: int
    teams: tuple[tuple[int, ...], ...]
    team: int
    phase: str
    to_act: int | None
    hand_number: int
    dealer: int
    marker: int
    longs: tuple[int, ...]
    petits: tuple[int, ...]
    hand: tuple[tuple[int, Card | None], ...]  # own cards as (deck position, identity)
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickView, ...]
    results: tuple[int | None, ...]
    trut: TrutView | None
    folded: tuple[int, ...]
    stock: int
    singer: int | None
    fortial_team: int | None
    winner: int | None
    legal: tuple[Action, ...]
    deluxe: bool = False  # the Deluxe option [T23]
    jay_pot: int = 0  # Deluxe: the Petits in the Jay pot [T41]
    falcon_seen: tuple[tuple[int, Any], ...] = ()  # Deluxe: partners' cards shown [T33]
    protected: int | None = None  # Deluxe: the team the Hedgehog protects [T42]
    weasel_target: int | None = None  # Deluxe: the seat the Weasel names [T37]
    forced: int | None = None  # Deluxe: the position this seat must play next [T37]

    @property
    def my_cards(self) -> list[Card]:
        """The identities of the seat's own cards that it may look at."""
        return [card for _, card in self.hand if card is not None]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (cards and actions as notation), for JSON or a screen."""
        trut = None
        if self.trut is not None:
            trut = {
                "caller": self.trut.caller,
                "kind": self.trut.kind,
                "status": self.trut.status,
                "accepted_by": list(self.trut.accepted_by),
                "folded_by": list(self.trut.folded_by),
            }
        return {
            "seat": self.seat,
            "players": self.players,
            "variant": self.variant,
            "target": self.target,
            "team": self.team,
            "phase": self.phase,
            "to_act": self.to_act,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "marker": self.marker,
            "longs": list(self.longs),
            "petits": list(self.petits),
            "hand": [[pos, None if c is None else str(c)] for pos, c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "trick": [[s, str(c)] for s, c in self.trick],
            "tricks": [
                {"cards": [[s, str(c)] for s, c in t.cards], "team": t.team, "winner": t.winner}
                for t in self.tricks
            ],
            "results": list(self.results),
            "trut": trut,
            "folded": list(self.folded),
            "stock": self.stock,
            "singer": self.singer,
            "fortial_team": self.fortial_team,
            "winner": self.winner,
            "legal": [str(a) for a in self.legal],
            **(
                {
                    "jay_pot": self.jay_pot,
                    "protected": self.protected,
                    "weasel_target": self.weasel_target,
                    "forced": self.forced,
                }
                if self.deluxe
                else {}
            ),
        }
