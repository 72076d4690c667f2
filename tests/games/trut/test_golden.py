"""Golden playthroughs: a whole seeded game, pinned move for move (``tests/golden/``)."""

from __future__ import annotations

import json

import pytest

from tests.games.trut.golden_games import GOLDEN, GOLDEN_DIR, record
from trutnet.engine import load_game


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_game_is_replayed_exactly(name):
    pinned = json.loads((GOLDEN_DIR / name).read_text())
    config, seed, bots = GOLDEN[name]
    fresh = record(config, seed, bots)
    # Compare piece by piece for a readable failure;
    # regenerate: python -m tests.games.trut.golden_games
    assert fresh["game"]["config"] == pinned["game"]["config"]
    assert fresh["game"]["actions"] == pinned["game"]["actions"]
    assert fresh["narration"] == pinned["narration"]
    assert fresh == pinned


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_file_replays_through_the_loader(name):
    pinned = json.loads((GOLDEN_DIR / name).read_text())
    state = load_game(pinned["game"])
    assert state.is_terminal()
    assert state.state_hash() == pinned["state_hash"]
    assert state.winner == pinned["winner_team"]
    assert state.hand_number + 1 == pinned["hands"]
