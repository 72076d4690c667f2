"""The golden playthroughs: whole seeded games pinned to files in ``tests/golden/``.

Regenerate after an intended rule change with ``python -m tests.games.trut.golden_games`` and
review the diff: every changed line is a changed game.
"""

from __future__ import annotations

import json
from typing import Any

from tests import TESTS
from trutnet.games.trut.rules import TrutConfig, TrutGame
from trutnet.selfplay import game_seeds, play_game

GOLDEN_DIR = TESTS / "golden"
GOLDEN = {
    "trut-4p-classic-seed7.json": (TrutConfig(4, "classic"), 7, ["heuristic"] * 4),
    "trut-3p-gatinaise-seed2.json": (TrutConfig(3, "gatinaise"), 2, ["heuristic"] * 3),
    "trut-deluxe-4p-bonus-seed7.json": (
        TrutConfig(4, "classic", deluxe=True, bonus_cards=True),
        7,
        ["heuristic", "random"] * 2,
    ),
    # The Falcon found by the table (T33) and the Weasel's outcomes (T37)
    "trut-deluxe-4p-seed34.json": (
        TrutConfig(4, "classic", deluxe=True),
        34,
        ["heuristic", "random"] * 2,
    ),
}


def record(config: TrutConfig, seed: int, bots: list[str]) -> dict[str, Any]:
    game_seed = game_seeds(seed, 1)[0]
    lines: list[str] = []
    result = play_game(TrutGame(config), game_seed, bots, lines.append)
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
    for name, (config, seed, bots) in GOLDEN.items():
        path = GOLDEN_DIR / name
        path.write_text(json.dumps(record(config, seed, bots), indent=1) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
