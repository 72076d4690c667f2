"""The Falcon [T33]: shown at the start of the hand, its holder then sees his
partners' cards, once. A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`.

When the hands are final (after the deal, la Chanson and any Fortial decision; before
any answer to a Trut d'office or au Fortial, and before any card), the hand waits for
a chance event, the Falcon's step: the table finds the Falcon among every dealt hand
position by itself (``Locate``: plaintext-equality tests, protocol 8.12), so its
holder can neither hide it nor show it where it is not, and tells everyone where it
is and nothing else (``falcon E@35``, or ``falcon none`` when no hand holds it). The
Falcon is then known to all at its position (T33: "le montre à tout le monde"), and
the partners' hand positions at that moment enter the holder's sight (a private
reveal to a second viewer: the table seals the partners' shares to it); cards they
receive later are not shown. With 2 or 3 players nobody looks.

The Falcon's notation in the deck is its letter, ``E``: the first hand's deck holds
it as a carried card of the specials' pool, the talon of later hands (T26) too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.api import CHANCE, Action
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import Locate, Pos
from trutnet.games.trut.rules.actions import CardRef, FalconShown
from trutnet.games.trut.rules.deluxe.cards import AnyCard, Special, special

FALCON = "E"


class DeluxeFalcon:
    """The Falcon's step and look (mixed into ``TrutState``)."""

    n: int
    phase: str
    to_act: int | None
    team_of: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    events: list[dict[str, Any]]
    known: dict[int, AnyCard]
    holdings: list[list[int]]
    falcon_step: str
    falcon_resume: tuple[str, int | None] | None
    falcon_holder: int | None
    falcon_look: list[int]

    if TYPE_CHECKING:  # TrutHidden's

        def _pos(self, index: int) -> Pos: ...

    def _falcon_init(self) -> None:
        self.falcon_step = "waiting"  # this hand: waiting, then done
        self.falcon_resume = None
        self.falcon_holder = None
        self.falcon_at: int | None = None  # the Falcon's position, shown to everyone
        self.falcon_look = []  # the partners' positions its holder was shown

    def _falcon_public(self) -> dict[str, Any]:
        return {
            "falcon_step": self.falcon_step,
            "falcon_resume": None if self.falcon_resume is None else list(self.falcon_resume),
            "falcon_holder": self.falcon_holder,
            "falcon_at": self.falcon_at,
            "falcon_look": list(self.falcon_look),
        }

    def _falcon_gate(self) -> None:
        """T33: the hands are final; the table looks for the Falcon before anything else."""
        if self.falcon_step != "waiting":
            return
        self.falcon_resume = (self.phase, self.to_act)
        self.falcon_step = "locating"
        self.phase = "falcon"
        self.to_act = CHANCE

    def _falcon_positions(self) -> tuple[int, ...]:
        """Every dealt hand position, in deck order: where the table looks."""
        return tuple(sorted(p for hand in self.holdings for p in hand))

    def _falcon_step(self) -> Locate:
        """The description's step: find the Falcon among the hands (T33)."""
        positions = tuple(self._pos(p) for p in self._falcon_positions())
        return Locate(positions, FALCON, FalconShown(None))

    def _falcon_sample(self) -> FalconShown:
        """A replica that knows every hand finds it where it is (self-play)."""
        at = next((p for p in self._falcon_positions() if _is_falcon(self.known.get(p))), None)
        return FalconShown(None if at is None else CardRef(special(FALCON), at))

    def _falcon_identify(self, cards: dict[Pos, str]) -> FalconShown:
        found = [p for p in self._falcon_positions() if cards.get(self._pos(p)) == FALCON]
        if len(found) > 1:
            raise IllegalAction("T33", f"one Falcon, not one at each of {found}")
        return FalconShown(CardRef(special(FALCON), found[0]) if found else None)

    def _apply_falcon(self, action: FalconShown) -> Action:
        if self.phase != "falcon":
            raise IllegalAction("T33", f"the Falcon is looked for when hands are final: {action}")
        at = None if action.ref is None else action.ref.pos
        hands = self._falcon_positions()
        if at is not None and at not in hands:
            raise IllegalAction("T33", f"position {at} is in no hand")
        if at is not None and self.known.get(at, special(FALCON)) != special(FALCON):
            raise IllegalAction("T33", f"position {at} does not hold the Falcon")
        hidden = next((p for p in hands if _is_falcon(self.known.get(p)) and p != at), None)
        if hidden is not None:  # a replica that knows the hand: it is not elsewhere
            raise IllegalAction("T33", f"the Falcon is at position {hidden}")
        if at is not None:
            seat = next(s for s in range(self.n) if at in self.holdings[s])
            self.known[at] = special(FALCON)
            self.falcon_holder, self.falcon_at = seat, at
            partners = [s for s in self.teams[self.team_of[seat]] if s != seat]
            self.falcon_look = [p for s in partners for p in self.holdings[s]]
            self.events.append({"event": "falcon", "seat": seat, "partners": partners})
        assert self.falcon_resume is not None
        self.phase, self.to_act = self.falcon_resume
        self.falcon_step, self.falcon_resume = "done", None
        return action

    def _falcon_sight(self, seat: int) -> set[int]:
        """The partners' positions the Falcon's holder was shown, still in their hands."""
        if seat != self.falcon_holder:
            return set()
        held = {p for s in range(self.n) if s != seat for p in self.holdings[s]}
        return {p for p in self.falcon_look if p in held}

    def falcon_seen(self, seat: int) -> tuple[tuple[int, AnyCard], ...]:
        """For the holder's observation: (partner seat, card) it was shown, still held."""
        shown = self._falcon_sight(seat)
        return tuple(
            (s, self.known[p])
            for s in range(self.n)
            for p in self.holdings[s]
            if p in shown and p in self.known
        )


def _is_falcon(card: AnyCard | None) -> bool:
    return isinstance(card, Special) and card.letter == FALCON
