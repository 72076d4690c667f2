"""Signed protocol messages: the envelope, its canonical bytes, strict parsing.

An entry on the wire is the msgpack array ``[envelope, signature]`` where ``envelope``
is ``[version, table, seat, author, seq, prev, type, body]``:

* ``version`` protocol version (int), ``table`` 16-byte table id, ``seat`` the author's
  seat (0..15), ``author`` its 32-byte Ed25519 identity key, ``seq`` its per-author
  sequence number (from 0), ``prev`` the 32-byte id of the log entry it extends,
  ``type`` the message type, ``body`` a map checked against that type's schema;
* ``signature`` is Ed25519 over ``"trutnet/v1/entry" || canonical(envelope)``.

The entry id is ``SHA-256(canonical(envelope) || signature)``. Parsing refuses any
encoding that is not byte-for-byte canonical, so an entry has exactly one encoding
and one id. Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from trutnet.crypto.errors import CryptoError
from trutnet.crypto.identity import Identity, verify
from trutnet.engine.canonical import canonical_bytes
from trutnet.engine.errors import EngineError
from trutnet.protocol.untrusted import UntrustedInput, unpack

# 2: a play reveals its card from its entry alone, with no share round after it (7.4).
# 3: the rounds that need no seat order take their entries in any order (7.2).
# 4: the table locates a card by plaintext-equality tests (``blind``, ``unblind``, 7.4).
PROTOCOL_VERSION = 4
TABLE_ID_BYTES = 16
ID_BYTES = 32
GENESIS = b"\x00" * ID_BYTES
MAX_ENTRY_BYTES = 64 * 1024
MAX_SEATS = 16
SIGN_DOMAIN = b"trutnet/v1/entry"


class SignatureMemo(Protocol):
    """Where a process remembers the entries whose signature it verified."""

    def signed_once(self, wire: bytes, check: Callable[[], None]) -> None: ...

    def signed_before(self, wire: bytes) -> bool: ...


class MessageError(Exception):
    """A message that is malformed, mis-signed, or breaks its type's schema.

    ``rule`` names what was broken (``"size"``, ``"encoding"``, ``"version"``,
    ``"schema"``, ``"signature"``...), for blame records.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule


@dataclass(frozen=True, slots=True)
class Entry:
    """One signed log entry; ``wire`` is its exact encoding."""

    version: int
    table: bytes
    seat: int
    author: bytes
    seq: int
    prev: bytes
    type: str
    body: dict[str, Any]
    signature: bytes
    wire: bytes

    @property
    def id(self) -> bytes:
        return entry_id(self.wire)

    def envelope(self) -> list[Any]:
        return [
            self.version,
            self.table,
            self.seat,
            self.author,
            self.seq,
            self.prev,
            self.type,
            self.body,
        ]


def entry_id(wire: bytes) -> bytes:
    return hashlib.sha256(wire).digest()


def _payload(envelope: list[Any]) -> bytes:
    try:
        return canonical_bytes(envelope)
    except EngineError as exc:
        raise MessageError("encoding", str(exc)) from exc


def sign_entry(
    identity: Identity,
    *,
    table: bytes,
    seat: int,
    seq: int,
    prev: bytes,
    type: str,
    body: dict[str, Any],
    version: int = PROTOCOL_VERSION,
) -> Entry:
    """Build and sign an entry (the author is ``identity``)."""
    envelope = [version, table, seat, identity.public, seq, prev, type, body]
    payload = _payload(envelope)
    signature = identity.sign(SIGN_DOMAIN + payload)
    return parse_entry(_payload([envelope, signature]))


def parse_entry(
    wire: bytes, expected_table: bytes | None = None, checked: SignatureMemo | None = None
) -> Entry:
    """Strictly parse and check the signature of one entry (not its place in a log);
    ``checked``: this process's memo of the signatures it verified (each entry's once,
    :class:`~trutnet.protocol.checked.CheckedProofs`)."""
    if not isinstance(wire, bytes | bytearray):
        raise MessageError("encoding", "an entry is bytes")
    if len(wire) > MAX_ENTRY_BYTES:
        raise MessageError("size", f"entry of {len(wire)} bytes (limit {MAX_ENTRY_BYTES})")
    try:
        decoded = unpack(wire, MAX_ENTRY_BYTES)
    except UntrustedInput as exc:
        raise MessageError("encoding", f"not an entry: {exc}") from exc
    if not (
        isinstance(decoded, list)
        and len(decoded) == 2
        and isinstance(decoded[0], list)
        and len(decoded[0]) == 8
        and isinstance(decoded[1], bytes)
    ):
        raise MessageError("encoding", "an entry is [envelope(8 fields), signature]")
    envelope, signature = decoded
    version, table, seat, author, seq, prev, kind, body = envelope
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise MessageError(
            "version",
            f"an entry of protocol version {str(version)[:20]}; this trutnet speaks version "
            f"{PROTOCOL_VERSION}",
        )
    checks = [
        (isinstance(table, bytes) and len(table) == TABLE_ID_BYTES, "table id is 16 bytes"),
        (type(seat) is int and 0 <= seat < MAX_SEATS, "seat is 0..15"),
        (isinstance(author, bytes) and len(author) == 32, "author is a 32-byte key"),
        (type(seq) is int and 0 <= seq < 2**32, "seq is 0..2^32-1"),
        (isinstance(prev, bytes) and len(prev) == ID_BYTES, "prev is a 32-byte id"),
        (isinstance(kind, str) and 0 < len(kind) <= 32, "type is a short string"),
        (isinstance(body, dict), "body is a map"),
        (len(signature) == 64, "signature is 64 bytes"),
    ]
    for ok, what in checks:
        if not ok:
            raise MessageError("encoding", what)
    if expected_table is not None and table != expected_table:
        raise MessageError("table", "entry of another table")
    # the very same bytes passed here before (a sibling replica parsed them): they are
    # canonical, as their signature is good; only the table id above is the caller's
    known = checked is not None and checked.signed_before(bytes(wire))
    if not known and _payload([envelope, signature]) != bytes(wire):
        raise MessageError("encoding", "entry is not canonically encoded")

    def check() -> None:
        try:
            verify(author, signature, SIGN_DOMAIN + _payload(envelope))
        except CryptoError as exc:
            raise MessageError("signature", "bad signature") from exc

    if checked is None:
        check()
    else:
        checked.signed_once(bytes(wire), check)
    return Entry(version, table, seat, author, seq, prev, kind, body, signature, bytes(wire))
