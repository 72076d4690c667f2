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


VECTORS = {  # docs/protocol.md 10, "Lutin & Troll state hashes, sealed hands"
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
    PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {PATH}")
