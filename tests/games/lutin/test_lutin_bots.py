"""Lutin & Troll's heuristic bot (issue 21): it beats the random bot by its choice of
hands, and two of them always end a game (a tied manche goes on, L14)."""

from __future__ import annotations

from trutnet.games.lutin.rules import LutinGame
from trutnet.selfplay import game_seeds, play_game


def test_the_heuristic_beats_the_random_bot_in_most_games():
    """100 seeded base games, each deal in both seat orders: choosing hands at random,
    the heuristic won 59.5% of such games; its choice of hands makes it about 82%."""
    game, wins = LutinGame("base"), 0
    for seed in game_seeds(5, 50):
        wins += play_game(game, seed, ["heuristic", "random"]).winner_team == 0
        wins += play_game(game, seed, ["random", "heuristic"]).winner_team == 1
    assert wins >= 72, f"the heuristic won {wins} of 100"


def test_two_heuristic_bots_always_end_a_game():
    """Two bots that choose hands alike would tie a manche for ever (L14): a
    continuation's hand is taken at random, and every game ends."""
    for variant in ("base", "expert-white", "expert-black"):
        for seed in game_seeds(9, 10):
            result = play_game(LutinGame(variant), seed, ["heuristic", "heuristic"])
            assert result.winner_team in (0, 1), (variant, seed)
