"""Bots: they see one observation, play legally, and the heuristic one plays sensibly."""

from __future__ import annotations

import random

from tests.games.trut.trut_helpers import HiddenReplica
from trutnet.bots import RandomBot, make_bot
from trutnet.engine.api import CHANCE
from trutnet.games.trut.heuristic import HeuristicBot, win_chance
from trutnet.games.trut.rules import StartPosition, TrutConfig, TrutGame, deck_for_hands
from trutnet.games.trut.rules.actions import ACCEPT, FOLD, TRUT
from trutnet.selfplay import game_seeds, play_game


def position(hands, players=2, dealer=0, variant="classic"):
    deck = deck_for_hands(players, dealer, hands)
    teams = 2 if players != 3 else 3
    start = StartPosition((0,) * teams, (0,) * teams, dealer, deck)
    return TrutGame(TrutConfig(players, variant, start=start)).new_initial_state()


def test_heuristic_beats_random_two_players():
    wins = 0
    games = 60
    for i, seed in enumerate(game_seeds(11, games)):
        heuristic_seat = i % 2
        bots = ["random", "random"]
        bots[heuristic_seat] = "heuristic"
        wins += play_game(TrutGame(TrutConfig(2)), seed, bots).winner_team == heuristic_seat
    assert wins >= 0.8 * games


def test_truts_a_strong_hand_and_not_a_weak_one_without_bluff():
    strong = position({0: "7h 7d 8s", 1: "9c 10c Jc"})
    assert HeuristicBot(random.Random(1), bluff_rate=0).choose(strong.observation(0)) == TRUT
    weak = position({0: "9h 10d Js", 1: "7c 8c Ac"})
    choice = HeuristicBot(random.Random(1), bluff_rate=0).choose(weak.observation(0))
    assert choice != TRUT
    assert HeuristicBot(random.Random(1), bluff_rate=1).choose(weak.observation(0)) == TRUT


def test_bluff_is_rolled_once_per_hand():
    weak = position({0: "9h 10d Js", 1: "7c 8c Ac"})
    bot = HeuristicBot(random.Random(1), bluff_rate=0.5)
    truts = sum(bot.choose(weak.observation(0)) == TRUT for _ in range(40))
    assert truts <= 1  # one roll per hand; after a Trut the state moves on anyway


def test_folds_weak_accepts_strong_against_a_trut():
    for hand, expected in (("9h 10d Js", FOLD), ("7h 7d 8s", ACCEPT)):
        state = position({0: "Kc Qc 8c", 1: hand})
        state.apply("trut")
        assert state.current_seat() == 1
        assert HeuristicBot(random.Random(1)).choose(state.observation(1)) == expected


def test_never_folds_when_the_fold_gives_the_game_away():
    deck = deck_for_hands(2, 0, {0: "7h 7d 8s", 1: "9h 10d Js"})
    start = StartPosition((6, 0), (1, 0), 0, deck)
    state = TrutGame(TrutConfig(2, start=start)).new_initial_state()
    state.apply("trut")
    # Seat 0 at 6 Longs 1 Petit: a fold is only a Petit, so a weak hand may fold ...
    assert HeuristicBot(random.Random(1)).choose(state.observation(1)) == FOLD
    start = StartPosition((6, 0), (2, 0), 1, deck_for_hands(2, 1, {0: "7h 7d 8s", 1: "9h 10d Js"}))
    state = TrutGame(TrutConfig(2, start=start)).new_initial_state()
    # ... but au Fortial, a fold would end the game [T15]: accept.
    state.apply("trut")
    assert HeuristicBot(random.Random(1)).choose(state.observation(1)) == ACCEPT


def test_wins_cheaply_and_keeps_the_strong_card():
    state = position({0: "Kc 9d 10h", 1: "7h As Jd"})
    state.apply("play Kc")
    bot = HeuristicBot(random.Random(1), bluff_rate=0, trut_threshold=2.0)
    choice = bot.choose(state.observation(1))
    assert str(choice) == "play As"  # the lowest card that takes the trick, not the 7


def test_throws_the_lowest_card_when_the_trick_is_lost():
    state = position({0: "7c 9d 10h", 1: "8h As 9s"})
    state.apply("play 7c")
    choice = HeuristicBot(random.Random(1), bluff_rate=0).choose(state.observation(1))
    assert str(choice) == "play 9s"


def test_win_chance_orders_hands():
    strong = position({0: "7h 7d 8s"}).observation(0)
    weak = position({0: "9h 10d 9s"}).observation(0)
    assert win_chance(strong) > 0.8 > 0.2 > win_chance(weak)


def test_bots_play_whole_games_from_hidden_replicas_only():
    """Each bot is driven by its own seat's replica, which never saw another hand."""
    for players in (2, 3, 4, 6):
        game = TrutGame(TrutConfig(players, "gatinaise"))
        full = game.new_initial_state()
        replicas = [HiddenReplica(game, seat) for seat in range(players)]
        bots = [
            make_bot("trut", "heuristic" if s % 2 else "random", random.Random(s))
            for s in range(players)
        ]
        rng = random.Random(players)
        while not full.is_terminal():
            seat = full.current_seat()
            if seat == CHANCE:
                action = full.sample_chance(rng)
            else:
                action = bots[seat].choose(replicas[seat].state.observation(seat))
            full.apply(action)
            for replica in replicas:
                replica.follow(full, str(full.history()[-1]))
        assert all(r.state.state_hash() == full.state_hash() for r in replicas)


def test_random_bot_only_picks_legal_actions():
    state = position({0: "7h 8d As"})
    bot = RandomBot(random.Random(2))
    obs = state.observation(0)
    assert {bot.choose(obs) for _ in range(50)} <= set(obs.legal)
