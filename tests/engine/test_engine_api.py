"""The engine interface: refusals change nothing, loading and configs are strict."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.games.trut.trut_helpers import CONFIGS, random_step
from trutnet.engine import ConfigError, EngineError, HiddenCard, IllegalAction, load_game, make_game
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame, deck_for_hands
from trutnet.games.trut.rules.actions import WORDS
from trutnet.games.trut.rules.cards import FULL_DECK, parse_card

# Every action notation that could ever be offered, legal or not.
POOL = (
    [f"play {c}" for c in FULL_DECK]
    + [f"play {c}@{p}" for c in FULL_DECK[::3] for p in range(0, 32, 5)]
    + [f"play @{p}" for p in range(0, 32, 4)]
    + list(WORDS)
    + [
        "sing 1",
        "sing 2",
        "sing 3",
        "keep 7h 8d As",
        "keep @0 @1 @2",
        "keep @0 @1",
        "draw 7h",
        "draw 9c",
        "deal",
        "deal " + " ".join(str(c) for c in FULL_DECK),
    ]
)


def snapshot(state):
    return (state.state_hash(), dict(state.known), len(state.history()), len(state.events))


@pytest.mark.parametrize("config", CONFIGS, ids=str)
# 3 whole games a config (each probes 12 actions and applies every legal one at every
# step: about a second a game at 6 players)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_refused_actions_change_nothing_and_legal_ones_apply(config, seed):
    rng = random.Random(seed)
    state = TrutGame(config).new_initial_state()
    while not state.is_terminal():
        legal = {str(a) for a in state.legal_actions()}
        for text in rng.sample(POOL, 12):
            before = snapshot(state)
            probe = state.clone()
            try:
                probe.apply(text)
            except EngineError as exc:
                if isinstance(exc, IllegalAction):
                    assert exc.rule and f"[{exc.rule}]" in str(exc)
                continue
            finally:
                assert snapshot(state) == before
            # Accepted: it must have been legal, or a chance event, or a play of a known
            # card written with its position (the same move as the legal "play 7h").
            assert text in legal or state.is_chance_node() or text.startswith("play ")
            # ... and the original refuses nothing the clone accepted.
        for text in legal:
            state.clone().apply(text)
        random_step(state, rng)


def test_illegal_action_names_rule_and_leaves_state_untouched():
    deck = deck_for_hands(2, 0, {0: "7h 8d As", 1: "9c 10c Jc"})
    game = TrutGame(TrutConfig(2, start=StartPosition((0, 0), (0, 0), 0, deck)))
    state = game.new_initial_state()
    before = snapshot(state)
    with pytest.raises(IllegalAction) as exc:
        state.apply("play 9c")  # seat 0 does not hold it
    assert exc.value.rule == "T5"
    with pytest.raises(IllegalAction) as exc:
        state.apply("accept")
    assert exc.value.rule == "T5"
    with pytest.raises(HiddenCard):
        state.apply("play @0")
    assert snapshot(state) == before


def test_clone_is_independent():
    state = TrutGame(TrutConfig(4)).new_initial_state()
    rng = random.Random(3)
    for _ in range(30):
        random_step(state, rng)
    copy = state.clone()
    h = state.state_hash()
    random_step(copy, rng)
    random_step(copy, rng)
    assert state.state_hash() == h
    assert copy.state_hash() != h


def test_learn_refuses_contradictions():
    state = TrutGame(TrutConfig(2, start=StartPosition((0, 0), (0, 0), 0))).new_initial_state()
    state.apply("deal")
    state.learn(0, parse_card("7h"))
    before = state.state_hash()
    for pos, card in [(0, "8h"), (1, "7h"), (40, "9c")]:
        with pytest.raises(IllegalAction):
            state.learn(pos, parse_card(card))
    assert state.state_hash() == before


def test_load_game_rejects_bad_records():
    good = TrutGame(TrutConfig(2)).new_initial_state()
    rng = random.Random(1)
    for _ in range(20):
        random_step(good, rng)
    data = good.serialise()
    assert load_game(data).state_hash() == good.state_hash()
    bad_records = [
        {},
        {**data, "extra": 1},
        {**data, "game": "chess"},
        {**data, "config": {"players": 5}},
        {**data, "config": {"players": "2"}},
        {**data, "config": {"players": 2, "colour": "red"}},
        {**data, "actions": "play 7h"},
        {**data, "actions": [*data["actions"][:5], "play 7h@99"]},
        {**data, "actions": [*data["actions"][:5], 42]},
        {**data, "actions": [*data["actions"], *data["actions"]]},
    ]
    for record in bad_records:
        with pytest.raises(ConfigError):
            load_game(record)


@pytest.mark.parametrize(
    "config",
    [
        {"players": 2, "sum_on_patte": True},
        {"players": 4, "variant": "bretonne"},
        {"players": 2, "start": {"longs": [7, 0], "petits": [0, 0], "dealer": 0}},
        {"players": 2, "start": {"longs": [0, 0], "petits": [3, 0], "dealer": 0}},
        {"players": 2, "start": {"longs": [0], "petits": [0], "dealer": 0}},
        {"players": 2, "start": {"longs": [0, 0], "petits": [0, 0], "dealer": 2}},
        {"players": 2, "start": {"longs": [0, 0], "petits": [0, 0], "dealer": 0, "deck": ["7h"]}},
        {
            "players": 2,
            "start": {"longs": [0, 0], "petits": [0, 0], "dealer": 0, "deck": ["7h"] * 32},
        },
        {"players": 2, "start": {"longs": [0, 0], "petits": [0, 0], "dealer": True}},
        {"players": 2, "sum_on_patte": 1},
        [],
    ],
)
def test_bad_configs_are_refused(config):
    with pytest.raises(ConfigError):
        make_game("trut", config)


def test_config_round_trips_with_start_position():
    deck = deck_for_hands(4, 2, {0: "7h 7d 7s"})
    config = TrutConfig(4, "gatinaise", False, StartPosition((4, 1), (2, 0), 2, deck))
    again = TrutConfig.from_dict(config.to_dict())
    assert again == config
    state = TrutGame(again).new_initial_state()
    assert [str(c) for c in state.hand_of(0)] == ["7h", "7d", "7s"]


def test_replay_equals_applying_one_by_one():
    state = TrutGame(TrutConfig(3, "gatinaise")).new_initial_state()
    rng = random.Random(9)
    for _ in range(60):
        random_step(state, rng)
    replayed = state.game.replay([str(a) for a in state.history()])
    assert replayed.public_state() == state.public_state()
    assert replayed.history() == state.history()


def test_D16_void_ends_the_hand_without_score_and_the_same_dealer_deals():
    deck = deck_for_hands(2, 1, {0: "7h 8d As", 1: "9c 10c Jc"})
    config = TrutConfig(2, start=StartPosition((2, 3), (1, 2), 1, deck))
    state = TrutGame(config).new_initial_state()
    state.apply("play 9c")
    events = state.apply("void")
    assert [e["event"] for e in events] == ["hand_void", "hand_end"]
    assert (state.phase, state.dealer, state.longs, state.petits) == ("deal", 1, [2, 3], [1, 2])
    with pytest.raises(IllegalAction) as exc:
        state.apply("void")  # no hand in progress
    assert exc.value.rule == "D16"
    assert "void" not in {str(a) for a in state.legal_actions()}


def test_what_a_table_reads_besides_hidden_cards():
    """Seats and teams (T2), the round a table checkpoints on (a Trut hand), the
    winning team, and the void of a hand in progress (D16) that only the table applies."""
    from tests.games.tokens import TokensGame
    from tests.games.trut.trut_helpers import playout
    from trutnet.games.trut.rules.actions import Void

    for players, teams in ((2, ((0,), (1,))), (3, ((0,), (1,), (2,))), (4, ((0, 2), (1, 3)))):
        game = TrutGame(TrutConfig(players))
        assert game.num_players() == players and game.teams() == teams
    state = TrutGame(TrutConfig(4)).new_initial_state()
    assert (state.round_number(), state.void_round(), state.winning_team()) == (0, None, None)
    rng = random.Random(11)
    while state.phase in ("draw", "deal"):
        assert state.void_round() is None  # no hand in progress: nothing to void
        state.apply(state.sample_chance(rng))
    assert state.void_round() == Void()
    state.apply(state.void_round())
    assert state.phase == "deal" and state.round_number() == state.hand_number == 1
    playout(state, rng)
    assert state.winning_team() == state.winner is not None
    assert state.round_number() == state.hand_number and state.void_round() is None
    # The defaults: every seat its own team; the team whose seats alone have returns.
    tokens = TokensGame(1)
    assert tokens.num_players() == 2 and tokens.teams() == ((0,), (1,))
    state = tokens.new_initial_state()
    state.winner, state.phase = 1, "over"
    assert state.returns() == [0.0, 1.0] and state.winning_team() == 1
    state.winner = None
    assert state.winning_team() is None


# Every built-in game and the configurations that change what can be played.
EVERY_GAME = [
    ("trut", {"players": 2}),
    ("trut", {"players": 3, "variant": "gatinaise"}),
    ("trut", {"players": 6, "sum_on_patte": True}),
    ("trut", {"players": 2, "deluxe": True, "bonus_cards": True, "michao_hare": True}),
    ("trut", {"players": 4, "deluxe": True, "bonus_cards": True}),
    ("trut", {"players": 3, "deluxe": True, "variant": "gatinaise"}),
    ("truco", {"players": 2, "flor": True}),
    ("truco", {"players": 3}),
    ("truco", {"players": 6, "flor": True}),
    *(("lutin", {"variant": v}) for v in ("base", "expert-white", "expert-black", "initiation")),
]


@pytest.mark.parametrize(("name", "config"), EVERY_GAME, ids=str)
def test_every_action_the_engine_lists_applies(name, config):
    """OpenSpiel's contract, for every game: each action of ``legal_actions()`` of a
    state that knows everything applies (here to a copy), whatever the seats' front-ends
    narrow it to; random play over that list ends every game. (Lutin & Troll's token
    windows once listed targets the seat's own token cannot take, L22.)"""
    from trutnet.engine.api import CHANCE
    from trutnet.plugins import load_plugins

    load_plugins()
    game = make_game(name, config)
    for seed in range(3):
        rng = random.Random(f"{name}/{seed}")
        state = game.new_initial_state()
        for _ in range(20_000):
            if state.is_terminal():
                break
            if state.current_seat() == CHANCE:
                state.apply(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            assert legal, state.phase
            for action in legal:
                state.clone().apply(action)
            state.apply(rng.choice(legal))
        assert state.is_terminal()
