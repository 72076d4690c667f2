"""Fuzz what ``trutnet tables`` and ``trutnet join`` (no arguments) read from the LAN:
zeroconf TXT records (anyone can announce a service) and the retained lobby message
on the announced broker (anyone can publish it), through the real code: the zeroconf
collector, ``_liveness`` (with a fake MQTT client that delivers the fuzzed payload),
``pick_table`` and the ``tables`` command's printing (text and ``--json``).

Input: byte 0 picks what is fuzzed (0: the lobby message, 1: the TXT records,
2: both, split at byte 1); TXT records are ``key=value`` lines.
Property: a bad announcement is ignored or shown, never an exception; a table that is
listed names a valid game (a registry name of at most 32 characters), which a live one
shares with its signed announcement.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import sys
from pathlib import Path

import aiomqtt
import atheris
import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.cli import lan_tables
    from trutnet.crypto.identity import Identity, fingerprint
    from trutnet.discovery import browse
    from trutnet.discovery.announce import SERVICE
    from trutnet.protocol.lobby import sign_announcement, table_id_for

from tests.fuzz import common

NAME = "discovery"
ALLOWED = ()
# A host whose announcement is really signed: the seeds reach the live table's checks.
HOST = Identity.from_seed(bytes(range(32)))
NONCE = bytes(16)
TABLE = table_id_for(HOST.public, NONCE).hex()
FP = fingerprint(HOST.public)
GOOD_TXT = {
    "v": "1",
    "game": "trut",
    "variant": "classic",
    "seats": "1/4",
    "name": "Ana's table",
    "fp": FP,
    "table": TABLE,
    "port": "1883",
    "status": "open",
}
GOOD_LIVE = {
    "v": 1,
    "game": "trut",
    "variant": "classic",
    "players": 4,
    "taken": 1,
    "name": "Ana's table",
    "host": FP,
    "table": TABLE,
    "broker": "mqtt://127.0.0.1:1883",
    "status": "open",
}


class FakeInfo:
    def __init__(self, properties: dict[bytes, bytes | None]) -> None:
        self.properties = properties
        self.port = 1883

    def parsed_addresses(self) -> list[str]:
        return ["127.0.0.1"]


class FakeZeroconf:
    def __init__(self, info: FakeInfo) -> None:
        self.info = info

    def get_service_info(self, type_: str, name: str, timeout: int = 0) -> FakeInfo:
        return self.info


class FakeMessage:
    def __init__(self, payload: bytes, topic: str) -> None:
        self.payload = payload
        self.topic = topic  # the lobby topic subscribed to (as the broker sends it)


class FakeClient:
    """aiomqtt.Client delivering one retained lobby message (the fuzzed one)."""

    payload = b""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.topic = ""

    async def __aenter__(self) -> FakeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def subscribe(self, topic: str, qos: int = 0) -> None:
        self.topic = topic

    @property
    def messages(self):
        async def one():
            yield FakeMessage(FakeClient.payload, self.topic)

        return one()


def parse_txt(data: bytes) -> dict[bytes, bytes | None]:
    out: dict[bytes, bytes | None] = {}
    for line in data.split(b"\n"):
        key, eq, value = line.partition(b"=")
        out[key] = value if eq else None
    return out


def encode_txt(txt: dict[str, str]) -> bytes:
    return b"\n".join(f"{k}={v}".encode() for k, v in txt.items())


def check(data: bytes) -> None:
    if len(data) < 2:
        return
    mode = data[0] % 3
    txt, live = encode_txt(GOOD_TXT), msgpack.packb(GOOD_LIVE)
    if mode == 0:
        live = data[1:]
    elif mode == 1:
        txt = data[1:]
    else:
        cut = 2 + data[1] * max(1, len(data) - 2) // 256
        txt, live = data[2:cut], data[cut:]
    collector = browse._Collector()
    collector._read(FakeZeroconf(FakeInfo(parse_txt(txt))), SERVICE, f"t.{SERVICE}")  # type: ignore[arg-type]
    found = list(collector.found.values())
    for table in found:  # the game is validated before a table is listed
        assert browse.GAME_NAME.fullmatch(table.game), table.txt
    FakeClient.payload = live
    for table in found:
        LOOP.run_until_complete(browse._liveness(table, 1.0))
    live_ones = [t for t in found if t.live is not None]
    for table in live_ones:
        assert table.game == table.txt["game"], (table.live, table.txt)
    browse.live_tables = lambda timeout=2.0, interfaces=None: live_ones
    with contextlib.redirect_stdout(io.StringIO()):
        for as_json in (True, False):
            args = argparse.Namespace(timeout=0.0, interface=None, json=as_json, watch=False)
            lan_tables.cmd_tables(args)
        browse.pick_table(None)
        browse.pick_table("Ana's table")


def signed(body: dict) -> bytes:
    """The host's announcement as it publishes it: signed, with its nonce (7.10)."""
    return sign_announcement(HOST, bytes.fromhex(TABLE), {**body, "private": False, "nonce": NONCE})


def seeds() -> list[bytes]:
    txt, live = encode_txt(GOOD_TXT), msgpack.packb(GOOD_LIVE)
    return [
        b"\x00" + live,
        b"\x01" + txt,
        b"\x02\x80" + txt + live,
        b"\x00" + msgpack.packb({**GOOD_LIVE, "taken": "x"}),
        b"\x00" + msgpack.packb({"table": TABLE}),
        b"\x01" + encode_txt({**GOOD_TXT, "variant": ""}),
        b"\x01" + encode_txt({**GOOD_TXT, "game": "tokens", "variant": ""}),
        b"\x01" + encode_txt({**GOOD_TXT, "game": "tr\x1b[2Jut"}),
        b"\x01" + encode_txt({**GOOD_TXT, "game": "t" * 40}),
        b"\x01" + encode_txt({k: v for k, v in GOOD_TXT.items() if k != "game"}),
        b"\x02\x80" + encode_txt({**GOOD_TXT, "game": "tokens"}) + live,
        b"\x00" + signed(GOOD_LIVE),  # a live table
        b"\x00" + signed({**GOOD_LIVE, "game": "tokens"}),  # its TXT says trut: not live
        b"\x00" + signed({**GOOD_LIVE, "game": "x" * 64}),
    ]


aiomqtt.Client = FakeClient  # type: ignore[misc,assignment]
LOOP = asyncio.new_event_loop()
test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
