"""Fuzz the host's lobby: join requests (``Lobby.receive``), raw and signed.

Input: byte 0 even: the rest is a raw join message; odd: the rest is a msgpack body
(and byte 1 picks the type/seq/prev variant) signed with a fresh joiner's key, so the
input gets past the signature to the body checks.
Property: a seat or a ``LobbyError``, nothing else; the lobby stays consistent.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris
import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.crypto import Identity
    from trutnet.games.trut.rules import TrutConfig, TrutGame
    from trutnet.protocol.envelope import GENESIS, sign_entry
    from trutnet.protocol.lobby import Lobby, LobbyError, join_request, table_id_for

from tests.fuzz import common

NAME = "lobby"
ALLOWED = (LobbyError,)
NONCE = bytes(range(16))
HOST = Identity.from_seed(b"h" * 32)
TABLE = table_id_for(HOST.public, NONCE)
JOINER = Identity.from_seed(b"j" * 32)
VARIANTS = [
    ("join", 0, GENESIS),
    ("join", 1, GENESIS),
    ("open", 0, GENESIS),
    ("join", 0, b"\x01" * 32),
]


def check(data: bytes) -> None:
    lobby = Lobby(TrutGame(TrutConfig(4)), HOST, "Host", NONCE)
    if len(data) < 2:
        return
    if data[0] % 2 == 0:
        wire = data[1:]
    else:
        try:
            body = msgpack.unpackb(data[2:], raw=False, strict_map_key=False)
        except Exception:
            return
        if not isinstance(body, dict):
            return
        kind, seq, prev = VARIANTS[data[1] % len(VARIANTS)]
        try:
            wire = sign_entry(
                JOINER, table=TABLE, seat=0, seq=seq, prev=prev, type=kind, body=body
            ).wire
        except Exception:
            return  # a body the signer itself refuses: the envelope harness covers it
    seat = lobby.receive(wire)
    assert lobby.seat_of(JOINER.public) == seat
    lobby.roster()


def seeds() -> list[bytes]:
    return [
        b"\x00" + join_request(JOINER, TABLE, "Ana"),
        b"\x00" + join_request(JOINER, TABLE, "Ana", "mqtt://10.0.0.1:1883"),
        b"\x01\x00" + msgpack.packb({"name": "Ana"}),
        b"\x01\x00" + msgpack.packb({"name": "Ana", "fallback": "mqtt://h:1"}),
    ]


test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
