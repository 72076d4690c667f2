"""Known-answer vectors in ``tests/vectors/`` (also listed in ``docs/protocol.md`` and the
games' annexes, ``docs/games/``)."""

from __future__ import annotations

import json
import re

from tests import ROOT
from trutnet.engine.canonical import canonical_bytes
from trutnet.games.trut.rules import TrutGame
from trutnet.games.trut.rules.cards import parse_card

VECTORS = json.loads((ROOT / "tests/vectors/engine.json").read_text())


def test_canonical_encoding_vectors():
    for vector in VECTORS["canonical"]:
        assert canonical_bytes(vector["value"]).hex() == vector["hex"]


def test_card_index_vectors():
    for vector in VECTORS["cards"]:
        assert parse_card(vector["card"]).index == vector["index"]


def test_trut_state_hash_vectors():
    spec = VECTORS["trut_hidden_deal"]
    state = TrutGame.from_config(spec["config"]).new_initial_state()
    assert state.state_hash() == spec["steps"][0]["state_hash"]
    for step in spec["steps"][1:]:
        state.apply(step["action"])
        assert state.state_hash() == step["state_hash"], step["action"]
    assert state.public_state() == VECTORS["final_public_state"]


def test_trut_deluxe_state_hash_vectors():
    """A Deluxe hand as a replica that knows no card sees it [T25, T37]: the pool's
    shuffle, two keeps by position, a hidden deal, the Falcon's step, then the Weasel:
    its target, its die, the card given by position and the joint swap."""
    spec = VECTORS["trut_deluxe_hidden_deal"]
    state = TrutGame.from_config(spec["config"]).new_initial_state()
    assert state.state_hash() == spec["steps"][0]["state_hash"]
    for step in spec["steps"][1:]:
        state.apply(step["action"])
        assert state.state_hash() == step["state_hash"], step["action"]
        assert str(state.history()[-1]) == step["action"]  # the notation round-trips
    assert state.holdings == [[5, 2], [4, 3]] and state.phase == "play"  # after the swap


def test_the_docs_list_the_same_vectors():
    """Trut's annexes print the state-hash vectors, the protocol the canonical ones."""
    doc = (ROOT / "docs/protocol.md").read_text()
    for name, vector in (("trut", "trut_hidden_deal"), ("trut-deluxe", "trut_deluxe_hidden_deal")):
        annex = (ROOT / "docs/games" / f"{name}.md").read_text()
        hashes = {s["state_hash"] for s in VECTORS[vector]["steps"]}
        assert hashes <= set(re.findall(r"\b[0-9a-f]{64}\b", annex))
    for vector in VECTORS["canonical"]:
        assert vector["hex"] in doc
