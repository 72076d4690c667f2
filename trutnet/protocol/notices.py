"""A seat's notices to the table (docs/protocol.md 7.7, 9.7), on the ``notice`` topic:
a stall report (the seat the table waits for, since which entry, for how long), that
the seat's own player left, that it wants a rematch, or (the host's seat) where the
rematch is (and, from a sealed table, the next table's key: the notice travels
sealed). A notice is signed by its seat's key and changes nothing anyone accepts; a
screen shows it. :func:`read_notice` checks one from the network.
"""

from __future__ import annotations

from typing import Any

from trutnet.protocol.envelope import parse_entry
from trutnet.protocol.untrusted import UntrustedInput

MAX_NOTICE_BYTES = 1024
STALL_FIELDS = {"kind", "seat", "waiting_for", "since_entry", "seconds"}
LEFT_FIELDS = {"kind", "seat", "since_entry"}
REMATCH_FIELDS = {"kind", "seat", "since_entry"}  # the seat wants a rematch
REMATCH_TABLE_FIELDS = {"kind", "seat", "table", "broker"}  # the rematch is at this table
# and, on a sealed or private table (9.9, 9.10), the next table's key: 32 bytes
NEXT_KEY, NEXT_KEY_BYTES = "key", 32
MAX_URL = 200


def read_notice(payload: bytes, table_id: bytes, seats: list[bytes]) -> tuple[int, dict[str, Any]]:
    """The seat that signed a notice of table ``table_id`` (``seats``: the seats' keys)
    and its body; :class:`UntrustedInput` for anything else."""
    if len(payload) > MAX_NOTICE_BYTES:
        raise UntrustedInput(f"a notice is at most {MAX_NOTICE_BYTES} bytes")
    entry = parse_entry(payload, table_id)
    if entry.seat >= len(seats) or seats[entry.seat] != entry.author:
        raise UntrustedInput("a notice signed by a key that is not the seat's")
    body = entry.body
    if entry.type == "notice" and body.get("kind") in ("rematch", "rematch_table"):
        return entry.seat, _rematch(body, entry.seat)
    if entry.type == "notice" and body.get("kind") == "left":
        if set(body) != LEFT_FIELDS or body["seat"] != entry.seat:
            raise UntrustedInput("a seat says only that it left itself")
        if type(body["since_entry"]) is not int or not 0 <= body["since_entry"] <= 10**6:
            raise UntrustedInput("a leaving notice names the entry it left at")
        return entry.seat, dict(body)
    if (
        entry.type != "notice"
        or set(body) != STALL_FIELDS
        or body["kind"] != "stall"
        or type(body["seat"]) is not int
        or type(body["since_entry"]) is not int
        or type(body["seconds"]) is not int
        or not isinstance(body["waiting_for"], list)
        or not all(isinstance(k, str) and len(k) <= 16 for k in body["waiting_for"])
    ):
        raise UntrustedInput("a notice is a stall report")
    return entry.seat, dict(body)


def _rematch(body: dict[str, Any], seat: int) -> dict[str, Any]:
    """A seat's word that it wants a rematch, or the host's seat (0) naming the
    rematch's table (9.7): checked field by field."""
    if body.get("seat") != seat:
        raise UntrustedInput("a seat speaks of a rematch for itself only")
    if body["kind"] == "rematch":
        since = body.get("since_entry")
        if set(body) != REMATCH_FIELDS or type(since) is not int or not 0 <= since <= 10**6:
            raise UntrustedInput("a rematch notice names the entry it was made at")
        return dict(body)
    table, broker, key = body.get("table"), body.get("broker"), body.get(NEXT_KEY)
    if (
        set(body) - {NEXT_KEY} != REMATCH_TABLE_FIELDS
        or (NEXT_KEY in body and not (isinstance(key, bytes) and len(key) == NEXT_KEY_BYTES))
        or seat != 0
        or not isinstance(table, bytes)
        or len(table) != 16
        or not isinstance(broker, str)
        or not broker.startswith(("mqtt://", "mqtts://"))
        or len(broker) > MAX_URL
        or not broker.isprintable()
    ):
        raise UntrustedInput(
            "the rematch's table is named by seat 0: a table id, a broker, and a key of 32 bytes"
        )
    return dict(body)
