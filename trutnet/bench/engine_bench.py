"""``trutnet bench engine``: hands and games per second of the Trut engine.

Random play, one process, one core. Two figures per player count: the bare engine
(``legal_actions`` + ``apply`` + chance), and the same games driven through
per-seat observations, as bots see them.
"""

from __future__ import annotations

import random
import time
from typing import Any

from trutnet.bots import RandomBot
from trutnet.engine.api import CHANCE
from trutnet.engine.games.trut import TrutGame


def _run(players: int, games: int, seed: int, observations: bool) -> tuple[int, float]:
    game = TrutGame(players=players)
    rng = random.Random(seed)
    bot = RandomBot(rng)
    hands = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            seat = state.current_seat()
            if seat == CHANCE:
                state.apply(state.sample_chance(rng))
            elif observations:
                assert seat is not None
                state.apply(bot.choose(state.observation(seat)))
            else:
                state.apply(rng.choice(state.legal_actions()))
        hands += state.hand_number + 1
    return hands, time.perf_counter() - start


def run(games: int = 400, seed: int = 1) -> dict[str, Any]:
    """Play ``games`` random games at 2 and 4 players; return the figures."""
    figures: dict[str, Any] = {"games": games, "seed": seed}
    for players in (2, 4):
        hands, seconds = _run(players, games, seed, observations=False)
        figures[f"hands_per_s_{players}p"] = round(hands / seconds, 1)
        figures[f"games_per_s_{players}p"] = round(games / seconds, 2)
        obs_hands, obs_seconds = _run(players, games, seed, observations=True)
        figures[f"hands_per_s_{players}p_with_observations"] = round(obs_hands / obs_seconds, 1)
    return figures


def report(figures: dict[str, Any]) -> str:
    lines = [f"engine benchmark: random play, {figures['games']} games per row, one core"]
    for players in (2, 4):
        lines.append(
            f"  {players} players: {figures[f'hands_per_s_{players}p']:>9.1f} hands/s"
            f"  {figures[f'games_per_s_{players}p']:>7.2f} games/s"
            f"  ({figures[f'hands_per_s_{players}p_with_observations']:.1f} hands/s"
            " through observations)"
        )
    return "\n".join(lines)
