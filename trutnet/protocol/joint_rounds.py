"""The joint steps of a game's hidden information that every seat takes part in
(docs/protocol.md 7.4), the part of :class:`~.replica.TableReplica` that runs them: a
``JointRandom`` is a commit round then a reveal round (:mod:`.commitments`: no reveal
can come before every commitment is in the log), whose values seed the draws; a
``Locate`` is a ``blind`` round then an ``unblind`` round of plaintext-equality tests
(:mod:`.locate`), after which everyone knows which positions hold the card asked for.
"""

from __future__ import annotations

import hashlib
from typing import Any

from trutnet.crypto import (
    Blinds,
    Context,
)
from trutnet.crypto.group import Point
from trutnet.crypto.randomness import commitment
from trutnet.engine.hidden import (
    Locate,
)
from trutnet.protocol.commitments import (
    DRAW_DOMAIN,
)
from trutnet.protocol.envelope import Entry
from trutnet.protocol.locate import BLIND_STEP, UNBLIND_STEP, LocateRound
from trutnet.protocol.schema import (
    Rejected,
    bytes_field,
    exact_fields,
)
from trutnet.protocol.shares import EVERYONE


class JointRounds:
    """Mixed into :class:`~.replica.TableReplica`: see the module."""

    def _locate(self, step: Locate) -> bool:
        """Start the equality tests ``step`` asks for; True if they wait for entries."""
        if not step.positions:
            assert self.state is not None
            self.state.apply(self.state.identify(step.then, {}))
            return False
        self.locating = LocateRound.plan(step, self.decks)
        self._start_round("blind", range(self.n))
        return True

    def _on_blind(self, entry: Entry, body: dict[str, Any]) -> Blinds:
        exact_fields(body, {"blinds"})
        assert self.locating is not None
        return self.locating.check_blind(
            bytes_field(body, "blinds"),
            entry.seat,
            self.elgamal[entry.seat],
            self.context(BLIND_STEP),
        )

    def _keep_blind(self, seat: int, batch: Blinds) -> None:
        assert self.locating is not None
        self.locating.blinds[seat] = batch

    def _after_blind(self) -> None:
        """Every blinding is in the log: the shares of the joint blinded ciphertexts
        name the blind round's digest, so none comes before every blinding (7.4)."""
        assert self.locating is not None
        self.locating.join()
        self._start_round("unblind", range(self.n))

    def _on_unblind(self, entry: Entry, body: dict[str, Any]) -> tuple[Point, ...]:
        exact_fields(body, {"shares"})
        assert self.locating is not None
        return self.locating.check_unblind(
            bytes_field(body, "shares"),
            entry.seat,
            self.elgamal[entry.seat],
            self.context(UNBLIND_STEP),
        )

    def _keep_unblind(self, seat: int, shares: tuple[Point, ...]) -> None:
        assert self.locating is not None
        self.locating.shares[seat] = shares

    def _after_unblind(self) -> None:
        """Everyone learns which positions hold the card; the engine goes on."""
        locating, state = self.locating, self.state
        assert locating is not None and state is not None
        self.locating = None
        cards = dict.fromkeys(locating.found(), locating.step.card)
        self.decks.revealed.update(cards)
        for seat in range(self.n):
            self.shown.setdefault(seat, set()).update(cards)
        if cards and self.on_round is not None:
            self.on_round(self, {EVERYONE: tuple(cards)})
        state.apply(state.identify(locating.step.then, cards))
        self._drive()

    def _on_commit(self, entry: Entry, body: dict[str, Any]) -> bytes:
        exact_fields(body, {"commit"})
        return bytes_field(body, "commit", 32)

    def _keep_commit(self, seat: int, commit: bytes) -> None:
        assert self.draw is not None
        self.draw.commits[seat] = commit

    def _after_commit(self) -> None:
        """Every commitment is in the log: the reveals name the commit round's digest,
        so none can come before every commitment (7.4)."""
        self._start_round("reveal", range(self.n))

    def _draw_context(self) -> Context:
        assert self.draw is not None
        return self.context(f"draw/{self.draw.label}")

    def _on_reveal(self, entry: Entry, body: dict[str, Any]) -> bytes:
        exact_fields(body, {"value"})
        draw = self.draw
        assert draw is not None
        value = bytes_field(body, "value", 32)
        if commitment(value, entry.seat, self._draw_context()) != draw.commits[entry.seat]:
            raise Rejected("commitment", "the revealed value does not open the commitment")
        return value

    def _keep_reveal(self, seat: int, value: bytes) -> None:
        assert self.draw is not None
        self.draw.values[seat] = value

    def _after_reveal(self) -> None:
        draw = self.draw
        assert draw is not None
        values = b"".join(draw.values[s] for s in range(self.n))
        self.seed = (hashlib.sha256(DRAW_DOMAIN + values).digest(), 0)
        self.draw = None
        self._drive()
