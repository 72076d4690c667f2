"""The Hedgehog of Trut Deluxe: its team's Petits protected, the card set aside [T42].

A mixin of :class:`~trutnet.engine.games.trut.state.TrutState`.

* From the moment it lands in a trick (played, or replacing the Nutria, T35), its
  team's Petits are protected (``hedgehog_team``): no loss from a Trut's Long (T13),
  the Robin (T43), the Magpie (T36) or the Weasel (T37), no discard under T13 or T45.
* The protection ends when that team converts 3 Petits into a Long: first the
  protection ends, then the discard happens as usual.
* When its trick is picked up, or when the hand ends, the Hedgehog is set aside by its
  team's tokens instead of being captured (``hedgehog_at``: its position in this
  hand's deck; holder ``"hedgehog"``).
* Out of the deck while the protection lasts (T26): before the next hand's shuffle,
  a shuffle of the ``hedgehog`` deck (a deck with no cards of its own) carries its
  ciphertext out (``aside``, D21), so the talon's shuffle does not carry it; once the
  protection has ended, the next talon shuffle carries ``hedgehog@0`` back in. The
  card's identity is public (it was played), but its ciphertext is never re-made from
  plaintext, like every other card of the talon (D17).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.errors import IllegalAction
from trutnet.engine.games.trut.actions import Aside
from trutnet.engine.hidden import Deck, Pos

HEDGEHOG = "M"
HEDGEHOG_PILE = "hedgehog"
HEDGEHOG_DECK = Deck(HEDGEHOG_PILE, ())
"""T42: the set-aside Hedgehog's own pile, a deck with no cards of its own into which
one shuffle carries the Hedgehog's ciphertext out of the talon."""
AWAY = Pos(HEDGEHOG_PILE, 0)


class DeluxeHedgehog:
    """The Hedgehog's protection and its place out of the deck (mixed into ``TrutState``)."""

    phase: str
    team_of: tuple[int, ...]
    events: list[dict[str, Any]]
    deck_size: int
    hedgehog_team: int | None
    hedgehog_played: int | None
    hedgehog_at: int | None
    hedgehog_away: bool

    def _hedgehog_init(self, protected: int | None = None) -> None:
        self.hedgehog_team = protected  # T42: the team whose Petits are protected
        self.hedgehog_played = None  # its position in this hand's trick or game area
        self.hedgehog_at = None  # set aside this hand, at this position of the deck
        self.hedgehog_away = False  # in its own pile (hedgehog@0), out of the deck

    def _hedgehog_public(self) -> dict[str, Any]:
        return {
            "hedgehog_team": self.hedgehog_team,
            "hedgehog_played": self.hedgehog_played,
            "hedgehog_at": self.hedgehog_at,
            "hedgehog_away": self.hedgehog_away,
        }

    def _protected(self, team: int) -> bool:
        """T42: this team's Petits cannot be lost."""
        return self.hedgehog_team == team

    def _hedgehog_landed(self, seat: int, pos: int) -> None:
        """T42: from the moment it is played, its team's Petits are protected."""
        self.hedgehog_played = pos
        self.hedgehog_team = self.team_of[seat]
        self.events.append({"event": "hedgehog", "team": self.team_of[seat]})

    def _hedgehog_converts(self, team: int) -> None:
        """T42: the protected team converts 3 Petits into a Long: protection ends first."""
        if self.hedgehog_team == team:
            self.hedgehog_team = None
            self.events.append({"event": "hedgehog_ends", "team": team})

    def _hedgehog_set_aside(self, positions: list[int]) -> None:
        """T42: picked up with these positions (a capture, or the hand's end), the
        Hedgehog is set aside instead of being captured."""
        if self.hedgehog_played is not None and self.hedgehog_played in positions:
            self.hedgehog_at, self.hedgehog_played = self.hedgehog_played, None
            self.events.append({"event": "hedgehog_aside", "team": self.hedgehog_team})

    def _hedgehog_out(self) -> bool:
        """The Hedgehog is out of the deck this hand (protected, in its own pile)."""
        return self.hedgehog_away and self.hedgehog_team is not None

    def _hedgehog_move_due(self) -> bool:
        """Before the next shuffle: a set-aside, still protecting Hedgehog leaves the deck."""
        return (
            self.phase == "deal"
            and self.hedgehog_at is not None
            and self.hedgehog_team is not None
            and not self.hedgehog_away
        )

    def _apply_aside(self, action: Aside) -> Aside:
        if not self._hedgehog_move_due():
            raise IllegalAction("T42", "no set-aside Hedgehog leaves the deck now")
        self.hedgehog_away = True
        self.events.append({"event": "hedgehog_out", "team": self.hedgehog_team})
        return action

    def _hedgehog_carry(self, previous: list[Pos]) -> tuple[Pos, ...]:
        """T26, T42: what the next talon shuffle carries: the previous deck but the
        Hedgehog moved out of it, and the Hedgehog itself once its protection ended."""
        at = self.hedgehog_at if self.hedgehog_away else None
        carry = [p for i, p in enumerate(previous) if i != at]
        if self.hedgehog_away and self.hedgehog_team is None:
            carry.append(AWAY)
        return tuple(carry)

    def _hedgehog_dealt(self) -> None:
        """A new hand's deck: the Hedgehog is in it again if its protection ended."""
        self.hedgehog_at = None
        self.hedgehog_played = None
        if self.hedgehog_team is None:
            self.hedgehog_away = False

    def _hedgehog_holders(self) -> tuple[Pos, ...]:
        if self.hedgehog_away:
            return (AWAY,)
        if self.hedgehog_at is not None:
            return (self._pos(self.hedgehog_at),)
        return ()

    if TYPE_CHECKING:  # TrutHidden's own

        def _pos(self, index: int) -> Pos: ...
