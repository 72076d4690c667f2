"""A seat's decisions (docs/protocol.md 7.4), the part of :class:`~.replica.TableReplica`
that checks and applies them: an ``act`` (a turn), a ``seal`` (a secret choice,
committed) and its ``unseal``. A decision is written in its concealed form (cards by
position) and must be one of the seat's legal actions; one that reveals positions
carries the seat's own shares of them, and the engine applies it once they are known.
"""

from __future__ import annotations

from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import EngineError
from trutnet.engine.hidden import (
    Open,
    Pos,
    SecretChoice,
)
from trutnet.protocol.commitments import (
    SALT_BYTES,
    Sealed,
    seal_commitment,
)
from trutnet.protocol.entry_types import MAX_ACTION
from trutnet.protocol.envelope import Entry
from trutnet.protocol.schema import (
    Rejected,
    bytes_field,
    exact_fields,
    text_field,
)


class SeatDecisions:
    """Mixed into :class:`~.replica.TableReplica`: see the module."""

    def _decision(self, seat: int, text: Any) -> tuple[Action, tuple[Pos, ...]]:
        """``text`` as the decision ``seat`` may write now, and the positions it reveals.

        The written form is the concealed one (cards by position, 4) and one of the
        seat's legal actions: never an action only the table applies (a deal, a void)."""
        state = self.state
        assert state is not None
        if not isinstance(text, str) or not 1 <= len(text) <= MAX_ACTION:
            raise Rejected("schema", "field 'action' is the decision's notation")
        action = state.parse_action(text)
        positions = state.reveals(seat, action)  # public state only: the same refusal anywhere
        try:  # a replica that knows a card, and one that does not, refuse alike
            written = state.conceal(seat, action)
        except EngineError:
            written = None
        if written != action or str(action) != text:
            raise Rejected("schema", f"{text!r}: a decision names cards by position only")
        legal = {state.conceal(seat, a) for a in state.legal_actions(seat)}
        if action not in legal and not positions:
            state.clone().apply(action)  # the engine's own refusal names its rule
            raise Rejected("decision", f"{text!r} is not a decision of seat {seat} now")
        if positions and action not in legal:
            raise Rejected("decision", f"{text!r} is not a decision of seat {seat} now")
        return action, positions

    def _decide(self, entry: Entry, body: dict[str, Any], extra: set[str], text: Any) -> None:
        """Apply a seat's decision: reveal what it shows (its own shares in ``body``),
        then the engine applies it."""
        action, positions = self._decision(entry.seat, text)
        own = self.decks.missing(entry.seat, positions)
        exact_fields(body, extra | ({"shares"} if own else set()))
        if own:
            self.decks.accept(
                bytes_field(body, "shares"),
                entry.seat,
                self.elgamal[entry.seat],
                own,
                self.context("act"),
            )
        if positions:
            if self._reveal(entry.seat, action, positions):
                return
        else:
            assert self.state is not None
            self.state.apply(action)
        self._drive()

    def _on_act(self, entry: Entry, body: dict[str, Any]) -> None:
        self._decide(entry, body, {"action"}, body.get("action"))

    def _on_seal(self, entry: Entry, body: dict[str, Any]) -> None:
        exact_fields(body, {"commit"})
        step, state = self.step, self.state
        assert isinstance(step, SecretChoice) and state is not None
        commit = bytes_field(body, "commit", 32)
        self.sealed[entry.seat, step.label] = Sealed(commit, self.round_number())
        known = None if self.own_sealed is None else self.own_sealed(entry.seat, commit)
        state.apply(step.sealed if known is None else state.parse_action(known))
        self._drive()

    def _on_unseal(self, entry: Entry, body: dict[str, Any]) -> None:
        step = self.step
        assert isinstance(step, Open)
        sealed = self.sealed.pop((entry.seat, step.label), None)
        if sealed is None:
            raise Rejected("seal", f"seat {entry.seat} sealed no choice {step.label}")
        salt, text = bytes_field(body, "salt", SALT_BYTES), text_field(body, "action", MAX_ACTION)
        context = self.context(f"seal/{step.label}", sealed.round)
        if seal_commitment(context, entry.seat, salt, text) != sealed.commit:
            raise Rejected("commitment", f"the opened {step.label} is not the sealed one")
        self._decide(entry, body, {"salt", "action"}, text)
