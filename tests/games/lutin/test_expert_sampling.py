"""Lutin & Troll expert's determinisation (``LutinState.determinise``): what a search
draws for the tokens its seat has not seen (L21, L30, L33).

Games of heuristic bots in both expert modes; at decisions along the way a
determinisation for the seat to act keeps its observation and the public state,
keeps its own tokens and the face-up ones, knows each of the nine tokens once,
draws the other seat's sealed token choices anew (its bonus token among the face-up
ones it was chosen from, L30; a token choice among those its tokens allow, L22), and
plays on legally to the end of the game (every action it lists applies).
"""

from __future__ import annotations

import random

import pytest

from trutnet.bots import make_bot, seat_action
from trutnet.engine import make_game
from trutnet.engine.api import CHANCE
from trutnet.games.lutin.rules.cards import KINDS
from trutnet.games.lutin.rules.powers import TOKEN_DECK, TOKEN_NAMES, targets


def _decisions(variant: str, seed: int):
    game = make_game("lutin", {"variant": variant})
    state = game.new_initial_state()
    rng, chance = random.Random(seed), random.Random(f"{seed}/chance")
    bots = [make_bot("lutin", "heuristic", random.Random(s)) for s in range(2)]
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            state.apply(state.sample_chance(chance))
            continue
        if len(state.observation(seat).legal) > 1 and rng.random() < 0.25:
            yield state.clone(), seat
        state.apply(seat_action(bots[seat], state, seat))


def _play_on(sample, seed: int) -> None:
    """Any action the sample lists, to the end: each must apply."""
    rng = random.Random(f"{seed}/playout")
    while not sample.is_terminal():
        seat = sample.current_seat()
        if seat == CHANCE:
            sample.apply(sample.sample_chance(rng))
        else:
            sample.apply(rng.choice(sample.legal_actions(seat)))


@pytest.mark.parametrize("variant", ["expert-white", "expert-black"])
def test_an_expert_determinisation_keeps_the_seats_view_and_the_rules(variant):
    bonus = dealt = 0
    sealed = [0, 0]  # decisions without, with the other seat's token sealed this window
    for seed in range(3):
        for state, seat in _decisions(variant, seed):
            sample = state.determinise(seat, random.Random(seed))
            assert sample.observation(seat) == state.observation(seat)
            assert sample.public_state() == state.public_state()
            tokens = {p: c for p, c in sample.known.items() if p.deck == TOKEN_DECK.name}
            if state.aside:  # dealt: each token once, its own and the face-up ones kept
                dealt += 1
                assert sorted(tokens.values()) == sorted(TOKEN_NAMES)
                for p in [*state.tok_pos[seat], *state.spent]:
                    assert tokens[p] == state.known[p]
            other = 1 - seat
            drawn = {(other, "bonus"), (other, "token")}  # L30, L22: drawn, not read
            assert all(k[0] == seat or k in drawn for k in sample.tsecrets)
            play = sample.tsecrets.get((other, "token"))
            sealed[play is not None] += 1
            if play is not None and play.source is not None:  # L22: its token takes it
                defausse = [k for k, n in zip(KINDS, sample.defausse[other], strict=True) if n]
                name = sample._name(other, play)
                allowed = targets(sample.power, name, defausse, sample.slots[other])
                assert play.target in allowed
            if state.bonus_seat == other and state.bonus_name is None and state.phase != "bonus":
                bonus += 1
                assert sample.tsecrets[other, "bonus"].name in state.bonus_from  # L30
            _play_on(sample, seed)
    assert dealt >= 30 and bonus >= 1 and sealed[1] >= 5
