"""``trutnet bench protocol``: whole games of a game (``--game``; Trut, 4 players, by
default) between in-memory peers with full crypto, played by the game's best bot.

Every peer verifies every proof, as in real play, in one process: the time of a hand
(a round) is the time for all peers together (one core), from the first entry of the
round to the first of the next; the first hand starts once the table's keys are set
(the setup rounds ``keys``, ``commit`` and ``reveal`` are not a hand). Figures: median
ms per hand, bytes of entries per hand, whole game time; in a game with combats
(Lutin & Troll, :func:`~trutnet.bench.combats.has_combats`), each combat's time
too, from the attack's entry to the entry that gives its result, median and p90.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from trutnet.bench.combats import combat_marks, has_combats, rank
from trutnet.bots import default_bot
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.memory_table import new_memory_table, step
from trutnet.protocol.envelope import parse_entry

SETUP = ("keys", "commit", "reveal")  # the table's set-up rounds (docs/protocol.md 6)


def run(game: Game, seed: int = 1) -> dict[str, Any]:
    players = game.num_players()
    table = new_memory_table(game, f"bench/{seed}", [default_bot(game.name)] * players)
    replica = table.peers[0].replica
    hand_times: list[float] = []
    hand_bytes: list[int] = []
    start = last = time.perf_counter()
    stamps: list[float] = []  # when each entry of the log was in it, every peer's checks done
    mark = 0
    hand = None
    while step(table):
        stamps += [time.perf_counter()] * (len(table.log) - len(stamps))
        state = replica.state
        if state is None:
            continue
        if hand is None and replica.phase not in SETUP:  # the first deal begins
            last, mark, hand = time.perf_counter(), len(table.log), state.round_number()
        elif hand is not None and state.round_number() != hand:  # a round just finished
            now = time.perf_counter()
            hand_times.append((now - last) * 1000)
            hand_bytes.append(sum(len(w) for w in table.log[mark:]))
            last, mark, hand = now, len(table.log), state.round_number()
    total = time.perf_counter() - start
    hand_times.append((time.perf_counter() - last) * 1000)
    hand_bytes.append(sum(len(w) for w in table.log[mark:]))
    figures = {
        "game": game.name,
        "players": players,
        "hands": len(hand_times),
        "entries": len(table.log),
        "hand_ms_median": round(statistics.median(hand_times), 1),
        "bytes_per_hand": round(statistics.median(hand_bytes)),
        "game_s": round(total, 2),
    }
    if has_combats(game):
        combats = sorted(combat_ms(table.log, stamps))
        figures.update(
            combats=len(combats),
            combat_ms_median=round(statistics.median(combats), 1) if combats else None,
            combat_ms_p90=round(rank(combats, 0.9), 1) if combats else None,
        )
    return figures


def combat_ms(log: list[bytes], stamps: list[float]) -> list[float]:
    """Per combat of ``log`` (:func:`~trutnet.bench.combats.combat_marks`), ms
    from its attack's entry to the entry that gives its result, by the ``stamps`` of
    those entries."""
    index = {parse_entry(wire).id.hex()[:16]: i for i, wire in enumerate(log)}
    return [
        (stamps[index[result]] - stamps[index[attack]]) * 1000
        for attack, result in combat_marks(log)
    ]


def report(figures: dict[str, Any]) -> str:
    combats = ""
    if figures.get("combats"):
        combats = _("  combats: {combats}  median {median} ms, p90 {p90} ms\n").format(
            combats=figures["combats"],
            median=figures["combat_ms_median"],
            p90=figures["combat_ms_p90"],
        )
    return _(
        "protocol benchmark: {game}, {players} in-memory peers, full crypto, one core\n"
        "  hands: {hands}  entries: {entries}\n"
        "  median per hand: {median} ms, {bytes} bytes\n"
        "{combats}"
        "  whole game: {seconds} s"
    ).format(
        game=figures["game"],
        players=figures["players"],
        hands=figures["hands"],
        entries=figures["entries"],
        median=figures["hand_ms_median"],
        bytes=figures["bytes_per_hand"],
        combats=combats,
        seconds=figures["game_s"],
    )
