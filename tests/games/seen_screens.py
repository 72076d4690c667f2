"""What each seat and a spectator see through a seeded random game of a registered
game, for the screen tests (every game's screen fits 80x24; every word is translated)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from trutnet.bots import RandomBot
from trutnet.engine import make_game
from trutnet.engine.api import CHANCE


def seen_screens(name: str, seed: int, every: int, moves: int) -> Iterator[tuple[Any, Any, Any]]:
    """``(front-end, observation, seat)`` for each seat (and ``None``, a spectator) at
    every ``every``-th move of a random game of ``name`` (at most ``moves`` moves)."""
    from trutnet.client.frontend import frontend_for

    front = frontend_for(name)
    state = make_game(name).new_initial_state()
    rng = random.Random(seed)
    bot = RandomBot(rng)
    players = state.game.num_players()
    for move in range(moves):
        if state.is_terminal():
            return
        if move % every == 0:
            for me in [*range(players), None]:
                seen = front.spectator_observation(state) if me is None else state.observation(me)
                yield front, seen, me
        if state.current_seat() == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        seat = state.current_seat()
        obs = state.observation(seat)
        state.apply(bot.choose(obs) if obs.legal else state.legal_actions(seat)[0])
