"""Trut's score: Petits and Longs, the end of a hand and of the game.

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`. Rulings T11-T14 and
T20, and the project decisions D6 and D10 (``docs/games/trut.md``): 3 Petits make a Long,
a Long resets every Petit, the target number of Longs ends the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.api import CHANCE
from trutnet.games.trut.rules.cards import Card


class TrutScoring:
    """Tokens and the end of a hand (mixed into ``TrutState``)."""

    # Fields of TrutState read and written here.
    n: int
    target: int
    phase: str
    to_act: int | None
    hand_number: int
    dealer: int
    marker: int
    winner: int | None
    longs: list[int]
    petits: list[int]
    events: list[dict[str, Any]]
    known: dict[int, Card]
    next_stock: int
    holdings: list[list[int]]
    discarded: list[int]
    trick: list[tuple[int, int, Card]]
    tricks: list[tuple[tuple[tuple[int, int, Card], ...], int | None, int | None]]
    results: list[int | None]
    queue: list[int]
    folded: set[int]
    singer: int | None
    fortial_team: int | None
    deluxe: bool

    if TYPE_CHECKING:  # DeluxeRules' own (trutnet/games/trut/rules/deluxe/rules.py)

        def _robin_after_hand(self, team: int, petits: int, longs: int) -> None: ...

        def _deluxe_close_hand(self, played: list[int]) -> None: ...

        def _hedgehog_converts(self, team: int) -> None: ...

        hedgehog_team: int | None

    # ---- scoring [T11-T14, T20, D6, D10]

    def _add_petits(self, team: int, count: int) -> None:
        if self.phase == "over":
            return
        self.petits[team] += count
        if self.petits[team] >= 3:  # 3 Petits make a Long (D10)
            if self.deluxe:
                self._hedgehog_converts(team)  # T42: the protection ends first
            self._add_longs(team, 1)

    def _add_longs(self, team: int, count: int) -> None:
        if self.phase == "over":
            return
        self.longs[team] = min(self.target, self.longs[team] + count)  # D6
        self._discard_petits()  # T13
        if self.longs[team] >= self.target:  # T14
            self.winner = team
            self.phase = "over"
            self.to_act = None

    def _discard_petits(self) -> None:
        """T13: a Long discards every Petit; Deluxe: but the Hedgehog's team's (T42)."""
        keep = self.hedgehog_team if self.deluxe else None
        self.petits = [p if t == keep else 0 for t, p in enumerate(self.petits)]

    def _end_by_fold(self, caller_team: int, petits: int) -> None:
        self._add_petits(caller_team, petits)  # T11
        if self.deluxe:
            self._robin_after_hand(caller_team, petits, 0)  # T43: a fold included
        self._close_hand("fold", caller_team, self.marker)  # T8: the marker stays

    def _end_by_win(self, team: int) -> None:
        trut = self.trut
        if trut is None or trut.status != "accepted":
            self._add_petits(team, 1)
            award = (1, 0)
        elif self.n == 3 and not trut.folded_by:
            self._add_longs(team, 2)  # seed, 3 players: both in (accepted, or la Chanson)
            award = (0, 2)
        else:
            self._add_longs(team, 1)  # T12
            award = (0, 1)
        if self.deluxe:
            self._robin_after_hand(team, *award)  # T43
        self._close_hand("won", team, self.marker)

    def _close_hand(self, result: str, team: int | None, next_dealer: int) -> None:
        self.events.append(
            {
                "event": "hand_end",
                "hand": self.hand_number,
                "result": result,
                "team": team,
                "longs": list(self.longs),
                "petits": list(self.petits),
            }
        )
        self.marker = next_dealer
        played = [p for cards, _, _ in self.tricks for _, p, _ in cards]
        played += [p for _, p, _ in self.trick]
        if self.phase == "over":
            self.events.append({"event": "game_end", "winner": self.winner})
            return
        self.hand_number += 1
        self.dealer = next_dealer
        self.phase = "deal"
        self.to_act = CHANCE
        self.known = {}
        self.next_stock = 0
        self.holdings = [[] for _ in range(self.n)]
        self.discarded = []
        self.trick = []
        self.tricks = []
        self.results = []
        self.trut = None
        self.queue = []
        self.folded = set()
        self.singer = None
        self.fortial_team = None
        if self.deluxe:
            self._deluxe_close_hand(played)
