"""Helpers for the Lutin & Troll tests: games started from chosen hands, combats
played by card kind (full knowledge: the state knows both hands)."""

from __future__ import annotations

import random

from trutnet.engine.api import CHANCE
from trutnet.games.lutin.rules import LutinGame, LutinState


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
        seat = state.current_seat()
        state.apply(rng.choice(state.observation(seat).legal or state.legal_actions()))


TOKENS = "t11 t21 t33 t12 t22 t31 t13 t23 t32"  # seat 0: t11 t21 t33; seat 1: t12 t22 t31


def start_expert(
    variant: str, hand0: str, hand1: str, order: str = TOKENS, keep: tuple[int, int] = (2, 5)
) -> LutinState:
    """An expert game after the coin (seat 0 attacks), the tokens dealt in ``order``
    (seat 0 holds positions 0-2, seat 1 3-5) and ``keep`` discarded (L21), the hands
    chosen."""
    state = LutinGame(variant).new_initial_state()
    state.apply("first 0")
    state.apply(f"deal tokens {order}")
    names = order.split()
    for pos in keep:  # sealed, the attacker's first
        state.apply(f"discard tokens@{pos}")
    for pos in keep:
        state.apply(f"discard tokens@{pos}={names[pos]}")
    choose(state, hand0, hand1)
    return state


def window(state: LutinState, choices: dict[int, str]) -> None:
    """A token window (L22): each seat's choice, sealed then opened (or one seat's,
    openly); ``choices`` in opened form (``token tokens@0=t11 own``)."""
    if state.phase == "window":
        for _ in range(2):
            seat = state.current_seat()
            state.apply(choices[seat])
    while state.phase in ("window_open", "window_turn"):
        seat = state.current_seat()
        state.apply(choices[seat])
