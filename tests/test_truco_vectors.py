"""The Truco state-hash vector of ``docs/protocol.md`` 11.4, and the card indices of
11.1, checked against the engine (a spec a stranger implements from must be exact)."""

from __future__ import annotations

import re
from pathlib import Path

from trutnet.games.truco.rules import TrucoGame
from trutnet.games.truco.rules.cards import CARDS

SPEC = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
TRUCO = SPEC[SPEC.index("## 11. Truco") : SPEC.index("## 12. ")]  # part 11 alone


def test_state_hash_vector():
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \| `([0-9a-f]{64})` \|$", TRUCO, re.M)
    assert len(rows) == 16
    state = TrucoGame(players=4).new_initial_state()
    for _, action, digest in rows:
        if action != "(initial state)":
            state.apply(action)
        assert state.state_hash() == digest, action


def test_card_indices():
    line = next(ln for ln in TRUCO.splitlines() if ln.startswith("1e=0 "))
    assert line.split() == [f"{c}={i}" for i, c in enumerate(CARDS)]
