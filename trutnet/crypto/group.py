"""The prime-order group: secp256k1 through coincurve (libsecp256k1).

Chosen by measurement on the development machine (``docs/protocol.md``, part 8):
coincurve does a variable-base scalar multiplication in about 32 µs, a base-point
one in about 20 µs and an addition in about 4 µs; PyNaCl's ed25519 core functions
take 96 µs, 21 µs and 18 µs, and ed25519 also needs a 44 µs subgroup check per
received point because of its cofactor. secp256k1 has cofactor 1: every point that
decodes is in the prime-order group.

Points are written additively. :class:`Point` wraps a coincurve public key, or is
the identity (which can never be decoded from outside). Scalars are Python ints
modulo :data:`ORDER`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

from coincurve import PublicKey

from trutnet.crypto.errors import CryptoError, DecodeError

ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
FIELD = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEFFFFFC2F
POINT_BYTES = 33
SCALAR_BYTES = 32

RandomBytes = Callable[[int], bytes]
"""A source of random bytes (``os.urandom``, or a seeded DRBG in tests)."""


class Point:
    """An element of the secp256k1 group; immutable; ``bytes(p)`` is its encoding."""

    __slots__ = ("_bytes", "_key")

    def __init__(self, key: PublicKey | None) -> None:
        self._key = key
        self._bytes: bytes | None = None

    @property
    def is_identity(self) -> bool:
        return self._key is None

    def __bytes__(self) -> bytes:
        if self._key is None:
            raise CryptoError("the identity has no encoding")
        if self._bytes is None:
            self._bytes = self._key.format(compressed=True)
        return self._bytes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Point):
            return NotImplemented
        if self._key is None or other._key is None:
            return self._key is None and other._key is None
        return bytes(self) == bytes(other)

    def __hash__(self) -> int:
        return hash(b"" if self._key is None else bytes(self))

    def __add__(self, other: Point) -> Point:
        if self._key is None:
            return other
        if other._key is None:
            return self
        try:
            return Point(PublicKey.combine_keys([self._key, other._key]))
        except ValueError:  # the sum is the identity
            return IDENTITY

    def __neg__(self) -> Point:
        if self._key is None:
            return self
        raw = bytes(self)
        return Point(PublicKey(bytes([raw[0] ^ 1]) + raw[1:]))

    def __sub__(self, other: Point) -> Point:
        return self + (-other)

    def __mul__(self, scalar: int) -> Point:
        scalar %= ORDER
        if scalar == 0 or self._key is None:
            return IDENTITY
        return Point(self._key.multiply(scalar.to_bytes(SCALAR_BYTES, "big")))

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return "Point(identity)" if self._key is None else f"Point({bytes(self).hex()[:16]}…)"


IDENTITY = Point(None)


def base_mul(scalar: int) -> Point:
    """``scalar * G`` (faster than a general multiplication)."""
    scalar %= ORDER
    if scalar == 0:
        return IDENTITY
    return Point(PublicKey.from_secret(scalar.to_bytes(SCALAR_BYTES, "big")))


G = base_mul(1)


def point_sum(points: Iterable[Point]) -> Point:
    """The sum of many points, in one call to the library where possible."""
    keys = [p._key for p in points if p._key is not None]
    if not keys:
        return IDENTITY
    if len(keys) == 1:
        return Point(keys[0])
    try:
        return Point(PublicKey.combine_keys(keys))
    except ValueError:
        return IDENTITY


def multi_mul(points: Sequence[Point], scalars: Sequence[int]) -> Point:
    """``sum(k_i * P_i)``."""
    return point_sum(p * k for p, k in zip(points, scalars, strict=True))


def decode_point(data: bytes) -> Point:
    """A received point: 33-byte compressed encoding of a group element, not the identity."""
    if not isinstance(data, bytes | bytearray) or len(data) != POINT_BYTES:
        raise DecodeError(f"a point is {POINT_BYTES} bytes")
    if data[0] not in (2, 3):
        raise DecodeError("a point is in compressed form (prefix 02 or 03)")
    if int.from_bytes(data[1:], "big") >= FIELD:
        raise DecodeError("point x coordinate out of range")
    try:
        return Point(PublicKey(bytes(data)))
    except ValueError as exc:
        raise DecodeError("not a point of secp256k1") from exc


def encode_scalar(value: int) -> bytes:
    if not 0 <= value < ORDER:
        raise CryptoError("scalar out of range")
    return value.to_bytes(SCALAR_BYTES, "big")


def decode_scalar(data: bytes, nonzero: bool = False) -> int:
    """A received scalar: 32 bytes big-endian, canonical (less than the group order)."""
    if not isinstance(data, bytes | bytearray) or len(data) != SCALAR_BYTES:
        raise DecodeError(f"a scalar is {SCALAR_BYTES} bytes")
    value = int.from_bytes(data, "big")
    if value >= ORDER:
        raise DecodeError("non-canonical scalar (not below the group order)")
    if nonzero and value == 0:
        raise DecodeError("zero scalar")
    return value


def random_scalar(rng: RandomBytes) -> int:
    """A uniform non-zero scalar from 64 random bytes (bias below 2^-256)."""
    while True:
        value = int.from_bytes(rng(64), "big") % ORDER
        if value:
            return value


def hash_to_point(domain: bytes, message: bytes) -> Point:
    """A point nobody knows the discrete log of, derived publicly from ``domain`` and
    ``message`` by try-and-increment (inputs are public, so timing does not matter).

    For counter ``c`` = 0, 1, ... : ``x = SHA-256("trutnet/v1/h2g" || u8(len(domain)) ||
    domain || message || u8(c))``; the first ``x`` below the field prime that is the
    x-coordinate of a curve point gives the point with even y (prefix 02).
    """
    if len(domain) > 255:
        raise CryptoError("domain too long")
    prefix = b"trutnet/v1/h2g" + bytes([len(domain)]) + domain + message
    for counter in range(256):
        x = hashlib.sha256(prefix + bytes([counter])).digest()
        if int.from_bytes(x, "big") >= FIELD:
            continue
        try:
            return Point(PublicKey(b"\x02" + x))
        except ValueError:
            continue
    raise CryptoError("hash_to_point found no point")  # probability 2^-256
