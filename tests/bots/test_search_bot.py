"""The search bot (``trutnet.bots.search``): it cannot peek, it plays whole games of
every game legally, its budget is said where a bot is named, and it is deterministic
for a seed.

No peeking: at a decision in the middle of a game, a second state whose observation
for the bot's seat is the same but whose hidden cards of another seat differ (cards
swapped by hand between another seat's hand and the stock, or a determinisation of
the first) gets the same decision, with the same figures, from a bot with the same
seed.
"""

from __future__ import annotations

import itertools
import random

import pytest

from trutnet.bots import BotError, check_bot, make_bot, seat_action
from trutnet.bots.search import Budget, BudgetError, SearchBot
from trutnet.engine import load_game, make_game
from trutnet.engine.api import CHANCE, GameState
from trutnet.selfplay import play_game

SAMPLED = [  # every game's configurations: each determinises
    ("trut", {"players": 2}),
    ("trut", {"players": 3, "variant": "gatinaise"}),  # la Chanson's unseen discards (T19)
    ("trut", {"players": 4}),
    ("truco", {"players": 2}),
    ("truco", {"players": 3}),
    ("truco", {"players": 4, "flor": True}),
    ("lutin", {}),
    ("lutin", {"variant": "initiation"}),
    ("trut", {"players": 2, "deluxe": True}),
    ("trut", {"players": 4, "deluxe": True, "bonus_cards": True}),  # the Falcon's look
    ("lutin", {"variant": "expert-white"}),  # its tokens (L21)
    ("lutin", {"variant": "expert-black"}),
]
BUDGET = "search:samples=3"


def _ids(configs: list[tuple[str, dict]]) -> list[str]:
    return [name + "".join(f"-{k}={v}" for k, v in config.items()) for name, config in configs]


def decision_points(name: str, config: dict, seed: int, every: int = 9):
    """States of a game played by heuristic bots, one every ``every`` decisions that
    offer a choice, with the seat to decide."""
    game = make_game(name, config)
    state = game.new_initial_state()
    chance = random.Random(f"{seed}/chance")
    bots = [make_bot(name, "heuristic", random.Random(s)) for s in range(game.num_players())]
    count = 0
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            state.apply(state.sample_chance(chance))
            continue
        assert seat is not None
        if len(state.observation(seat).legal) > 1:
            count += 1
            if count % every == 0:
                yield state.clone(), seat
        state.apply(seat_action(bots[seat], state, seat))


def hidden_cards(state: GameState, seat: int) -> object:
    """What the other seats hold that ``seat`` may not see, as this state knows it."""
    if hasattr(state, "holdings"):  # Trut
        return [[state.known.get(p) for p in h] for s, h in enumerate(state.holdings) if s != seat]
    if hasattr(state, "dealt"):  # Truco
        return [[state.known.get(p) for p in h] for s, h in enumerate(state.hands) if s != seat]
    if state.initiation:  # Lutin & Troll
        return [[state.known.get(p) for p in state.hand_pos[1 - seat]]]
    return sorted((k, c) for k, c in state.secrets.items() if k[0] != seat)


def swapped(state: GameState, seat: int) -> list[GameState]:
    """Copies, one per other seat that holds an unseen card, with one of its cards
    swapped by hand with an unseen card held elsewhere (the stock, a third seat, its
    pioche), or (Lutin & Troll base) one of its sealed cards sealed as another kind
    its pioche holds."""
    variants = []
    holders = state.holders()
    if hasattr(state, "known") and holders:
        seen = set(state.sight().get(seat, ()))
        if getattr(state, "falcon_at", None) is not None:  # T33: shown to all where it lies
            seen.add(state._pos(state.falcon_at))
        # shown to all: played, Trut Deluxe's Hare's and Nutria's cards, its Hedgehog
        excluded = {seat, "table", "defausse", f"pioche{seat}", "drawn", "removed", "hedgehog"}
        unseen = [p for h, ps in holders.items() if h not in excluded for p in ps if p not in seen]
        key = (lambda p: p.index) if hasattr(state, "holdings") else (lambda p: p)
        for holder, positions in holders.items():
            if not isinstance(holder, int) or holder == seat:
                continue
            pairs = (
                (a, b, state.known.get(key(a)), state.known.get(key(b)))
                for a in positions
                if a not in seen
                for b in unseen
                if a != b and a.deck == b.deck
            )
            for a, b, ca, cb in pairs:
                if None not in (ca, cb) and ca != cb:
                    other = state.clone()
                    other.known[key(a)], other.known[key(b)] = cb, ca
                    variants.append(other)
                    break
    if not hasattr(state, "secrets"):  # Lutin & Troll base and expert: its sealed hand
        return variants
    from trutnet.games.lutin.rules.state import INDEX, KINDS

    theirs = [(k, c) for k, c in sorted(state.secrets.items()) if k[0] != seat]
    sealed = [c for _, c in theirs]
    for k, card in theirs:  # another kind of its pioche, sealed in that slot
        pool = state.pool[k[0]]
        for i, other_kind in enumerate(KINDS):
            if other_kind != card and pool[i] > sealed.count(other_kind):
                other = state.clone()
                other.secrets[k] = other_kind
                other.chosen[k[0]][INDEX[card]] -= 1
                other.chosen[k[0]][i] += 1
                return [*variants, other]
    return variants


@pytest.mark.parametrize(("name", "config"), SAMPLED, ids=_ids(SAMPLED))
def test_the_search_bot_decides_from_its_seats_observation_alone(name, config):
    """Hidden cards of another seat changed, the seat's observation kept: the same
    decision and the same figures, from a bot with the same seed."""
    checked = changed = 0
    # the first 12 decision points (one every 9 decisions): Truco's and Lutin & Troll's
    # games have 25 to 34, the others 4 to 13
    for state, seat in itertools.islice(decision_points(name, config, seed=3), 12):
        variants = [state.determinise(seat, random.Random(99)), *swapped(state, seat)]
        first = make_bot(name, BUDGET, random.Random(7))
        action = seat_action(first, state, seat)
        for variant in variants:
            assert variant.observation(seat) == state.observation(seat)
            if hidden_cards(variant, seat) != hidden_cards(state, seat):
                changed += 1
            again = make_bot(name, BUDGET, random.Random(7))
            assert seat_action(again, variant, seat) == action
            assert again.last == first.last
        checked += 1
    assert checked >= 3 and changed >= checked  # most variants did change a hidden card


def test_a_determinisation_depends_on_the_seats_view_only():
    """Two states that differ only in another seat's hidden cards give the same
    determinisation for the same random numbers, and a determinisation keeps the
    seat's observation and knows every card."""
    for state, seat in decision_points("trut", {"players": 3}, seed=5, every=5):
        for variant in swapped(state, seat):
            one = state.determinise(seat, random.Random(1))
            two = variant.determinise(seat, random.Random(1))
            assert one.known == two.known and one.public_state() == two.public_state()
            assert one.observation(seat) == state.observation(seat)
            assert len(one.known) == 32
            history = [str(a.public()) for a in state.history()]
            assert [str(a) for a in one.history()] == history


@pytest.mark.parametrize(("name", "config"), SAMPLED, ids=_ids(SAMPLED))
def test_the_search_bot_plays_whole_games_legally(name, config):
    """Search against the heuristic bot, a small budget: the game ends and its record
    replays (every action legal); the same seed plays the same game."""
    game = make_game(name, config)
    bots = [BUDGET if s % 2 == 0 else "heuristic" for s in range(game.num_players())]
    result = play_game(game, 11, bots)
    replayed = load_game(result.record)
    assert replayed.is_terminal() and replayed.state_hash() == result.state_hash
    if name == "trut":  # the shortest: the same seed, the same game
        assert play_game(game, 11, bots).record == result.record


def test_the_budget_is_said_where_a_bot_is_named():
    assert check_bot("trut", "search") == "search"
    assert check_bot("truco", "search:ms=400") == "search:ms=400"
    assert check_bot("lutin", "search:samples=8:rounds=2") == "search:samples=8:rounds=2"
    assert Budget.parse("ms=30") == Budget(samples=10_000, playouts=1_000_000, ms=30)
    assert Budget.parse("samples=5") == Budget(samples=5)
    assert Budget.parse("") == Budget(samples=24, playouts=120, rounds=1)
    for bad in ("search:samples=0", "search:fast", "search:ms=x", "search:ms=1:ms=2"):
        with pytest.raises(BotError, match="search"):
            check_bot("trut", bad)
    with pytest.raises(BotError, match="no heuristic:x bot"):
        check_bot("trut", "heuristic:x")
    with pytest.raises(BudgetError):
        Budget.parse("rounds=1000")
    bot = make_bot("trut", "search:samples=2", random.Random(1))
    assert isinstance(bot, SearchBot) and bot.budget == Budget(samples=2)


def test_a_time_budget_stops_after_the_sample_that_passes_it():
    """``ms``: the clock is read after each sample (a fake clock here: no timing)."""
    ticks = iter(range(1000))
    state, seat = next(decision_points("trut", {"players": 2}, seed=1, every=1))
    bot = SearchBot(
        random.Random(1),
        lambda rng: make_bot("trut", "heuristic", rng),
        Budget.parse("ms=2000"),
        clock=lambda: float(next(ticks)),  # one second per reading
    )
    bot.choose_in(state, seat)
    assert bot.last["samples"] == 2  # read at 0 (deadline 2), then 1, then 2: stop


# Truco's match of one chico (a match is three): a whole game, of 270 entries for seed 2
# (520 for the three chicos of seed 4); Trut Deluxe: its specials (T25, T26), and with
# four players the Falcon's look at a partner's cards (T33)
@pytest.mark.parametrize(
    ("name", "config", "seed"),
    [
        ("truco", {"players": 2, "chicos": 1}, 2),
        ("lutin", {}, 4),
        ("trut", {"players": 2, "deluxe": True}, 1),
        ("trut", {"players": 4, "deluxe": True, "bonus_cards": True}, 3),
        ("lutin", {"variant": "expert-black"}, 2),  # its tokens, sealed and opened
    ],
)
def test_at_a_table_of_peers_it_searches_its_seats_replica(name, config, seed):
    """Over the table protocol (full crypto, in memory) each peer's replica knows its
    own cards only: the search bot samples the rest from it, and the game ends with
    every replica agreeing."""
    from tests.tables import play_memory_game

    game = make_game(name, config)
    bots = ["search:samples=2", "heuristic"] * (game.num_players() // 2)
    table = play_memory_game(game, seed, bots)
    replica = table.peers[0].replica
    assert replica.phase == "done"
    assert len({p.replica.state.state_hash() for p in table.peers}) == 1
    assert table.bots[0].last["samples"] == 2  # it searched (not its playout bot's move)


def test_a_playout_budget_draws_fewer_samples_among_many_actions():
    for state, seat in decision_points("trut", {"players": 2}, seed=2, every=1):
        legal = len(state.observation(seat).legal)
        bot = make_bot("trut", "search:samples=24:playouts=10", random.Random(1))
        seat_action(bot, state, seat)
        assert bot.last["samples"] == max(1, min(24, 10 // legal))
        if legal > 2:
            break
