"""``trutnet bench engine``: rounds and games per second of a game's engine (``--game``,
Trut by default: its rounds are hands).

Random play, one process, one core. Two figures per player count (2 and 4 for a game
whose ``players`` option allows them, else its only count): the bare engine
(``legal_actions`` + ``apply`` + chance), and the same games driven through per-seat
observations, as bots see them.
"""

from __future__ import annotations

import random
import time
from typing import Any

from trutnet.bots import RandomBot, seat_action
from trutnet.engine import ConfigError, make_game
from trutnet.engine.api import CHANCE, Game
from trutnet.i18n import _
from trutnet.plugins import DEFAULT_GAME

PLAYER_COUNTS = (2, 4)


def _run(game: Game, games: int, seed: int, observations: bool) -> tuple[int, float]:
    rng = random.Random(seed)
    bot = RandomBot(rng)
    hands = 0
    start = time.perf_counter()
    for _game in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            seat = state.current_seat()
            if seat == CHANCE:
                state.apply(state.sample_chance(rng))
            elif observations:
                assert seat is not None
                state.apply(seat_action(bot, state, seat))
            else:
                state.apply(rng.choice(state.legal_actions()))
        hands += state.round_number() + 1
    return hands, time.perf_counter() - start


def games_to_measure(name: str, config: dict[str, Any] | None = None) -> list[Game]:
    """The game (with ``config``: its other options) at 2 and 4 players
    when it takes a ``players`` option that allows them, else at that configuration."""
    config = dict(config or {})
    default = make_game(name, config)
    if "players" not in default.config_dict():
        return [default]
    found = []
    for players in PLAYER_COUNTS:
        try:
            found.append(make_game(name, {**config, "players": players}))
        except ConfigError:
            continue
    return found or [default]


def run(
    name: str = DEFAULT_GAME,
    games: int = 400,
    seed: int = 1,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` random games of ``name`` (its options ``config``) per row; return
    the figures."""
    figures: dict[str, Any] = {"game": name, "games": games, "seed": seed, "players": []}
    if config and any(v is True for v in config.values()):  # an option that is on
        figures["options"] = sorted(k for k, v in config.items() if v is True)
    if config and isinstance(config.get("variant"), str):
        figures["variant"] = config["variant"]
    for game in games_to_measure(name, config):
        players = game.num_players()
        figures["players"].append(players)
        hands, seconds = _run(game, games, seed, observations=False)
        figures[f"hands_per_s_{players}p"] = round(hands / seconds, 1)
        figures[f"games_per_s_{players}p"] = round(games / seconds, 2)
        obs_hands, obs_seconds = _run(game, games, seed, observations=True)
        figures[f"hands_per_s_{players}p_with_observations"] = round(obs_hands / obs_seconds, 1)
    return figures


def report(figures: dict[str, Any]) -> str:
    game = figures["game"] + (f" ({figures['variant']})" if "variant" in figures else "")
    lines = [
        _(
            "engine benchmark: {game}, random play, {games} games per row, one core (hands: rounds)"
        ).format(game=game, games=figures["games"])
    ]
    for players in figures["players"]:
        lines.append(
            _(
                "  {players} players: {hands:>9.1f} hands/s  {games:>7.2f} games/s  "
                "({observed:.1f} hands/s through observations)"
            ).format(
                players=players,
                hands=figures[f"hands_per_s_{players}p"],
                games=figures[f"games_per_s_{players}p"],
                observed=figures[f"hands_per_s_{players}p_with_observations"],
            )
        )
    return "\n".join(lines)
