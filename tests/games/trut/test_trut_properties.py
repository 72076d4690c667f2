"""Property tests over random legal play, for every player count and variant."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.games.trut.trut_helpers import (
    CONFIGS,
    HiddenReplica,
    playout,
    random_step,
    start_position,
    visible_cards,
)
from trutnet.engine import load_game
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.games.trut.rules.state import TrutState

SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def _game(config: TrutConfig, seed: int, from_position: bool) -> TrutGame:
    if not from_position:
        return TrutGame(config)
    rng = random.Random(seed ^ 0x5EED)
    start = start_position(config, rng)
    return TrutGame(TrutConfig(config.players, config.variant, config.sum_on_patte, start))


def _check_tokens(state: TrutState) -> None:
    target = state.target
    assert all(0 <= p <= 2 for p in state.petits), state.petits
    assert all(0 <= long <= target for long in state.longs), state.longs
    assert sum(long == target for long in state.longs) <= 1
    assert (state.winner is not None) == state.is_terminal()


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, from_position=st.booleans())
def test_random_play_is_legal_ends_and_keeps_tokens_in_range(config, seed, from_position):
    state = _game(config, seed, from_position).new_initial_state()
    playout(state, random.Random(seed), _check_tokens)
    assert state.is_terminal()
    assert state.longs[state.winner] == config.target
    assert sum(state.returns()) == len(config.teams[state.winner])
    assert state.legal_actions() == []


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, from_position=st.booleans())
def test_same_actions_same_hash_and_serialisation_round_trips(config, seed, from_position):
    state = _game(config, seed, from_position).new_initial_state()
    rng = random.Random(seed)
    hashes = []
    while not state.is_terminal():
        random_step(state, rng)
        hashes.append(state.state_hash())
    data = state.serialise()
    replayed = load_game(data)
    assert replayed.state_hash() == state.state_hash()
    assert replayed.serialise() == data
    # Replaying step by step gives the same hash after every action.
    again = TrutGame.from_config(data["config"]).new_initial_state()
    for action, expected in zip(data["actions"], hashes, strict=True):
        again.apply(action)
        assert again.state_hash() == expected
    # Every action prints back as it parses.
    for text in data["actions"]:
        assert str(state.parse_action(text)) == text


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, from_position=st.booleans(), data=st.data())
def test_hidden_replica_agrees_on_every_hash(config, seed, from_position, data):
    """A seat that knows only the public actions and its own cards computes the same
    state hash, the same own observation and the same legal actions as full knowledge."""
    game = _game(config, seed, from_position)
    if from_position:  # a start with a known deck would tell the replica everything
        assert game.config.start is not None and game.config.start.deck is None
    seat = data.draw(st.integers(0, config.players - 1))
    full = game.new_initial_state()
    replica = HiddenReplica(game, seat)
    rng = random.Random(seed)
    while not full.is_terminal():
        text = random_step(full, rng)
        replica.follow(full, text)
        assert replica.state.state_hash() == full.state_hash()
        assert replica.state.observation(seat) == full.observation(seat)
    assert replica.state.public_state() == full.public_state()


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, from_position=st.booleans())
def test_observation_never_shows_another_seats_unrevealed_card(config, seed, from_position):
    state = _game(config, seed, from_position).new_initial_state()

    def check(state: TrutState) -> None:
        if state.phase in ("draw", "deal", "over"):
            return
        played = {c for _, _, c in state.trick}
        played.update(c for cards, _, _ in state.tricks for _, _, c in cards)
        for seat in range(config.players):
            own = {state.known[p] for p in state.holdings[seat] if p in state.known}
            if state.hidden_from_owner(seat):
                own = set()
            allowed = {str(c) for c in own | played}
            seen = set(visible_cards(state.observation(seat).to_dict()))
            assert seen <= allowed, (seat, seen - allowed)

    playout(state, random.Random(seed), check)
