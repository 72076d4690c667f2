"""The runtime's events (``--json`` lines, the client's hook): one frozen class each,
every one listed in docs/events.md with exactly its fields, and no event reported
any other way."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import trutnet
from trutnet.runtime import events

ROOT = Path(trutnet.__file__).parent
DOC = ROOT.parent / "docs" / "events.md"


def documented() -> dict[str, set[str]]:
    """Each event named in the runtime's table of docs/events.md, with its fields."""
    text = DOC.read_text()
    table = text.split("## The runtime's events", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([a-z_]+)`", cells[0]):
            rows[name] = set(re.findall(r"`([a-z_]+)`", cells[1]))
    return rows


def sample(cls: type[events.Event]) -> events.Event:
    """An instance of ``cls`` with a value for every field."""
    values = {f.name: 0 for f in dataclasses.fields(cls)}
    if cls is events.SeatChanged:
        values["change"] = "replaced"
    return cls(**values)


def test_every_event_is_documented_with_exactly_its_fields():
    docs = documented()
    names = set()
    for cls in events.EVENTS:
        instances = [sample(cls)]
        if cls is events.SeatChanged:  # one class, three names
            instances = [dataclasses.replace(instances[0], change=c) for c in
                         ("replaced", "abandoned", "closed")]  # fmt: skip
        for event in instances:
            names.add(event.label())
            assert event.label() in docs, f"docs/events.md lacks {event.label()}"
            assert set(event.data()) == docs[event.label()], event.label()
    assert names == set(docs), "docs/events.md lists an event the runtime has not"
    assert events.Vote(1, 0, "abandon").data() == {"seat": 1, "voter": 0, "for": "abandon"}


def test_the_runtime_reports_every_event_through_its_class():
    """No module of the runtime calls ``on_event("name", {...})`` itself: each event is
    one of ``trutnet.runtime.events`` (``TableRuntime.emit``), so the page above covers
    every line."""
    for path in sorted((ROOT / "runtime").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == "on_event":
                assert not isinstance(node.args[0], ast.Constant), f"{path.name}:{node.lineno}"
