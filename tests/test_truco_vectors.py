"""The Truco state-hash vector and the card indices of Truco's annex
(``docs/games/truco.md``), checked against the engine (a spec a stranger implements
from must be exact)."""

from __future__ import annotations

import re
from pathlib import Path

from trutnet.games.truco.rules import TrucoGame
from trutnet.games.truco.rules.cards import CARDS

TRUCO = (Path(__file__).parent.parent / "docs" / "games" / "truco.md").read_text()


def test_state_hash_vector():
    rows = re.findall(r"^(\S.*?) +([0-9a-f]{64})$", TRUCO, re.M)
    assert len(rows) == 16
    state = TrucoGame(players=4).new_initial_state()
    for action, digest in rows:
        if action != "(initial state)":
            state.apply(action)
        assert state.state_hash() == digest, action


def test_card_indices():
    start = TRUCO.index("1e=0 ")
    listed = TRUCO[start : TRUCO.index("```", start)].split()
    assert listed == [f"{c}={i}" for i, c in enumerate(CARDS)]
