"""Helpers for Truco's scenario tests: a state dealt from chosen hands, and steps
applied with a check of who acts."""

from __future__ import annotations

from typing import Any

import pytest

from trutnet.engine.errors import IllegalAction
from trutnet.games.truco.rules import Deal, Dealer, TrucoGame, TrucoState
from trutnet.games.truco.rules.setup import deck_for_hands


def dealt(hands: dict[int, str], players: int = 2, dealer: int = 0, **options: Any) -> TrucoState:
    """A full-knowledge state whose first hand is dealt ``hands`` by ``dealer``."""
    game = TrucoGame(players=players, **options)
    state = game.new_initial_state()
    state.apply(Dealer(dealer))
    gallo = state.gallo()
    state.apply(Deal(deck_for_hands(players, dealer, hands, gallo)))
    return state


def run(state: TrucoState, *steps: str) -> TrucoState:
    """Apply ``"seat: action"`` steps, checking that the seat is the one to act."""
    for step in steps:
        seat, _, action = step.partition(": ")
        assert state.current_seat() == int(seat), (step, state.current_seat(), state.phase)
        state.apply(action)
    return state


def refused(state: TrucoState, action: str, rule: str) -> None:
    """``action`` is refused citing ``rule``, and the state is unchanged."""
    before = state.state_hash()
    history = len(state.history())
    with pytest.raises(IllegalAction) as caught:
        state.apply(action)
    assert caught.value.rule == rule, caught.value
    assert state.state_hash() == before and len(state.history()) == history


def words(state: TrucoState, seat: int | None = None) -> set[str]:
    return {str(a) for a in state.legal_actions(seat)}


def card_at(state: TrucoState, seat: int, card: str) -> str:
    """``play`` notation of ``card`` in ``seat``'s hand."""
    pos = next(p for p in state.hands[seat] if state.known[p] == card)
    return f"{card}@{pos.index}"
