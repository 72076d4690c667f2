"""``trutnet bench protocol``: whole games between in-memory peers with full crypto.

Every peer verifies every proof, as in real play, in one process: the time of a hand
is the time for all peers together (one core). Figures: median ms per hand, bytes of
entries per hand, whole game time.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from trutnet.engine.games.trut import TrutConfig, TrutGame
from trutnet.net.memory import new_memory_table, step


def run(players: int = 4, seed: int = 1) -> dict[str, Any]:
    game = TrutGame(TrutConfig(players))
    table = new_memory_table(game, f"bench/{seed}", ["heuristic"] * players)
    replica = table.peers[0].replica
    hand_times: list[float] = []
    hand_bytes: list[int] = []
    start = last = time.perf_counter()
    mark = 0
    hand = None
    while step(table):
        state = replica.state
        assert state is not None
        if replica.phase == "shuffle" and replica.turn == 0 and hand != state.hand_number:
            if hand is not None:  # a hand (shuffles to checkpoints) just finished
                now = time.perf_counter()
                hand_times.append((now - last) * 1000)
                hand_bytes.append(sum(len(w) for w in table.log[mark:]))
                last, mark = now, len(table.log)
            else:
                last, mark = time.perf_counter(), len(table.log)
            hand = state.hand_number
    total = time.perf_counter() - start
    hand_times.append((time.perf_counter() - last) * 1000)
    hand_bytes.append(sum(len(w) for w in table.log[mark:]))
    return {
        "players": players,
        "hands": len(hand_times),
        "entries": len(table.log),
        "hand_ms_median": round(statistics.median(hand_times), 1),
        "bytes_per_hand": round(statistics.median(hand_bytes)),
        "game_s": round(total, 2),
    }


def report(figures: dict[str, Any]) -> str:
    return (
        f"protocol benchmark: {figures['players']} in-memory peers, full crypto, one core\n"
        f"  hands: {figures['hands']}  entries: {figures['entries']}\n"
        f"  median per hand: {figures['hand_ms_median']} ms, "
        f"{figures['bytes_per_hand']} bytes\n"
        f"  whole game: {figures['game_s']} s"
    )
