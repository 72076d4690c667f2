"""Self-play: bots play whole Trut games with the engine alone (no crypto, no network).

Deterministic: the same seed gives the same games, move for move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trutnet.bots import make_bot
from trutnet.client.narration import narrate
from trutnet.engine.api import CHANCE
from trutnet.engine.games.trut import TrutConfig, TrutGame, TrutState


@dataclass
class GameResult:
    winner_team: int
    hands: int
    state_hash: str
    record: dict[str, Any] = field(repr=False)


def game_seeds(seed: int, games: int) -> list[int]:
    """One 64-bit seed per game, derived from the run's seed."""
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(games)]


def play_game(
    config: TrutConfig,
    seed: int,
    bots: Sequence[str],
    on_line: Callable[[str], None] | None = None,
) -> GameResult:
    """Play one game; ``bots[seat]`` names each seat's bot; narrate to ``on_line``."""
    game = TrutGame(config)
    state: TrutState = game.new_initial_state()
    chance = random.Random(f"{seed}/chance")
    players = [
        make_bot(kind, random.Random(f"{seed}/seat{seat}")) for seat, kind in enumerate(bots)
    ]
    while not state.is_terminal():
        seat = state.current_seat()
        if seat == CHANCE:
            action = state.sample_chance(chance)
        else:
            assert seat is not None
            action = players[seat].choose(state.observation(seat))
        events = state.apply(action)
        if on_line is not None:
            for event in events:
                for line in narrate(event, state):
                    on_line(line)
    assert state.winner is not None
    return GameResult(state.winner, state.hand_number + 1, state.state_hash(), state.serialise())


def side_name(teams: list[list[int]] | None, team: int | None) -> str:
    """Who won, as every command says it: "team 0+2", or "seat 1" when a side is one
    seat (2, 3 players)."""
    if team is None:
        return "nobody"
    if teams is None or not 0 <= team < len(teams):
        return f"team {team}"
    seats = teams[team]
    return f"seat {seats[0]}" if len(seats) == 1 else "team " + "+".join(map(str, seats))


def summarise(config: TrutConfig, seed: int, results: Sequence[GameResult]) -> dict[str, Any]:
    wins = [0] * len(config.teams)
    for r in results:
        wins[r.winner_team] += 1
    hands = sum(r.hands for r in results)
    return {
        "players": config.players,
        "variant": config.variant,
        "sum_on_patte": config.sum_on_patte,
        "seed": seed,
        "games": len(results),
        "hands": hands,
        "wins": wins,
        "teams": [list(t) for t in config.teams],
        "mean_hands_per_game": round(hands / len(results), 3) if results else 0.0,
    }
