"""The Falcon [T33]: shown at the start of the hand, its holder then sees his
partners' cards, once. A mixin of :class:`~trutnet.engine.games.trut.state.TrutState`.

When the hands are final (after the deal, la Chanson and any Fortial decision; before
any answer to a Trut d'office or au Fortial, and before any card), every seat in T4
order is asked in turn: the Falcon's holder must write ``falcon @p`` (its position,
revealed to everyone, T33: "le montre à tout le monde"), a seat without it ``pass``.
The partners' hand positions at that moment then enter the holder's sight (a private
reveal to a second viewer: the table seals the partners' shares to it); cards they
receive later are not shown. With 2 or 3 players nobody looks.

This is T33's fallback: the table does not yet find the Falcon without its holder's
help, so a holder that says ``pass`` is caught only if it plays the Falcon in that
hand (refused, T33, and so blamed over the network), and a replica that knows the
hand (self-play, tests) refuses the ``pass`` at once.
"""

from __future__ import annotations

from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import IllegalAction
from trutnet.engine.games.trut.actions import PASS, CardRef, Power, Word
from trutnet.engine.games.trut.deluxe.cards import AnyCard, Special

FALCON = "E"


class DeluxeFalcon:
    """The Falcon's step and look (mixed into ``TrutState``)."""

    n: int
    phase: str
    to_act: int | None
    dealer: int
    team_of: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    events: list[dict[str, Any]]
    known: dict[int, AnyCard]
    holdings: list[list[int]]
    falcon_step: str
    falcon_queue: list[int]
    falcon_resume: tuple[str, int | None] | None
    falcon_holder: int | None
    falcon_passed: list[int]
    falcon_look: list[int]

    def _falcon_init(self) -> None:
        self.falcon_step = "waiting"  # this hand: waiting, then done
        self.falcon_queue = []
        self.falcon_resume = None
        self.falcon_holder = None
        self.falcon_at: int | None = None  # the Falcon's position, shown to everyone
        self.falcon_passed = []
        self.falcon_look = []  # the partners' positions its holder was shown

    def _falcon_public(self) -> dict[str, Any]:
        return {
            "falcon_step": self.falcon_step,
            "falcon_queue": list(self.falcon_queue),
            "falcon_resume": None if self.falcon_resume is None else list(self.falcon_resume),
            "falcon_holder": self.falcon_holder,
            "falcon_at": self.falcon_at,
            "falcon_passed": list(self.falcon_passed),
            "falcon_look": list(self.falcon_look),
        }

    def _falcon_gate(self) -> None:
        """T33: the hands are final; ask for the Falcon before anything else."""
        if self.falcon_step != "waiting":
            return
        self.falcon_resume = (self.phase, self.to_act)
        self.falcon_queue = [(self.dealer + 1 + i) % self.n for i in range(self.n)]
        self.falcon_step = "asking"
        self.phase = "falcon"
        self.to_act = self.falcon_queue[0]

    def _falcon_of(self, seat: int) -> int | None:
        return next((p for p in self.holdings[seat] if _is_falcon(self.known.get(p))), None)

    def _falcon_legal(self, seat: int) -> list[Action]:
        if self.phase != "falcon" or seat != self.to_act:
            return []
        pos = self._falcon_of(seat)
        if pos is not None:
            return [Power("falcon", (f"{FALCON}@{pos}",))]
        unknown = [p for p in self.holdings[seat] if p not in self.known]
        # A replica that does not know the seat's cards: it may hold the Falcon anywhere
        return [PASS] + [Power("falcon", (f"@{p}",)) for p in unknown]

    def _apply_falcon(self, seat: int, action: Power | Word) -> Action:
        if isinstance(action, Word):
            if action.word != "pass":
                raise IllegalAction("T33", "at the Falcon's step: falcon @p or pass")
            if self._falcon_of(seat) is not None:
                raise IllegalAction("T33", "the Falcon must be shown (T33: le montre)")
            self.falcon_passed.append(seat)
            self.falcon_queue.pop(0)
            if self.falcon_queue:
                self.to_act = self.falcon_queue[0]
            else:
                self._falcon_done()
            return action
        if action.verb != "falcon":
            raise IllegalAction("T33", "at the Falcon's step: falcon @p or pass")
        ref = CardRef.parse(action.args[0])
        if ref.pos is None or ref.pos not in self.holdings[seat]:
            raise IllegalAction("T33", f"{ref} is not in seat {seat}'s hand")
        known = self.known.get(ref.pos)
        card = ref.card if ref.card is not None else known
        if not _is_falcon(card) or (known is not None and known != card):
            raise IllegalAction("T33", f"position {ref.pos} does not hold the Falcon")
        assert card is not None
        self.known[ref.pos] = card
        self.falcon_holder, self.falcon_at = seat, ref.pos
        partners = [s for s in self.teams[self.team_of[seat]] if s != seat]
        self.falcon_look = [p for s in partners for p in self.holdings[s]]
        self.events.append({"event": "falcon", "seat": seat, "partners": partners})
        self._falcon_done()
        return Power("falcon", (f"{FALCON}@{ref.pos}",))

    def _falcon_done(self) -> None:
        assert self.falcon_resume is not None
        self.phase, self.to_act = self.falcon_resume
        self.falcon_step, self.falcon_queue, self.falcon_resume = "done", [], None

    def _falcon_check_play(self, seat: int, card: AnyCard) -> None:
        """T33: a Falcon played by a seat that said it had none is refused (blamed)."""
        if _is_falcon(card) and seat in self.falcon_passed:
            raise IllegalAction("T33", "a Falcon played without having been shown")

    def _falcon_sight(self, seat: int) -> set[int]:
        """The partners' positions the Falcon's holder was shown, still in their hands."""
        if seat != self.falcon_holder:
            return set()
        held = {p for s in range(self.n) if s != seat for p in self.holdings[s]}
        return {p for p in self.falcon_look if p in held}

    def _falcon_seen(self, seat: int) -> tuple[tuple[int, AnyCard], ...]:
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
