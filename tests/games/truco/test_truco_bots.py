"""Truco's bots: the heuristic bot plays only legal actions from its observation, and
beats the random bot (it reads its envido and its cards' strength, K3, K4)."""

from __future__ import annotations

import trutnet.games.truco  # noqa: F401  (registers the game)
from tests.games.truco.truco_scenarios import dealt, run
from trutnet.games.truco.heuristic import HeuristicBot
from trutnet.games.truco.rules import Declare, TrucoGame, Word
from trutnet.games.truco.rules.cards import envido
from trutnet.selfplay import game_seeds, play_game


def test_the_heuristic_bot_beats_the_random_bot():
    game = TrucoGame(players=2, chicos=1)
    wins = 0
    for k, seed in enumerate(game_seeds(5, 30)):
        bots = ["heuristic", "random"] if k % 2 == 0 else ["random", "heuristic"]
        result = play_game(game, seed, bots)
        wins += result.winner_team == k % 2
    assert wins >= 24, wins


def test_it_bets_and_declares_its_envido():
    import random

    bot = HeuristicBot(random.Random(1))
    state = dealt({0: "7e 6e 1c", 1: "4o 5c 12b"}, players=2, dealer=1)
    assert bot.choose(state.observation(0)) in (Word("envido"), Word("real envido"))
    run(state, "0: real envido", "1: quiero")
    assert bot.choose(state.observation(0)) == Declare(envido(["7e", "6e", "1c"]))
    weak = dealt({0: "4o 5c 12b", 1: "7e 6e 1c"}, players=2, dealer=1)
    run(weak, "0: play " + next(f"{weak.known[p]}@{p.index}" for p in weak.hands[0]), "1: envido")
    assert bot.choose(weak.observation(0)) == Word("no quiero")
