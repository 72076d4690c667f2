"""Trut Deluxe's determinisation (``trutnet/games/trut/rules/deluxe/sampling.py``):
what a search draws for the cards and specials its seat has not seen.

Games of heuristic bots, with a void now and then (D22) and start positions that set
the Hedgehog aside (D23); at decisions along the way, a determinisation for the seat
to act must keep its observation and the public state, know every position of the
hand's deck once, put in the kept positions of the pool the specials of its deck
(T25, T26), keep the Falcon where the table found it or out of the hands (T33), and
play on legally to the end of the hand. Another seat's hidden cards swapped by hand
give the same determinisation: it reads the seat's view alone.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.bots.test_search_bot import swapped
from trutnet.bots import make_bot, seat_action
from trutnet.engine import make_game
from trutnet.engine.api import CHANCE
from trutnet.games.trut.rules.deluxe.cards import Special

HEDGEHOG_START = {"longs": [0, 0], "petits": [2, 0], "dealer": 0, "hedgehog": 0}
CONFIGS = [
    {"players": 2, "deluxe": True},
    {"players": 4, "deluxe": True, "bonus_cards": True},
    {"players": 3, "deluxe": True, "michao_hare": True},
    {"players": 2, "deluxe": True, "start": HEDGEHOG_START},  # D23
]


def _decisions(config: dict, seed: int):
    """(state, seat) at one decision in three of a game, voided now and then."""
    game = make_game("trut", config)
    state = game.new_initial_state()
    rng, chance = random.Random(seed), random.Random(f"{seed}/chance")
    bots = [make_bot("trut", "heuristic", random.Random(s)) for s in range(game.num_players())]
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            state.apply(state.sample_chance(chance))
            continue
        void = state.void_round()
        if void is not None and rng.random() < 0.01:  # D22: the pool prepared again
            state.apply(void)
            continue
        if len(state.observation(seat).legal) > 1 and rng.random() < 0.33:
            yield state.clone(), seat
        state.apply(seat_action(bots[seat], state, seat))


def _kept_agree(sample) -> bool:
    """T26: the deck holds the kept specials (but a Hedgehog nobody kept, or one
    aside out of it, T42)."""
    deck = Counter(c.letter for c in sample.known.values() if isinstance(c, Special))
    kept = Counter(sample.pool_known[p].letter for p in sample.kept)
    return +(deck - kept) <= Counter("M") and +(kept - deck) <= Counter("M")


def _play_out_the_hand(sample, seed: int) -> None:
    chance = random.Random(f"{seed}/playout")
    hand = sample.round_number()
    while not sample.is_terminal() and sample.round_number() == hand:
        seat = sample.current_seat()
        if seat == CHANCE:
            sample.apply(sample.sample_chance(chance))
            continue
        sample.apply(chance.choice(sample.legal_actions(seat)))  # any legal move


@pytest.mark.parametrize("config", CONFIGS, ids=["2p", "4p-bonus", "3p-michao", "2p-hedgehog"])
def test_a_deluxe_determinisation_keeps_the_seats_view_and_the_rules(config):
    seen = Counter()
    for seed in range(3):
        for state, seat in _decisions(config, seed):
            sample = state.determinise(seat, random.Random(seed))
            assert sample.observation(seat) == state.observation(seat)
            assert sample.public_state() == state.public_state()
            if state.next_stock:  # a hand is dealt: every position known, each card once
                assert sorted(sample.known) == list(range(state.deck_size))
                assert len(set(map(str, sample.known.values()))) == state.deck_size
                assert _kept_agree(sample)
                if state.falcon_at is not None:  # T33: where the table found it
                    assert sample.known[state.falcon_at] == state.known[state.falcon_at]
                elif state.falcon_step == "done":  # T33: found in no hand, drawn out of them
                    sight = {p.index for p in state.sight().get(seat, ())}
                    drawn = [p for hand in state.holdings for p in hand if p not in sight]
                    assert not any(str(sample.known[p]) == "E" for p in drawn)
                    seen["no falcon"] += 1
                seen["dealt"] += 1
            if state.phase == "choose":  # T25: its own two specials, the others drawn
                for p in state.pool_dealt[seat]:
                    assert sample.pool_known[p] == state.pool_known[p]
                seen["choose"] += 1
            seen["hedgehog"] += state.hedgehog_team is not None or state.hedgehog_back
            for variant in swapped(state, seat):
                again = variant.determinise(seat, random.Random(seed))
                assert (again.known, again.pool_known) == (sample.known, sample.pool_known)
                seen["swapped"] += 1
            _play_out_the_hand(sample, seed)
    assert seen["dealt"] >= 20 and seen["swapped"] >= 20 and seen["no falcon"] >= 10
    assert seen["choose"] >= 1
    if config.get("start") or config["players"] == 2:
        assert seen["hedgehog"] >= 1  # its protection or its return met along the way
