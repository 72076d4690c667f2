"""The arena: two bots play seeded games of one game against each other, both seat
orders, and their strength is summed up with a 95% confidence interval and an Elo
difference.

Game ``i`` of a run uses the ``i // 2``-th seed of the run (:func:`game_seeds`) and
puts bot A on team ``i % teams`` (bot B on every other team): with two teams, each
deal is played twice, A on each side (duplicate play, which cancels the luck of the
cards). A team game has each bot on every seat of its team. The games are played in
``jobs`` processes (:mod:`concurrent.futures`); the result does not depend on how many.

A game nobody won counts half a win to each bot. The interval is Wilson's score
interval of A's share of the points; the Elo difference is ``400 log10(p / (1 - p))``
for A's share ``p`` (with two teams only: with more, A's fair share is not one half).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from trutnet.engine import make_game
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.selfplay import game_seeds, play_game

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class Outcome:
    """One arena game: its index, which team A played, who won (a team or None), its
    rounds, its final state hash, and each bot's decision times (seconds of CPU,
    decisions that offered a choice)."""

    index: int
    a_team: int
    winner: int | None
    rounds: int
    state_hash: str
    times: tuple[tuple[float, ...], tuple[float, ...]] = field(compare=False)


def seating(game: Game, bots: Sequence[str], index: int) -> tuple[int, list[str]]:
    """A's team in game ``index`` and the bot of every seat."""
    teams = game.teams()
    a_team = index % len(teams)
    kinds = [""] * game.num_players()
    for team, seats in enumerate(teams):
        for seat in seats:
            kinds[seat] = bots[0] if team == a_team else bots[1]
    return a_team, kinds


def play_one(
    name: str, config: dict[str, Any], bots: tuple[str, str], index: int, seed: int
) -> Outcome:
    """Game ``index`` of a run (``seed``: that game's own seed), in any process."""
    game = make_game(name, config)
    a_team, kinds = seating(game, bots, index)
    a_seats = game.teams()[a_team]
    times: tuple[list[float], list[float]] = ([], [])

    def decided(seat: int, seconds: float) -> None:
        times[0 if seat in a_seats else 1].append(seconds)

    result = play_game(game, seed, kinds, decided=decided)
    both = (tuple(times[0]), tuple(times[1]))
    return Outcome(index, a_team, result.winner_team, result.hands, result.state_hash, both)


def wilson(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a share ``points / games`` (0..1)."""
    if games == 0:
        return 0.0, 1.0
    p = points / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo(share: float) -> float | None:
    """The Elo difference of a share of the points (None at 0 or 1: unbounded)."""
    if not 0 < share < 1:
        return None
    return 400 * math.log10(share / (1 - share))


def run(
    game: Game,
    bots: tuple[str, str],
    games: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[list[Outcome]], None] | None = None,
) -> list[Outcome]:
    """Play ``games`` arena games (see the module) in ``jobs`` processes; the outcomes
    in game order. ``progress`` is called with the outcomes so far after each game."""
    seeds = game_seeds(seed, (games + 1) // 2)
    tasks = [(game.name, game.config_dict(), bots, i, seeds[i // 2]) for i in range(games)]
    done: list[Outcome] = []
    if jobs <= 1:
        for task in tasks:
            done.append(play_one(*task))
            if progress is not None:
                progress(done)
        return done
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(play_one, *task) for task in tasks]
        for future in as_completed(futures):
            done.append(future.result())
            if progress is not None:
                progress(done)
    return sorted(done, key=lambda o: o.index)


def summarise(
    game: Game, bots: tuple[str, str], seed: int, outcomes: Sequence[Outcome]
) -> dict[str, Any]:
    """The run in one object: the game, the bots, wins of each (and games nobody
    won), A's share of the points with its 95% interval, the Elo difference (two
    teams), each bot's decision times (median, 99th percentile, in ms), and the
    outcome of each game (the winner, ``a``, ``b`` or ``none``)."""
    a_wins = sum(1 for o in outcomes if o.winner is not None and o.winner == o.a_team)
    draws = sum(1 for o in outcomes if o.winner is None)
    b_wins = len(outcomes) - a_wins - draws
    points = a_wins + draws / 2
    n = len(outcomes)
    share = points / n if n else 0.0
    low, high = wilson(points, n)
    two = len(game.teams()) == 2
    rating = elo(share) if two else None
    times = [sorted(t for o in outcomes for t in o.times[k]) for k in (0, 1)]
    return {
        "game": game.name,
        "config": game.config_dict(),
        "players": game.num_players(),
        "bots": list(bots),
        "seed": seed,
        "games": n,
        "wins": {"a": a_wins, "b": b_wins, "none": draws},
        "share": round(share, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "elo": None if rating is None else round(rating, 1),
        "elo_ci95": [_round(elo(low)), _round(elo(high))] if two else [None, None],
        "rounds": sum(o.rounds for o in outcomes),
        "decisions": [_timing(t) for t in times],
        "results": [_result(o) for o in outcomes],
    }


def _result(outcome: Outcome) -> str:
    if outcome.winner is None:
        return "none"
    return "a" if outcome.winner == outcome.a_team else "b"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _timing(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"count": 0, "median_ms": None, "p99_ms": None}
    p99 = seconds[min(len(seconds) - 1, math.ceil(0.99 * len(seconds)) - 1)]
    return {
        "count": len(seconds),
        "median_ms": round(statistics.median(seconds) * 1000, 2),
        "p99_ms": round(p99 * 1000, 2),
    }


def decision_times(game: Game, kinds: Sequence[str], games: int, seed: int) -> dict[str, Any]:
    """``trutnet bench bots``: each bot of ``kinds`` in every seat for ``games`` seeded
    games, one process, and the CPU time of its decisions that had a choice (median
    and 99th percentile, as the arena counts them)."""
    rows = {}
    for kind in kinds:
        times = [
            t
            for index, game_seed in enumerate(game_seeds(seed, games))
            for side in play_one(
                game.name, game.config_dict(), (kind, kind), index, game_seed
            ).times
            for t in side
        ]
        rows[kind] = _timing(sorted(times))
    return {"game": game.name, "config": game.config_dict(), "games": games, "bots": rows}


def decision_report(figures: dict[str, Any]) -> str:
    lines = [
        _(
            "bots benchmark: {game}, each bot in every seat, {games} games, CPU ms per "
            "decision with a choice"
        ).format(game=figures["game"], games=figures["games"])
    ]
    for kind, row in figures["bots"].items():
        if not row["count"]:
            lines.append(f"  {kind:<12} " + _("no decision with a choice"))
            continue
        lines.append(
            f"  {kind:<12} "
            + _("{count:>6} decisions  median {median:>8.2f} ms  p99 {p99:>8.2f} ms").format(
                count=row["count"], median=row["median_ms"], p99=row["p99_ms"]
            )
        )
    return "\n".join(lines)
