"""Lutin & Troll's golden game: a whole seeded game between the heuristic bots, pinned
move for move (``tests/golden/lutin-base-seed7.json``). Regenerate after an intended
rule change with ``python -m tests.test_lutin_golden`` and review the diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trutnet.engine import load_game, register_game
from trutnet.engine.games.lutin import LutinGame
from trutnet.selfplay import game_seeds, play_game

PATH = Path(__file__).parent / "golden" / "lutin-base-seed7.json"
BOTS = ["heuristic", "heuristic"]


def record() -> dict[str, Any]:
    lines: list[str] = []
    result = play_game(LutinGame("base"), game_seeds(7, 1)[0], BOTS, lines.append)
    return {
        "seed": 7,
        "bots": BOTS,
        "game": result.record,
        "winner_team": result.winner_team,
        "hands": result.hands,
        "state_hash": result.state_hash,
        "narration": lines,
    }


def test_golden_game_is_replayed_exactly():
    pinned = json.loads(PATH.read_text())
    fresh = record()
    assert fresh["game"]["actions"] == pinned["game"]["actions"]
    assert fresh == pinned


def test_golden_file_replays_through_the_loader():
    register_game(LutinGame)
    pinned = json.loads(PATH.read_text())
    state = load_game(pinned["game"])
    assert state.is_terminal() and state.state_hash() == pinned["state_hash"]
    assert state.winner == pinned["winner_team"] and state.round_number() + 1 == pinned["hands"]


if __name__ == "__main__":
    PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {PATH}")
