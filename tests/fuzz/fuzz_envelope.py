"""Fuzz ``parse_entry`` (every log, join and vote message goes through it first).

Property: any bytes give an Entry or a MessageError, nothing else.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.protocol.envelope import MessageError, parse_entry

from tests.fuzz import common

NAME = "envelope"
ALLOWED = (MessageError,)


def check(data: bytes) -> None:
    table_id, _ = TABLE
    parse_entry(data)
    parse_entry(data, table_id)


def seeds() -> list[bytes]:
    _, wires = TABLE
    deep = [common.nested_body_entry(wires[1], d, m) for d in (3, 100, 400) for m in (False, True)]
    return [*wires, *deep, b"\x92\x98"]


TABLE = common.game()
test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
