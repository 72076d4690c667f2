"""Fuzz ``trutnet verify FILE``: transcript loading (``store.load_transcript``) and the
audit and narration behind it, through the CLI's own entry point.

Input: the file's bytes; or, after a zero byte, one entry's bytes, put after the real
``open`` in a valid transcript (so the entry decoders are reached from a file).
Seeds: real transcripts of the corpus game (whole, and cut after a few entries so that
each run is fast), nested JSON, and entries nested 400 deep.
Property: ``verify`` returns an exit code (0, 1 or 2) with a message; it never
raises (a traceback is a crash to a person).
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet import cli

from tests.fuzz import common

NAME = "transcript"
ALLOWED = ()
FILE = Path(tempfile.mkdtemp(prefix="trutnet-fuzz-")) / "t.json"


def check(data: bytes) -> None:
    if data[:1] == b"\x00":  # an entry (msgpack) inside a valid transcript, after the open
        table_id, wires = common.game()
        data = transcript(table_id, [wires[0], data[1:]])
    FILE.write_bytes(data)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["verify", str(FILE)])
    if code not in (0, 1, 2):
        raise AssertionError(f"verify returned {code!r}")


def transcript(table_id: bytes, wires: list[bytes]) -> bytes:
    doc = {
        "format": "trutnet-transcript",
        "version": 1,
        "table": table_id.hex(),
        "entries": [base64.b64encode(w).decode() for w in wires],
    }
    return json.dumps(doc, indent=0).encode()


def seeds() -> list[bytes]:
    table_id, wires = common.game()
    deep = common.nested_body_entry(wires[1], 100)
    return [transcript(table_id, wires[:n]) for n in (0, 1, 3, 8)] + [
        transcript(table_id, wires),
        transcript(table_id, [wires[0], deep]),
        b"[" * 100 + b"]" * 100,
        b"\x00" + wires[1],
        b"\x00" + common.nested_body_entry(wires[1], 400),
        b"\x00" + common.nested_body_entry(wires[1], 400, True),
        b'{"format": "trutnet-transcript", "version": 1, "table": [[[[]]]], "entries": {}}',
    ]


test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "80")
    common.main(NAME, test_one_input, seeds())
