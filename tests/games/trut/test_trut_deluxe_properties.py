"""Property tests of Trut Deluxe over random legal play [T23-T47]: every player count,
classic and Gâtinaise, with and without the bonus cards, from the start or from a
position. Legal actions never raise, every game ends with tokens in range, records
replay, and a replica that knows only one seat's cards (its specials included) agrees
on every hash and sees exactly that seat's observation."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.games.trut.trut_helpers import playout, random_step, start_position
from trutnet.engine import load_game
from trutnet.games.trut.rules import Deal, Keep, TrutConfig, TrutGame, TrutState
from trutnet.games.trut.rules.actions import Prepare

SETTINGS = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)
CONFIGS = [
    TrutConfig(players, variant, deluxe=True, bonus_cards=bonus, michao_hare=bonus)
    for players in (2, 3, 4, 6)
    for variant in ("classic", "gatinaise")
    for bonus in (False, True)
]


def _game(config: TrutConfig, seed: int, from_position: bool) -> TrutGame:
    if not from_position:
        return TrutGame(config)
    rng = random.Random(seed ^ 0x5EED)
    start = start_position(config, rng)
    hedgehog = rng.choice([None, *range(len(config.teams))])  # T42, D23: set aside
    start = dataclasses.replace(start, hedgehog=hedgehog)
    return TrutGame(dataclasses.replace(config, start=start))


def _check(state: TrutState) -> None:
    assert all(0 <= p <= 2 for p in state.petits), state.petits
    assert all(0 <= x <= state.target for x in state.longs), state.longs
    assert (state.winner is not None) == state.is_terminal()


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, from_position=st.booleans())
def test_deluxe_random_play_is_legal_ends_and_replays(config, seed, from_position):
    state = _game(config, seed, from_position).new_initial_state()
    playout(state, random.Random(seed), _check)
    assert state.is_terminal() and state.longs[state.winner] == config.target
    assert state.legal_actions() == []
    again = load_game(state.serialise())
    assert again.state_hash() == state.state_hash()
    for action in state.history():
        assert state.parse_action(str(action)) == action


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@SETTINGS
@given(seed=seeds, seat=st.integers(0, 5), from_position=st.booleans())
def test_deluxe_hidden_replica_agrees_and_sees_only_its_seat(config, seed, seat, from_position):
    seat %= config.players
    game = _game(config, seed, from_position)
    full = game.new_initial_state()
    replica = game.new_initial_state()
    rng = random.Random(seed)
    for _ in range(20_000):
        if full.is_terminal():
            break
        text = random_step(full, rng)
        action = full.parse_action(text)
        if isinstance(action, Deal | Keep | Prepare):
            action = action.public()
        replica.apply(action)
        # What a table discloses to this seat: its hand, its two specials (T25), the
        # partners' cards if it showed the Falcon (T33); the description says which
        for pos in full.sight().get(seat, ()):
            if replica.identity_of(pos) is None:
                replica.see(pos, full.identity_of(pos))
        assert replica.state_hash() == full.state_hash()
        assert replica.observation(seat) == full.observation(seat)
    assert full.is_terminal()


@pytest.mark.parametrize("players", [2, 4])
def test_T42_D22_voids_never_put_a_protecting_hedgehog_back_in_play(players):
    """T42 (amended), D22: seats replaced at random moments (a void each time). While
    its side's protection stands, the Hedgehog is never among the specials dealt to
    choose and never in a deck dealt; a replica that knows only one seat's cards
    agrees on every hash and observation across the voids."""
    game = TrutGame(TrutConfig(players, deluxe=True))
    protected_voids = 0
    for seed in range(18):  # 6 protected voids at 2 players, 12 at 4
        rng = random.Random(seed)
        full, replica = game.new_initial_state(), game.new_initial_state()
        voids = 0
        while not full.is_terminal():
            if voids < 3 and full.void_round() is not None and rng.random() < 0.02:
                protected_voids += full.hedgehog_team is not None
                voids += 1
                full.apply(full.void_round())
                replica.apply(replica.void_round())
            else:
                protected = full.hedgehog_team is not None
                action = full.parse_action(random_step(full, rng))
                if isinstance(action, Deal) and protected:  # a deck dealt while it protects
                    assert "M" not in map(str, full.known.values()), seed
                if isinstance(action, Deal | Keep | Prepare):
                    action = action.public()
                replica.apply(action)
            for pos in full.sight().get(0, ()):
                if replica.identity_of(pos) is None:
                    replica.see(pos, full.identity_of(pos))
            assert replica.state_hash() == full.state_hash()
            assert replica.observation(0) == full.observation(0)
            if full.hedgehog_team is not None and full.phase == "choose":  # specials dealt
                dealt = [full.pool_known[p] for h in full.pool_holdings for p in h]
                assert "M" not in map(str, dealt), seed
    assert protected_voids >= 3
