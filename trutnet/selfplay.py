"""Self-play: bots play whole games of any registered game with the engine alone (no
crypto, no network), narrated by the game's front-end when asked.

Bots sign where the game has signs (:func:`~trutnet.bots.signs.sign_round`: partners
are shown them, opponents catch them by a draw), as at a table.

Deterministic: the same seed gives the same games, move for move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trutnet.bots import make_bot, seat_action
from trutnet.bots.signs import sign_round
from trutnet.client.frontend import frontend_for
from trutnet.engine.api import CHANCE, Game
from trutnet.i18n import _


@dataclass
class GameResult:
    winner_team: int | None
    hands: int  # rounds played (the game's round_number)
    state_hash: str
    record: dict[str, Any] = field(repr=False)


def game_seeds(seed: int, games: int) -> list[int]:
    """One 64-bit seed per game, derived from the run's seed."""
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(games)]


def play_game(
    game: Game,
    seed: int,
    bots: Sequence[str],
    on_line: Callable[[str], None] | None = None,
    decided: Callable[[int, float], None] | None = None,
) -> GameResult:
    """Play one game; ``bots[seat]`` names each seat's bot; narrate to ``on_line`` (with
    every hand shown: the engine alone knows every card); tell ``decided`` the seat
    and the time of each bot decision that offered a choice (seconds of this
    process's CPU: what the decision costs, whatever else the machine runs)."""
    state = game.new_initial_state()
    chance = random.Random(f"{seed}/chance")
    players = [
        make_bot(game.name, kind, random.Random(f"{seed}/seat{seat}"))
        for seat, kind in enumerate(bots)
    ]
    frontend = frontend_for(game.name) if on_line is not None else None
    seen = 0 if frontend is None else len(frontend.events(state))  # from the first action
    signed: set[tuple[int, int]] = set()
    catch = random.Random(f"{seed}/signs")
    while not state.is_terminal():
        sign_round(state, players, signed, catch)  # where the game has signs, as at a table
        seat = state.current_seat()
        if seat == CHANCE:
            action = state.sample_chance(chance)
        else:
            assert seat is not None
            if decided is not None and len(state.observation(seat).legal) > 1:
                started = time.process_time()
                action = seat_action(players[seat], state, seat)
                decided(seat, time.process_time() - started)
            else:
                action = seat_action(players[seat], state, seat)
        state.apply(action)
        if frontend is not None and on_line is not None:
            events = frontend.events(state)
            for event in events[seen:]:
                for line in frontend.narrate(event, state, show_hands=True):
                    on_line(line)
            seen = len(events)
    return GameResult(
        state.winning_team(), state.round_number() + 1, state.state_hash(), state.serialise()
    )


def side_name(teams: list[list[int]] | None, team: int | None, names: Sequence[str] = ()) -> str:
    """Who won, as every command says it: "team 0+2", or "seat 1" when a side is one
    seat (2, 3 players); with the seats' ``names``, "Ann & Cid (team 0+2)"; in the
    person's language."""
    if team is None:
        return _("nobody")
    if teams is None or not 0 <= team < len(teams):
        return _("team {n}").format(n=team)
    seats = teams[team]
    if len(seats) == 1:
        side = _("seat {n}").format(n=seats[0])
    else:
        side = _("team {n}").format(n="+".join(map(str, seats)))
    named = " & ".join(names[s] for s in seats) if len(names) > max(seats) else side
    return side if named == side else f"{named} ({side})"


def who_won(teams: list[list[int]] | None, team: int | None, names: Sequence[str] = ()) -> str:
    """``side_name`` with its verb: "Ann & Cid (team 0+2) win", "seat 1 wins"."""
    if team is None:
        return _("nobody wins")
    seats = teams[team] if teams is not None and 0 <= team < len(teams) else []
    plural = len(seats) > 1 and len(names) > max(seats)  # "Ann & Cid win"; "team 0+2 wins"
    said = _("{side} win") if plural else _("{side} wins")
    return said.format(side=side_name(teams, team, names))


def summarise(game: Game, seed: int, results: Sequence[GameResult]) -> dict[str, Any]:
    """The run in one object: the game and its configuration, wins per team (and
    ``draws``, games nobody won, when there are any), hands, the mean per game."""
    teams = game.teams()
    wins = [0] * len(teams)
    draws = 0
    for r in results:
        if r.winner_team is None:
            draws += 1
        else:
            wins[r.winner_team] += 1
    hands = sum(r.hands for r in results)
    summary = {
        "game": game.name,
        **game.config_dict(),
        "players": game.num_players(),
        "seed": seed,
        "games": len(results),
        "hands": hands,
        "wins": wins,
        "teams": [list(t) for t in teams],
        "mean_hands_per_game": round(hands / len(results), 3) if results else 0.0,
    }
    if draws:
        summary["draws"] = draws
    return summary
