"""The specification checked against the code: every vector, public state and card
index printed in a game's annex (``docs/games/*.md``), every ruling id the code cites,
the protocol version, the links between the documents, and that nothing in the
repository points outside it.

An annex marks what this module checks with a fenced block whose info string's
second word names it:

* ````text vector````: ``game NAME``, ``config JSON`` (optional), then one action per
  line, each followed by the state hash after it (the first line, ``(initial
  state)``, gives the initial state's); a line with no hash is applied unchecked;
* ````json public-state````: the public state after the vector block before it, which
  must also hash to that block's last hash;
* ````text deck````: ``game NAME``, ``config JSON`` (optional), ``deck NAME``, then
  ``card=index`` for every card of that deck, in index order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import trutnet  # noqa: F401  (installs the plugin loader)
from tests import ROOT
from trutnet.engine.api import GameState
from trutnet.engine.canonical import state_digest
from trutnet.engine.registry import game_names, make_game
from trutnet.plugins import BUILT_IN
from trutnet.protocol.envelope import PROTOCOL_VERSION

DOCS = ROOT / "docs"
ANNEXES = sorted((DOCS / "games").glob("*.md"))
BLOCK = re.compile(r"^```(\w+) (vector|public-state|deck)\n(.*?)^```[ \t]*$", re.M | re.S)
HASH = re.compile(r"[0-9a-f]{64}")


def blocks(path: Path) -> list[tuple[str, str]]:
    """The marked blocks of an annex, in order: (kind, body)."""
    return [(m.group(2), m.group(3)) for m in BLOCK.finditer(path.read_text())]


def header(lines: list[str]) -> tuple[str, dict[str, Any], list[str]]:
    """``game`` and ``config`` lines at the head of a block, and the lines after."""
    assert lines and lines[0].startswith("game "), "a block starts with its game"
    name, rest = lines[0].split(" ", 1)[1], lines[1:]
    config: dict[str, Any] = {}
    if rest and rest[0].startswith("config "):
        config, rest = json.loads(rest[0].split(" ", 1)[1]), rest[1:]
    return name, config, rest


def replay(body: str) -> tuple[GameState, list[tuple[str, str | None]]]:
    """Apply a vector block; the final state and its (action, hash) lines."""
    name, config, lines = header(body.strip().splitlines())
    state = make_game(name, config).new_initial_state()
    steps = []
    for line in lines:
        words = line.split()
        digest = words.pop() if words and HASH.fullmatch(words[-1]) else None
        action = " ".join(words)
        if action != "(initial state)":
            state.apply(action)
        if digest is not None:
            assert state.state_hash() == digest, f"{name}: after {action!r}"
        steps.append((action, digest))
    return state, steps


CASES = [(path, i) for path in ANNEXES for i, (kind, _) in enumerate(blocks(path))]


@pytest.mark.parametrize(("path", "index"), CASES, ids=[f"{p.stem}-{i}" for p, i in CASES])
def test_annex_block(path: Path, index: int) -> None:
    found = blocks(path)
    kind, body = found[index]
    if kind == "vector":
        _, steps = replay(body)
        assert steps[0] == ("(initial state)", steps[0][1]) and steps[0][1] is not None
        assert len(steps) > 1
    elif kind == "public-state":
        before = [b for k, b in found[:index] if k == "vector"]
        assert before, "a public state follows the vector it ends"
        state, steps = replay(before[-1])
        printed = json.loads(body)
        assert printed == state.public_state()
        assert state_digest(printed) == [d for _, d in steps if d][-1]
        assert list(printed) == sorted(printed)  # printed in canonical order
    else:
        name, config, lines = header(body.strip().splitlines())
        assert lines[0].startswith("deck ")
        deck = next(d for d in make_game(name, config).decks() if d.name == lines[0][5:])
        listed = " ".join(lines[1:]).split()
        assert listed == [f"{card}={i}" for i, card in enumerate(deck.cards)]


def test_every_game_has_an_annex_with_vectors() -> None:
    names = {p.stem for p in ANNEXES}
    assert set(BUILT_IN) <= set(game_names())
    for game in BUILT_IN:  # trutnet's own games (the tests register games of their own)
        assert game in names, f"docs/games/{game}.md"
        assert any(k == "vector" for k, _ in blocks(DOCS / "games" / f"{game}.md"))


def test_every_ruling_the_code_cites_is_in_an_annex() -> None:
    """A ruling id (T12, K20, L16, D5...) in the code is explained in the annexes."""
    annexes = " ".join(p.read_text() for p in ANNEXES)
    cited: set[str] = set()
    for source in (ROOT / "trutnet").rglob("*.py"):
        cited |= set(re.findall(r"\b[TDKL][0-9]+\b", source.read_text()))
    missing = sorted(i for i in cited if not re.search(rf"\b{i}\b", annexes))
    assert not missing


def test_the_protocol_states_the_codes_version() -> None:
    doc = (DOCS / "protocol.md").read_text()
    assert f"protocol version {PROTOCOL_VERSION}**" in doc
    assert f"currently **{PROTOCOL_VERSION}**" in doc
    assert f"| `version` | int | protocol version, {PROTOCOL_VERSION} |" in doc


def text_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for top in ("docs", "trutnet", "tests"):
        files += [p for p in (ROOT / top).rglob("*") if p.suffix in (".md", ".py", ".toml")]
    return files


def test_nothing_points_outside_the_repository() -> None:
    """The rule texts the rulings come from are not in the repository: nothing may
    point at them (the annexes say the rules in our own words)."""
    outside = ("../" + "shared", "/work/" + "shared")
    found = [str(p) for p in text_files() if any(o in p.read_text() for o in outside)]
    assert not found


def test_every_link_between_the_documents_resolves() -> None:
    for page in [ROOT / "README.md", *DOCS.rglob("*.md")]:
        text = page.read_text()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"
        for target in re.findall(r"`(docs/[\w/.-]+\.md)`", text):
            assert (ROOT / target).exists(), f"{page.name}: {target}"
