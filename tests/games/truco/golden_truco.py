"""Truco's golden playthroughs: whole seeded matches pinned to files in
``tests/golden/`` (heuristic bots, narrated with every hand shown).

Regenerate after an intended rule change with ``python -m tests.games.truco.golden_truco`` and
review the diff: every changed line is a changed match.
"""

from __future__ import annotations

import json
from typing import Any

import trutnet.games.truco  # noqa: F401  (registers the game)
from tests.games.trut.golden_games import GOLDEN_DIR
from trutnet.games.truco.rules import TrucoGame
from trutnet.selfplay import game_seeds, play_game

GOLDEN = {
    "truco-4p-seed7.json": ({"players": 4}, 7),
    "truco-3p-flor-seed2.json": ({"players": 3, "flor": True, "chicos": 1}, 2),
}


def record(config: dict[str, Any], seed: int) -> dict[str, Any]:
    game = TrucoGame(**config)
    bots = ["heuristic"] * game.players
    lines: list[str] = []
    result = play_game(game, game_seeds(seed, 1)[0], bots, lines.append)
    return {
        "seed": seed,
        "bots": bots,
        "game": result.record,
        "winner_team": result.winner_team,
        "hands": result.hands,
        "state_hash": result.state_hash,
        "narration": lines,
    }


def main() -> None:
    for name, (config, seed) in GOLDEN.items():
        path = GOLDEN_DIR / name
        path.write_text(json.dumps(record(config, seed), indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
