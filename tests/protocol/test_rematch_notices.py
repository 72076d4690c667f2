"""A rematch's notices, pure (docs/protocol.md 9.7): a seat wants one for itself only,
and only seat 0 names the next table, with a table id and a broker URL (and, from a
sealed table, the next table's key of 32 bytes)."""

from __future__ import annotations

import pytest

from trutnet.crypto import Identity, SeededRandom
from trutnet.protocol.envelope import GENESIS, sign_entry
from trutnet.protocol.notices import read_notice
from trutnet.protocol.untrusted import UntrustedInput

TABLE = bytes(range(16))
ANA, BOB = (Identity.generate(SeededRandom(f"rematch/{n}")) for n in ("ana", "bob"))
SEATS = [ANA.public, BOB.public]
LONG_URL = "mqtt://" + "h" * 200


def notice(who: Identity, seat: int, body: dict) -> bytes:
    return sign_entry(
        who, table=TABLE, seat=seat, seq=0, prev=GENESIS, type="notice", body=body
    ).wire


def test_a_seat_wants_a_rematch_and_seat_0_names_its_table():
    wants = {"kind": "rematch", "seat": 1, "since_entry": 80}
    assert read_notice(notice(BOB, 1, wants), TABLE, SEATS) == (1, wants)
    where = {
        "kind": "rematch_table",
        "seat": 0,
        "table": bytes(16),
        "broker": "mqtt://10.0.0.2:1883",
    }
    assert read_notice(notice(ANA, 0, where), TABLE, SEATS) == (0, where)
    sealed = {**where, "key": bytes(range(32))}  # a sealed table's: the next table's key
    assert read_notice(notice(ANA, 0, sealed), TABLE, SEATS) == (0, sealed)


@pytest.mark.parametrize(
    "who, seat, body",
    [
        (BOB, 1, {"kind": "rematch", "seat": 0, "since_entry": 1}),  # for another seat
        (BOB, 0, {"kind": "rematch", "seat": 0, "since_entry": 1}),  # signed by another key
        (BOB, 1, {"kind": "rematch", "seat": 1, "since_entry": -1}),
        (BOB, 1, {"kind": "rematch", "seat": 1, "since_entry": 1, "x": 1}),
        (BOB, 1, {"kind": "rematch_table", "seat": 1, "table": bytes(16), "broker": "mqtt://h:1"}),
        (ANA, 0, {"kind": "rematch_table", "seat": 0, "table": bytes(15), "broker": "mqtt://h:1"}),
        (ANA, 0, {"kind": "rematch_table", "seat": 0, "table": bytes(16), "broker": "http://h:1"}),
        (ANA, 0, {"kind": "rematch_table", "seat": 0, "table": bytes(16), "broker": "mqtt://\x1b"}),
        (
            ANA,
            0,
            {
                "kind": "rematch_table",
                "seat": 0,
                "table": bytes(16),
                "broker": "mqtt://h:1",
                "key": bytes(31),
            },
        ),
        (
            ANA,
            0,
            {
                "kind": "rematch_table",
                "seat": 0,
                "table": bytes(16),
                "broker": "mqtt://h:1",
                "key": "00" * 32,
            },
        ),
        (
            ANA,
            0,
            {
                "kind": "rematch_table",
                "seat": 0,
                "table": bytes(16),
                "broker": "mqtt://" + "h" * 200,
            },
        ),
    ],
)
def test_a_rematch_notice_that_is_not_one_is_refused(who, seat, body):
    with pytest.raises(UntrustedInput):
        read_notice(notice(who, seat, body), TABLE, SEATS)
