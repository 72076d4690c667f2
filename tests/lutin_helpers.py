"""Helpers for the Lutin & Troll tests: games started from chosen hands, combats
played by card kind (full knowledge: the state knows both hands)."""

from __future__ import annotations

import random

from trutnet.engine.api import CHANCE
from trutnet.engine.games.lutin import LutinGame, LutinState


def start(hand0: str, hand1: str, first: int = 0, variant: str = "base") -> LutinState:
    """A base game after the coin (``first`` attacks) with both hands chosen."""
    state = LutinGame(variant).new_initial_state()
    state.apply(f"first {first}")
    choose(state, hand0, hand1)
    return state


def choose(state: LutinState, hand0: str, hand1: str) -> None:
    """Both hands, in the order the engine asks (the attacker's first, L16)."""
    hands = {0: hand0.split(), 1: hand1.split()}
    while state.phase == "choose":
        seat = state.current_seat()
        assert seat is not None
        state.apply(f"take {hands[seat].pop(0)}")


def slot_of(state: LutinState, seat: int, card: str) -> int:
    return next(k for k in state.slots[seat] if state.secrets.get((seat, k)) == card)


def play(state: LutinState, card: str) -> None:
    """The seat to act plays ``card`` of its hand: ``play hand/k``, then its opening."""
    seat = state.current_seat()
    assert seat is not None and seat >= 0 and state.phase in ("attack", "riposte")
    state.apply(f"play hand/{slot_of(state, seat, card)}")
    state.apply(f"take {card}")


def combat(state: LutinState, attack: str, riposte: str) -> None:
    play(state, attack)
    play(state, riposte)


def open_all(state: LutinState) -> None:
    """The end of a manche: every unplayed card opened (L15)."""
    while state.phase == "end_open":
        seat, slot = state.queue[0]
        state.apply(f"take {state.secrets[seat, slot]}")


def random_step(state: LutinState, rng: random.Random) -> None:
    """One random legal action (a chance outcome at a chance node)."""
    if state.current_seat() == CHANCE:
        state.apply(state.sample_chance(rng))
    else:
        state.apply(rng.choice(state.legal_actions()))
