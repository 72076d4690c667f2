"""Property tests of Truco over random legal play, for every player count and option
(K5, K31): legal actions never raise, every match ends, the hidden replicas of a
table agree on every hash (tests/engine/hidden_table.py), records replay and notation
round-trips, refusals change nothing, and no observation holds another seat's
unrevealed card."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trutnet.games.truco  # noqa: F401  (registers the game for load_game)
from tests.engine.hidden_table import GenericTable
from trutnet.engine import load_game
from trutnet.engine.api import CHANCE
from trutnet.engine.errors import EngineError
from trutnet.games.truco.rules import Declare, TrucoGame, Word, parse_action
from trutnet.games.truco.rules.cards import envido, flor

SETTINGS = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)
CONFIGS = [
    {"players": 2},
    {"players": 2, "flor": True, "falta_wins_chico": True},
    {"players": 3},
    {"players": 3, "gallo": "rotating", "flor": True},
    {"players": 4},
    {"players": 4, "flor": True, "chicos": 1},
    {"players": 6},
    {"players": 6, "flor": True, "pica_pica_until": "both_buenas"},
    {"players": 6, "pica_pica": False},
    {"players": 8},
    {"players": 8, "flor": True, "chicos": 1},
]
IDS = ["-".join(f"{k}={v}" for k, v in c.items()) for c in CONFIGS]


def chooser(seed: int):
    rng = random.Random(f"{seed}/choices")
    return lambda seat, replica: rng.choice(list(replica.observation(seat).legal))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds)
def test_random_play_ends_replays_and_round_trips(config, seed):
    game = TrucoGame(**config)
    state = game.new_initial_state()
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            action = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            assert legal and all(str(parse_action(str(a))) == str(a) for a in legal)
            action = rng.choice(legal)
        state.apply(action)
        steps += 1
        assert steps < 50_000
        assert all(0 <= s <= 30 for s in state.scores)
    assert state.winner is not None and sum(state.returns()) == len(game.teams()[state.winner])
    record = state.serialise()
    replayed = load_game(record)
    assert replayed.state_hash() == state.state_hash()
    assert TrucoGame.from_config(record["config"]).config_dict() == game.config_dict()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@SETTINGS
@given(seed=seeds)
def test_hidden_replicas_agree_on_every_hash_and_observation(config, seed):
    """Each seat's replica knows only its own cards and what is played or shown; it
    has the full state's hash and observation after every step, and asks the table
    for the same requests (GenericTable.check)."""
    game = TrucoGame(**config)
    table = GenericTable(game, game.players, chooser(seed), random.Random(seed))
    table.play(max_steps=200_000)
    assert table.full.is_terminal()
    for replica in table.replicas:
        assert replica.public_state() == table.full.public_state()


@pytest.mark.parametrize("config", CONFIGS[::2], ids=IDS[::2])
@SETTINGS
@given(seed=seeds)
def test_observations_hold_no_other_seats_hidden_card_and_refusals_change_nothing(config, seed):
    game = TrucoGame(**config)
    state = game.new_initial_state()
    rng = random.Random(seed)
    probes = ["quiero", "truco", "envido", "mazo", "son buenas", "declare 33", "paso", "flor"]
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        for other in range(game.players):
            obs = state.observation(other)
            mine = set(state.dealt[other])
            shown = {p for p, c in obs.hand + obs.kept if c is not None}
            assert shown <= mine
            for trick in obs.tricks:
                for _, card in trick:
                    assert card in state.face_up.values()
        legal = {str(a) for a in state.legal_actions()}
        for probe in probes:
            if probe not in legal:
                before = state.state_hash()
                with pytest.raises(EngineError):
                    state.apply(probe)
                assert state.state_hash() == before
        state.apply(rng.choice(state.legal_actions()))


TEAMS = [c for c in CONFIGS if c["players"] in (3, 4, 6)]


@pytest.mark.parametrize(
    "config", TEAMS, ids=["-".join(f"{k}={v}" for k, v in c.items()) for c in TEAMS]
)
def test_K20_a_sides_best_declaration_is_never_lost_to_a_lower_one(config):
    """K20 (amended): every seat declares whenever its cards allow it. When the
    declarations end, the winning value is its seat's own and no seat of another
    side held more (a side's best is never lost to a lower one), each seat spoke at
    most once, and every seat of the other sides was asked (a seat passed over is
    asked again once its side is beaten)."""
    episodes = 0
    for seed in range(20):
        rng = random.Random(seed)
        state = TrucoGame(**config).new_initial_state()
        spoke: list[int] = []
        values: dict[int, int] = {}
        while not state.is_terminal():
            seat = state.current_seat()
            if seat == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            if state.phase != "declare":
                state.apply(rng.choice(legal))
                continue
            if state.best is None:  # the first declaration: who takes part, with what
                count = flor if state.decl_kind == "flor" else envido
                spoke = []
                values = {
                    s: count([state.known[p] for p in state.dealt[s]]) for s in state.decl_queue
                }
            declares = [a for a in legal if isinstance(a, Declare)]
            spoke.append(seat)
            state.apply(declares[0] if declares else Word("son buenas"))
            if state.phase == "declare":
                continue
            episodes += 1
            value, winner = state.best
            assert values[winner] == value, (seed, state.declared, values)
            side = state.side(winner)
            others = [v for s, v in values.items() if state.side(s) != side]
            assert value >= max(others), (seed, state.declared, values)  # never a lower one
            assert len(spoke) == len(set(spoke)) and set(spoke) <= set(values)
            assert {s for s in values if state.side(s) != side} <= set(spoke)
    assert episodes >= 20
