"""The test game Tokens (tests/games/tokens.py) at the engine level: what Trut does not
use of the hidden-information description (a deck per seat, a secret choice opened
later, two seats committing then opening, joint draws, a public reveal at a chance
node), played by a table that knows only the description (tests/engine/hidden_table.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.hidden_table import GenericTable
from tests.games.tokens import DECKS, Bet, Dealt, Die, First, Pick, Seal, Show, TokensGame
from trutnet.engine import GAMES, ConfigError, EngineError, load_game, make_game, register_game
from trutnet.engine.api import CHANCE
from trutnet.engine.hidden import (
    Disclose,
    JointRandom,
    Open,
    Pos,
    Reveal,
    SecretChoice,
    Shuffle,
    Turn,
)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@pytest.fixture(autouse=True)
def _tokens_registered():
    register_game(TokensGame)
    yield
    GAMES.pop("tokens")


def random_chooser(seed: int):
    rng = random.Random(f"{seed}/choices")

    def choose(seat, replica):
        return rng.choice(list(replica.observation(seat).legal))

    return choose


def play(seed: int, rounds: int = 3, deluxe: bool = False) -> GenericTable:
    config = {"rounds": rounds, **({"deluxe": True} if deluxe else {})}
    table = GenericTable(make_game("tokens", config), 2, random_chooser(seed), random.Random(seed))
    table.play()
    return table


def full_playout(state, rng):
    while not state.is_terminal():
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


@SETTINGS
@given(seed=seeds, rounds=st.integers(1, 3), deluxe=st.booleans())
def test_hidden_replicas_agree_on_every_hash_and_observation(seed, rounds, deluxe):
    """Each seat's replica, told only the log and what the description discloses to it,
    has the full state's hash, and the same observation, after every step (with the
    deluxe option too: a card carried into another deck, a card shown to both seats)."""
    table = play(seed, rounds, deluxe)  # GenericTable.check runs after every step
    assert table.full.is_terminal()
    for replica in table.replicas:
        assert replica.public_state() == table.full.public_state()
        assert replica.returns() == table.full.returns()


@SETTINGS
@given(seed=seeds)
def test_the_table_runs_what_the_rules_say_in_their_order(seed):
    table = play(seed)
    steps = table.steps
    kinds = [type(s).__name__ for s in steps]
    # Who starts, then each seat's own deck, shuffled and shown to its owner alone.
    assert steps[0] == JointRandom("first", (First(0), First(1)))
    assert steps[1] == Shuffle("deck0", Dealt("deck0"))
    assert steps[2] == Disclose(tuple(Pos("deck0", i) for i in range(3)), 0)
    assert steps[3] == Shuffle("deck1", Dealt("deck1"))
    assert steps[4] == Disclose(tuple(Pos("deck1", i) for i in range(3)), 1)
    first = table.full.history()[0].seat
    order = [first, 1 - first]
    # The bets: both sealed before anything else, opened at the very end.
    assert steps[5:7] == [SecretChoice(s, "bet", Seal()) for s in order]
    assert [s for s in steps if isinstance(s, Open) and s.label == "bet"] == steps[-2:]
    assert isinstance(steps[-3], Reveal)  # the cards left in hand, to everyone
    # Each round: the stake, then both cards sealed before either is opened.
    rounds = [i for i, s in enumerate(steps) if isinstance(s, JointRandom) and s.label == "stake"]
    assert len(rounds) == 3
    for i in rounds:
        a, b, c, d = steps[i + 1 : i + 5]
        assert (type(a), type(b), type(c), type(d)) == (SecretChoice, SecretChoice, Open, Open)
        assert (a.seat, b.seat) == (c.seat, d.seat) and a.seat != b.seat
    # A seat is only ever shown positions of its own deck; no seat decides in the open.
    for step in steps:
        if isinstance(step, Disclose):
            assert {p.deck for p in step.positions} == {f"deck{step.to}"}
    assert "Turn" not in kinds


@SETTINGS
@given(seed=seeds)
def test_observations_never_show_a_card_the_seat_was_not_shown(seed):
    table = GenericTable(make_game("tokens"), 2, random_chooser(seed), random.Random(seed))
    while table.step():
        for seat in range(2):
            obs = table.full.observation(seat)
            allowed = {p for p in table.disclosed[seat]} | table.public
            assert {p for p, card in obs.hand if card is not None} <= allowed
            own = {p for p, _ in obs.hand}
            assert all(p.deck == f"deck{seat}" for p in own)
            assert {p for _, p, _ in obs.played} <= table.public
            assert {p for p, _ in obs.shown} <= table.public


def _disclosures(table: GenericTable) -> list[Disclose]:
    return [s for s in table.steps if isinstance(s, Disclose)]


@SETTINGS
@given(seed=seeds)
def test_deluxe_carries_seat_0s_card_into_deck1_still_hidden(seed):
    """The exile (T26's carry): deck1's shuffle carries seat 0's first hand card; the
    new deck has seven positions, one of them a red card nobody knows the place of;
    seat 0 refills its hand from its stock; the carried position is held by no one."""
    table = play(seed, deluxe=True)
    steps = table.steps
    exile = Shuffle("deck1", Dealt("deck1"), (Pos("deck0", 0),))
    assert steps[3] == exile  # after the coin, deck0's shuffle and seat 0's hand
    seat1 = [d for d in _disclosures(table) if d.to == 1]
    assert seat1[0].positions == tuple(Pos("deck1", i) for i in (4, 5, 6))  # a carried slot
    assert Disclose((Pos("deck0", 3),), 0) in steps[4:6]  # the refill, shown at once
    history = [str(a) for a in table.full.history()]
    dealt = next(a for a in history if a.startswith("deal deck1")).split()[2:]
    exiled = next(a for a in history if a.startswith("deal deck0")).split()[2]
    assert sorted(dealt) == sorted([*DECKS[1].cards, exiled])  # b1..b6 and the red card
    held = table.full.holders()
    assert Pos("deck0", 0) not in {p for ps in held.values() for p in ps}
    deck1 = [p for ps in held.values() for p in ps if p.deck == "deck1"]
    assert sorted(deck1) == [Pos("deck1", i) for i in range(7)]


def test_deluxe_the_red_card_is_read_from_deck1_when_seat_1_is_shown_it():
    """Over a few games, seat 1 is shown the exiled card at some deck1 position: its
    replica learns it as the red card it is (see() takes a red card in deck1)."""
    found = 0
    for seed in range(12):
        table = play(seed, deluxe=True)
        shown = {p for d in _disclosures(table) if d.to == 1 for p in d.positions}
        red = [p for p in shown if p.deck == "deck1" and table.replicas[1].identity_of(p)]
        found += any(table.replicas[1].identity_of(p).startswith("r") for p in red)
    assert found >= 2


@SETTINGS
@given(seed=seeds)
def test_deluxe_shows_a_seen_card_to_a_second_seat(seed):
    """The peek (T33's Falcon): once both bets are sealed, the first seat is shown the
    other seat's first hand card, which that seat was shown before: a second viewer.
    Its observation holds the card from then on; the other seat's holds none of its."""
    table = GenericTable(
        make_game("tokens", {"deluxe": True}), 2, random_chooser(seed), random.Random(seed)
    )
    first = None
    while table.step():
        if first is None and table.full.round == 1:
            first = table.full.first
            break
    peek = _disclosures(table)[-1]
    other = 1 - first
    assert peek.to == first and len(peek.positions) == 1
    pos = peek.positions[0]
    assert pos.deck == f"deck{other}" and pos in table.disclosed[other]  # seen before
    assert table.full.observation(first).watched == ((pos, table.full.identity_of(pos)),)
    assert table.replicas[first].identity_of(pos) == table.full.identity_of(pos)
    assert table.full.observation(other).watched == ()
    table.play()


def test_deluxe_the_winner_watches_the_losers_draw_in_the_same_round():
    """The watch (T37's exchange): the card the loser of a round draws is shown to it and
    to the winner by the same round of disclosures (two viewers at once)."""
    both = 0
    for seed in range(8):
        table = play(seed, deluxe=True)
        for round_ in table.rounds:
            owners = {s: set(ps) for s, ps in round_.owners.items() if s >= 0}
            if len(owners) == 2 and owners[0] & owners[1]:
                both += 1
    assert both >= 4


def test_a_sealed_choice_changes_no_public_state_and_an_open_must_match_it():
    states = []
    for sealed in (Seal(), Seal(Bet(0)), Seal(Bet(3)), Bet(2)):
        state = make_game("tokens").new_initial_state()
        for action in ("first 1", "deal deck0 r1 r2 r3 r4 r5 r6", "deal deck1 b6 b5 b4 b3 b2 b1"):
            state.apply(action)
        assert state.next_step() == SecretChoice(1, "bet", Seal())
        state.apply(sealed)
        states.append(state)
    assert len({s.state_hash() for s in states}) == 1
    assert str(states[3].history()[-1]) == "seal bet 2"  # the knowing replica's record
    # Drive one to the bets' opening: the open must be the sealed bet.
    state, rng = states[3], random.Random(1)
    state.apply(Seal(Bet(1)))
    while state.next_step() != Open(1, "bet"):
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(state.legal_actions()[0])
    assert state.legal_actions() == [Bet(2)]
    before = (state.state_hash(), len(state.history()))
    with pytest.raises(EngineError, match="sealed bet 2"):
        state.apply(Bet(1))
    assert (state.state_hash(), len(state.history())) == before
    state.apply(Bet(2))
    assert state.next_step() == Open(0, "bet")


def test_a_pick_reveals_only_at_its_opening_and_only_a_card_of_the_hand():
    state = make_game("tokens", {"rounds": 1}).new_initial_state()
    for action in ("first 0", "deal deck0 r4 r1 r6 r2 r5 r3", "deal deck1 b1 b2 b3 b4 b5 b6"):
        state.apply(action)
    state.apply("seal")
    state.apply("seal")
    state.apply("die 2")
    assert state.next_step() == SecretChoice(0, "card", Seal())
    written = state.conceal(0, Pick(Pos("deck0", 2), "r6"))
    assert written == Pick(Pos("deck0", 2))
    assert state.reveals(0, written) == ()  # committing shows nothing
    with pytest.raises(EngineError):
        state.conceal(0, Pick(Pos("deck1", 0)))  # not in seat 0's hand
    state.apply(Seal(Pick(Pos("deck0", 2), "r6")))
    state.apply(Seal())  # seat 1's, unknown here
    assert state.next_step() == Open(0, "card")
    assert state.reveals(0, written) == (Pos("deck0", 2),)
    with pytest.raises(EngineError):
        state.reveals(0, Pick(Pos("deck1", 1)))
    with pytest.raises(EngineError, match="sealed"):
        state.apply(Pick(Pos("deck0", 0), "r4"))
    state.apply(state.identify(written, {Pos("deck0", 2): "r6"}))
    state.apply("pick deck1@1=b2")
    assert state.scores == [2, 0] and state.first == 0
    assert state.hands == [
        [Pos("deck0", 0), Pos("deck0", 1), Pos("deck0", 3)],
        [Pos("deck1", 0), Pos("deck1", 2), Pos("deck1", 3)],
    ]
    step = state.next_step()
    assert isinstance(step, Reveal) and step.positions == (*state.hands[0], *state.hands[1])
    assert state.holders()["played"] == (Pos("deck0", 2), Pos("deck1", 1))


def test_a_deck_per_seat_is_held_by_its_seat_its_stock_and_the_played_pile():
    state = make_game("tokens").new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        held = state.holders()
        for seat, deck in enumerate(DECKS):
            if seat in held:
                mine = [
                    *held[seat],
                    *held[f"stock{seat}"],
                    *(p for p in held["played"] if p.deck == deck.name),
                ]
                assert sorted(mine) == [deck.position(i) for i in range(len(deck))]
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert state.sight() == {} and state.table_requests() == ()


@settings(max_examples=20, deadline=None)
@given(seed=seeds, deluxe=st.booleans())
def test_records_replay_and_every_action_prints_as_it_parses(seed, deluxe):
    config = {"rounds": 2, "deluxe": deluxe}
    state = full_playout(make_game("tokens", config).new_initial_state(), random.Random(seed))
    data = state.serialise()
    assert data["game"] == "tokens"
    again = load_game(data)
    assert again.state_hash() == state.state_hash()
    for text in data["actions"]:
        assert str(state.parse_action(text)) == text
    for text in ("seal", "show deck0@3 deck1@4=b2", "pick deck0@4", "deal deck1"):
        assert str(state.parse_action(text)) == text


def test_joint_draws_and_shuffles_give_the_outcomes_chance_samples():
    state = make_game("tokens").new_initial_state()
    rng = random.Random(4)
    while not state.is_terminal():
        step = state.next_step()
        if state.current_seat() == CHANCE:
            outcome = state.sample_chance(rng)
            if isinstance(step, JointRandom):
                assert outcome in step.outcomes
            elif isinstance(step, Shuffle):
                assert outcome.public() == step.then
            else:
                assert isinstance(step, Reveal) and isinstance(outcome, Show)
                assert [p for p, _ in outcome.cards] == list(step.positions)
            state.apply(outcome)
        else:
            assert isinstance(step, SecretChoice | Open) and not isinstance(step, Turn)
            state.apply(rng.choice(state.legal_actions()))
    assert Die(2) in JointRandom("stake", (Die(1), Die(2), Die(3))).outcomes


def test_registering_a_game_and_its_configuration():
    assert make_game("tokens").decks() == DECKS
    register_game(TokensGame)  # the same class again: nothing changes
    with pytest.raises(ConfigError):
        register_game(type("Other", (TokensGame,), {}))
    for bad in (
        {"rounds": 0},
        {"rounds": 4},
        {"rounds": True},
        {"players": 3},
        {"deluxe": 1},
        {"deluxe": "yes"},
    ):
        with pytest.raises(ConfigError):
            make_game("tokens", bad)
    # The option is named only when on: a game without it hashes as it always did.
    assert make_game("tokens", {"deluxe": False}).config_dict() == {"rounds": 3}
    deluxe = make_game("tokens", {"rounds": 2, "deluxe": True})
    assert deluxe.config_dict() == {"rounds": 2, "deluxe": True}
    plain, extra = (g.new_initial_state().public_state() for g in (make_game("tokens"), deluxe))
    assert "watched" not in plain and extra["watched"] == [[], []]


POOL = (
    [f"bet {k}" for k in range(5)]
    + [f"pick deck{d}@{i}" for d in (0, 1) for i in range(6)]
    + [f"pick deck0@{i}=r{v}" for i in range(6) for v in (1, 4, 6)]
    + [
        "seal bet 9",
        "seal pick deck1@0",
        "die 2",
        "die 4",
        "first 1",
        "deal deck1",
        "show deck0@0=r1",
    ]
)


@settings(max_examples=15, deadline=None)
@given(seed=seeds)
def test_legal_actions_apply_and_anything_else_is_refused_and_changes_nothing(seed):
    rng = random.Random(seed)
    state = make_game("tokens").new_initial_state()
    while not state.is_terminal():
        if state.current_seat() != CHANCE:
            legal = state.legal_actions()
            assert legal and state.legal_actions(1 - state.current_seat()) == []
            for action in legal:
                state.clone().apply(action)
            seat = state.current_seat()
            allowed = {*legal, *(state.conceal(seat, a) for a in legal)}  # also as written
            for text in rng.sample(POOL, 10):
                action = state.parse_action(text)
                if action in allowed or (isinstance(action, Seal) and action.choice in allowed):
                    continue
                before = (state.state_hash(), len(state.history()), dict(state.secrets))
                with pytest.raises(EngineError):
                    state.apply(action)
                assert (state.state_hash(), len(state.history()), dict(state.secrets)) == before
            state.apply(rng.choice(legal))
        else:
            state.apply(state.sample_chance(rng))
