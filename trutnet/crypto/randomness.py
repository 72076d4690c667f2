"""Commit-reveal joint randomness for dice and coin flips.

Each seat picks a 256-bit value ``v`` and publishes ``commit = SHA-256("trutnet/v1/commit"
|| context || u16(seat) || v)``; once every commitment is in, each reveals ``v``. The
outcome seed is ``SHA-256("trutnet/v1/joint" || context || v_0 || v_1 || ...)`` in seat
order: uniform as long as one seat is honest, and nobody can choose or foresee it.
Outcomes in ``0..k-1`` are drawn from the seed without modulo bias (rejection).
A seat that does not reveal, or reveals a value that does not open its commitment,
is identified by :func:`check_reveals`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import RandomBytes
from trutnet.crypto.transcript import Context

VALUE_BYTES = 32


def new_value(rng: RandomBytes) -> bytes:
    return rng(VALUE_BYTES)


def commitment(value: bytes, seat: int, context: Context) -> bytes:
    if len(value) != VALUE_BYTES:
        raise DecodeError(f"a committed value is {VALUE_BYTES} bytes")
    return hashlib.sha256(
        b"trutnet/v1/commit" + context.encode() + seat.to_bytes(2, "big") + value
    ).digest()


def check_reveals(
    commitments: Mapping[int, bytes], reveals: Mapping[int, bytes], context: Context
) -> list[int]:
    """Seats whose reveal is missing or does not open their commitment (sorted)."""
    bad = []
    for seat, commit in sorted(commitments.items()):
        value = reveals.get(seat)
        if value is None or len(value) != VALUE_BYTES or commitment(value, seat, context) != commit:
            bad.append(seat)
    return bad


def joint_seed(
    commitments: Mapping[int, bytes], reveals: Mapping[int, bytes], context: Context
) -> bytes:
    """The joint seed, once every seat has revealed a value that opens its commitment."""
    bad = check_reveals(commitments, reveals, context)
    if bad:
        raise ProofError(f"seats {bad} did not open their commitments")
    if set(reveals) != set(commitments):
        raise ProofError("a reveal from a seat that did not commit")
    digest = hashlib.sha256(b"trutnet/v1/joint" + context.encode())
    for seat in sorted(reveals):
        digest.update(reveals[seat])
    return digest.digest()


def draw(seed: bytes, bound: int, count: int = 1) -> list[int]:
    """``count`` uniform integers in ``0..bound-1`` from ``seed`` (no modulo bias).

    Candidate ``i`` is ``SHA-256(seed || u32(i))`` as an integer; a candidate at or above
    the largest multiple of ``bound`` below 2^256 is skipped.
    """
    if not 1 <= bound <= 2**256 or count < 0:
        raise CryptoError("bound 1..2^256, count >= 0")
    limit = (1 << 256) - (1 << 256) % bound
    out: list[int] = []
    counter = 0
    while len(out) < count:
        value = int.from_bytes(hashlib.sha256(seed + counter.to_bytes(4, "big")).digest(), "big")
        counter += 1
        if value < limit:
            out.append(value % bound)
    return out


def roll_dice(seed: bytes, dice: int = 1, sides: int = 6) -> list[int]:
    """Dice values 1..sides."""
    return [v + 1 for v in draw(seed, sides, dice)]


__all__: Sequence[str] = [
    "check_reveals",
    "commitment",
    "draw",
    "joint_seed",
    "new_value",
    "roll_dice",
]
