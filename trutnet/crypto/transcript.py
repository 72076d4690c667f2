"""Fiat-Shamir transcripts: every challenge hashes the whole statement and its context.

A transcript is a sequence of records ``u8(len(label)) || label || u32(len(data)) ||
data``, hashed with SHA-512. It starts with a domain record and the
:class:`Context` (protocol version, table id, round, step), so a proof made for one
table, hand or step fails in any other. ``challenge(label)`` is SHA-512 of the
records so far plus ``record("challenge", label)``, reduced modulo the group order;
the challenge record and the digest are then appended, so successive challenges
differ. ``docs/protocol.md`` part 8 gives the byte layout.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from trutnet.crypto.errors import CryptoError
from trutnet.crypto.group import ORDER, Point, encode_scalar

MAX_TABLE_ID = 64


@dataclass(frozen=True, slots=True)
class Context:
    """Where a proof belongs: protocol version, table, round (hand number), step.

    ``step`` names the protocol step and who performs it, e.g. ``"shuffle/2"`` or
    ``"reveal/7"``; the crypto layer treats it as an opaque label.
    """

    version: int
    table_id: bytes
    round: int
    step: str

    def __post_init__(self) -> None:
        if not 0 <= self.version < 2**16 or not 0 <= self.round < 2**32:
            raise CryptoError("context version or round out of range")
        if len(self.table_id) > MAX_TABLE_ID or len(self.step.encode()) > 255:
            raise CryptoError("context table id or step too long")

    def encode(self) -> bytes:
        step = self.step.encode()
        return (
            self.version.to_bytes(2, "big")
            + bytes([len(self.table_id)])
            + self.table_id
            + self.round.to_bytes(4, "big")
            + bytes([len(step)])
            + step
        )

    def with_step(self, step: str) -> Context:
        return Context(self.version, self.table_id, self.round, step)


class Transcript:
    """An append-only Fiat-Shamir transcript for one proof."""

    __slots__ = ("_hash",)

    def __init__(self, protocol: str, context: Context) -> None:
        self._hash = hashlib.sha512()
        self.append("protocol", protocol.encode())
        self.append("context", context.encode())

    def append(self, label: str, data: bytes) -> None:
        name = label.encode()
        self._hash.update(bytes([len(name)]) + name + len(data).to_bytes(4, "big"))
        self._hash.update(data)

    def append_points(self, label: str, points: Iterable[Point]) -> None:
        self.append(label, b"".join(bytes(p) for p in points))

    def append_scalars(self, label: str, scalars: Iterable[int]) -> None:
        self.append(label, b"".join(encode_scalar(s) for s in scalars))

    def challenge(self, label: str) -> int:
        name = b"challenge"
        record = bytes([len(name)]) + name + len(label.encode()).to_bytes(4, "big") + label.encode()
        probe = self._hash.copy()
        probe.update(record)
        digest = probe.digest()
        self._hash.update(record)
        self.append("digest", digest)
        return int.from_bytes(digest, "big") % ORDER
