"""What a benchmark knows of combats (Lutin & Troll's, docs/games/lutin.md): whether
a game has them, where each begins and ends in a log, and the quantile the figures use.
A game has combats when its public state has an ``attacker`` and a combat ``table``;
nothing here names a game."""

from __future__ import annotations

import math
from typing import Any

from trutnet.engine.api import Game
from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.table import TableReplica


def rank(ordered: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of a sorted, non-empty list."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def has_combats(game: Game) -> bool:
    """Whether ``game``'s public state has an ``attacker`` and a combat ``table``
    (docs/games/lutin.md), whose combats the benchmark times."""
    return {"attacker", "table"} <= set(game.new_initial_state().public_state())


def combat_marks(wires: list[bytes]) -> list[tuple[str, str]]:
    """Per combat of the log ``wires`` (a game whose public state has an ``attacker``
    and a combat ``table``, docs/games/lutin.md), the ids (16 hex digits)
    of the attacker's attack (an ``act`` in phase ``attack``, L6) and of the entry after
    which the combat table is empty again (the result applied, L7-L13). Other games
    have none."""
    if not wires:
        return []
    replica = TableReplica(parse_entry(wires[0]).table)
    marks: list[tuple[str, str]] = []
    attack: str | None = None
    shown = False
    before: tuple[Any, Any] | None = None
    for wire in wires:
        entry = replica.receive(wire)
        if entry is None or replica.state is None:
            continue
        public = replica.state.public_state()
        if not {"attacker", "table"} <= set(public):
            return []
        key, table = entry.id.hex()[:16], public["table"]
        was, before = before, (public["phase"], public["attacker"])
        if attack is None:
            if entry.type == "act" and was == ("attack", entry.seat):
                attack, shown = key, bool(table)
            continue
        if table:
            shown = True
        elif shown:
            marks.append((attack, key))
            attack = None
    return marks
