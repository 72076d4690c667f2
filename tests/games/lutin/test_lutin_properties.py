"""Lutin & Troll under random legal play, every variant built (``base``,
``initiation``): legal actions never raise, every game ends, each seat's hidden
replica agrees with the full state (``tests/engine/hidden_table.py``), records replay and
round-trip, and no observation or replica holds the other seat's unopened card."""

from __future__ import annotations

import random

import pytest

from tests.engine.hidden_table import GenericTable
from tests.games.lutin.lutin_helpers import random_step
from trutnet.engine import EngineError
from trutnet.engine.api import CHANCE
from trutnet.games.lutin.rules import LutinGame
from trutnet.games.lutin.rules.cards import KINDS
from trutnet.games.lutin.rules.state import VARIANTS

# Seeds enough to meet every phase and power of each variant (the rule tests pin each
# ruling; these look for what they missed); CI time is shared with the other suites.
SEEDS = range(6)


def _random_choice(rng):
    def choose(seat, state):  # what the seat is offered (its observation)
        return rng.choice(state.observation(seat).legal or state.legal_actions(seat))

    return choose


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_hidden_replicas_agree_and_never_hold_the_other_seats_cards(variant, seed):
    rng = random.Random(seed)
    table = GenericTable(LutinGame(variant), 2, _random_choice(rng), rng)
    for _ in range(20_000):
        if not table.step():
            break
        for seat, replica in enumerate(table.replicas):
            assert all(s == seat for s, _ in replica.secrets)  # its own sealed cards only
            obs = replica.observation(seat)
            assert len(obs.hand) == len(set(w for w, _ in obs.hand))
            other = table.full.observation(1 - seat)
            assert obs.hand_sizes == other.hand_sizes and obs.unseen == other.unseen
    assert table.full.is_terminal()
    record = table.full.serialise()
    assert LutinGame(variant).replay(record["actions"]).state_hash() == table.full.state_hash()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_legal_action_applies_and_every_game_ends(variant):
    for seed in range(6):
        rng = random.Random(1000 + seed)
        state = LutinGame(variant).new_initial_state()
        for _ in range(5000):
            if state.is_terminal():
                break
            manche = state.manche
            if state.current_seat() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            seat = state.current_seat()
            legal = state.legal_actions()  # the engine's own list, not only the seat's
            offered = list(state.observation(seat).legal)
            assert legal and {str(a) for a in offered} <= {str(a) for a in legal}
            for action in legal:  # each one listed applies, to a copy (L22: a token's
                state.clone().apply(action)  # targets once it is known)
            state.apply(rng.choice(offered or legal))
        assert state.is_terminal() and sum(state.returns()) <= 1
        # L3, L31: the game ends on its last manche, never on a new one begun
        assert state.manche == manche
        if variant == "base":
            assert max(state.vp) == 5
        texts = [str(a) for a in state.history()]
        assert [str(state.parse_action(t)) for t in texts] == texts  # notation round-trips
        again = LutinGame.from_config(state.game.config_dict()).replay(texts)
        assert again.public_state() == state.public_state()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_refusal_changes_nothing(variant):
    """Refusals are checked before any change (the engine keeps no copy to roll back)."""
    candidates = [*(f"take {k}" for k in KINDS), *(f"play hand/{k}" for k in range(5)), "first 0"]
    candidates += ["seal take nymph", "deal lutin1", "play lutin0@0=g2", "play lutin1@3=b6"]
    for seed in range(3):
        rng = random.Random(seed)
        state = LutinGame(variant).new_initial_state()
        while not state.is_terminal():
            before = (state.public_state(), dict(state.secrets), dict(state.known))
            for text in rng.sample(candidates, 6):
                probe = state.clone()
                try:
                    probe.apply(text)
                except EngineError:
                    assert (probe.public_state(), probe.secrets, probe.known) == before
            random_step(state, rng)
