"""Lutin & Troll's golden games: a whole seeded game between the heuristic bots for the
base game and each expert power, pinned move for move (``tests/golden/lutin-<variant>-
seed7.json``: the actions, the narration, the final state hash). Regenerate after an
intended rule change with ``python -m tests.games.lutin.test_lutin_golden`` and review the diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests import TESTS
from trutnet.engine import load_game, register_game
from trutnet.games.lutin.rules import LutinGame
from trutnet.selfplay import game_seeds, play_game

VARIANTS = ("base", "expert-black", "expert-white")
BOTS = ["heuristic", "heuristic"]


def path(variant: str) -> Path:
    return TESTS / "golden" / f"lutin-{variant}-seed7.json"


def record(variant: str) -> dict[str, Any]:
    lines: list[str] = []
    result = play_game(LutinGame(variant), game_seeds(7, 1)[0], BOTS, lines.append)
    return {
        "seed": 7,
        "bots": BOTS,
        "game": result.record,
        "winner_team": result.winner_team,
        "hands": result.hands,
        "state_hash": result.state_hash,
        "narration": lines,
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_golden_game_is_replayed_exactly(variant):
    pinned = json.loads(path(variant).read_text())
    fresh = record(variant)
    assert fresh["game"]["actions"] == pinned["game"]["actions"]
    assert fresh == pinned


@pytest.mark.parametrize("variant", VARIANTS)
def test_golden_file_replays_through_the_loader(variant):
    register_game(LutinGame)
    pinned = json.loads(path(variant).read_text())
    assert pinned["game"]["config"] == {"variant": variant}
    state = load_game(pinned["game"])
    assert state.is_terminal() and state.state_hash() == pinned["state_hash"]
    assert state.winner == pinned["winner_team"] and state.round_number() + 1 == pinned["hands"]
    assert state.serialise() == pinned["game"]  # the history round-trips
    assert [str(a) for a in state.history()] == pinned["game"]["actions"]


def test_the_expert_golden_games_play_tokens():
    """Each expert golden game deals the tokens (L21), plays some in windows (L22) and
    never plays the three set aside (positions 6-8)."""
    for variant in VARIANTS[1:]:
        actions = json.loads(path(variant).read_text())["game"]["actions"]
        deal = next(a for a in actions if a.startswith("deal tokens"))
        assert sorted(deal.split()[2:]) == [f"t{r}{c}" for r in (1, 2, 3) for c in (1, 2, 3)]
        assert any(a.startswith("token tokens@") for a in actions)
        assert sum(a.startswith("discard tokens@") and "=" in a for a in actions) == 2
        assert not any(f"tokens@{p}" in a for a in actions for p in (6, 7, 8))


VECTORS = {  # docs/games/lutin.md, "Test vector"
    0: "aa4fadb856911b18a265fa9aa193cc7b2b2c973239b2d2d3c6bf24a6ce0bf268",
    1: "e92c7a3d6c2c22b973a11322bed6f27d2211478c00aa1accb0e5b78d230dc4db",
    11: "be407e0e5b29940ee39e1aa738402395e9679a9b861a69d5f2d6befe8d72ae87",
    12: "7c023491b13f02deb64f1e095b40ee15de97fb5934f781c18c53044c7626e815",
    13: "0671e91935b55ed10ae644c35cbc1b5b308b1502b69196e878f3386aff8977b1",
    14: "814374a16c2d44cf04a30a1ddf597eb17410c5364cc92d6da444f4c81ed3e870",
    15: "bc7b4a4b4f7e8bc0fb7c67a1b0af261a6bf3883db7cdc6a803394c4a487b5c0c",
}


def test_the_state_hash_vectors_of_the_spec():
    state = LutinGame("base").new_initial_state()
    actions = ["first 1", *["seal"] * 10, "play hand/2", "take b6", "play hand/0", "take g3"]
    hashes = [state.state_hash()]
    for action in actions:
        state.apply(action)
        hashes.append(state.state_hash())
    assert {step: hashes[step] for step in VECTORS} == VECTORS
    assert state.hp == [6, 12] and state.attacker == 1


if __name__ == "__main__":
    for name in VARIANTS:
        path(name).write_text(json.dumps(record(name), indent=1) + "\n")
        print(f"wrote {path(name)}")
