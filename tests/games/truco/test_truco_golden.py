"""Truco's golden matches (``tests/golden/truco-*.json``), pinned move for move."""

from __future__ import annotations

import json

import pytest

from tests.games.truco.golden_truco import GOLDEN, record
from tests.games.trut.golden_games import GOLDEN_DIR
from trutnet.engine import load_game


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_match_is_replayed_exactly(name):
    pinned = json.loads((GOLDEN_DIR / name).read_text())
    config, seed = GOLDEN[name]
    fresh = record(config, seed)
    # Piece by piece for a readable failure; regenerate: python -m tests.games.truco.golden_truco
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
    assert state.winning_team() == pinned["winner_team"]
    assert state.round_number() + 1 == pinned["hands"]
