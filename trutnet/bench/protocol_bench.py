"""``trutnet bench protocol``: whole games of a game (``--game``; Trut, 4 players, by
default) between in-memory peers with full crypto, played by the game's best bot.

Every peer verifies every proof, as in real play, in one process: the time of a hand
(a round) is the time for all peers together (one core), from the first entry of the
round to the first of the next. Figures: median ms per hand, bytes of entries per
hand, whole game time.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from trutnet.bots import default_bot
from trutnet.engine.api import Game
from trutnet.memory_table import new_memory_table, step


def run(game: Game, seed: int = 1) -> dict[str, Any]:
    players = game.num_players()
    table = new_memory_table(game, f"bench/{seed}", [default_bot(game.name)] * players)
    replica = table.peers[0].replica
    hand_times: list[float] = []
    hand_bytes: list[int] = []
    start = last = time.perf_counter()
    mark = 0
    hand = None
    while step(table):
        state = replica.state
        assert state is not None
        if hand is None and replica.phase == "shuffle":  # the first deal begins
            last, mark, hand = time.perf_counter(), len(table.log), state.round_number()
        elif hand is not None and state.round_number() != hand:  # a round just finished
            now = time.perf_counter()
            hand_times.append((now - last) * 1000)
            hand_bytes.append(sum(len(w) for w in table.log[mark:]))
            last, mark, hand = now, len(table.log), state.round_number()
    total = time.perf_counter() - start
    hand_times.append((time.perf_counter() - last) * 1000)
    hand_bytes.append(sum(len(w) for w in table.log[mark:]))
    return {
        "game": game.name,
        "players": players,
        "hands": len(hand_times),
        "entries": len(table.log),
        "hand_ms_median": round(statistics.median(hand_times), 1),
        "bytes_per_hand": round(statistics.median(hand_bytes)),
        "game_s": round(total, 2),
    }


def report(figures: dict[str, Any]) -> str:
    return (
        f"protocol benchmark: {figures['game']}, {figures['players']} in-memory peers, "
        "full crypto, one core\n"
        f"  hands: {figures['hands']}  entries: {figures['entries']}\n"
        f"  median per hand: {figures['hand_ms_median']} ms, "
        f"{figures['bytes_per_hand']} bytes\n"
        f"  whole game: {figures['game_s']} s"
    )
