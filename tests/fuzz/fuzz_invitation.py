"""Fuzz the sealed table's decoders (docs/protocol.md 9.9): the host's and the
guest's side of an invitation, and a sealed table's ``open``.

Input: byte 0 picks the reader (0: the host's ask, 1: the host's confirmation, 2: the
guest's answer, 3: the guest's welcome, 4: a sealed message, its topic level the
next byte's count of characters); the rest is what came from the broker.
Property: each reader drops the bytes (None), refuses them with an
``InvitationError``, or reads a message it was built to read; nothing else.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.protocol.invitation import Code, InvitationError, InvitationGuest, InvitationHost
    from trutnet.protocol.sealed_table import TableSeal

from tests.fuzz import common

NAME = "invitation"
ALLOWED = (InvitationError,)
CODE = Code(7, ("purple", "sausage"))
KEY = bytes(range(32))


def fixed(size: int) -> bytes:
    return b"\x07" * size


def check(data: bytes) -> None:
    if not data:
        return
    reader, rest = data[0] % 5, data[1:]
    if reader == 0:
        host = InvitationHost(CODE, b"welcome", 0.0, 600.0)
        got = host.ask(rest, 1.0)
        assert got is None or len(got[0]) == 16
    elif reader == 1:
        host = InvitationHost(CODE, b"welcome", 0.0, 600.0)
        assert host.confirm(rest, 1.0) is None  # no exchange is open: nothing to confirm
    elif reader == 2:
        InvitationGuest(CODE, fixed).answer(rest)
        raise AssertionError("an answer that the code's own host never made passed")
    elif reader == 3:
        InvitationGuest(CODE, fixed).welcome(rest)
        raise AssertionError("a welcome before any answer passed")
    else:
        seal = TableSeal(KEY, fixed)
        level = "x" * (rest[0] if rest else 0)
        assert seal.open(f"trutnet/v1/sealed/{level}", rest[1:], 80 * 1024) is None


def seeds() -> list[bytes]:
    guest = InvitationGuest(CODE, fixed)
    host = InvitationHost(CODE, b"welcome", 0.0, 600.0)
    _, answer = host.ask(guest.ask(), 1.0)
    _, sealed = TableSeal(KEY, fixed).seal("trutnet/v1/table/00/log", b"entry")
    return [b"\x00" + guest.ask(), b"\x01" + guest.ask(), b"\x02" + answer, b"\x04\x03" + sealed]


test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
