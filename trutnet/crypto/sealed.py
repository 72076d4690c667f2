"""Decryption shares sealed to one seat: a verifiable encryption of a share (8.8).

A private reveal posts every share of a position in the clear but its viewer's
(:mod:`.shares`). When a second seat B must see a position that seat A already saw,
A's share ``D_A = x_A*c1`` cannot be posted in the clear: everyone would read the
card. A sends it **sealed to B**, ElGamal-encrypted (on the point itself) under B's
key ``Y_B = x_B*G``::

    R = r*G,    E = D_A + r*Y_B = x_A*c1 + r*Y_B

with a proof of knowledge of ``(x_A, r)`` such that ``Y_A = x_A*G``, ``R = r*G`` and
``E = x_A*c1 + r*Y_B``. Everyone checks the proof; only B opens it:
``D_A = E - x_B*R``. To anyone else ``(R, E)`` is an ElGamal ciphertext under B's key,
which hides ``D_A`` (DDH), and the proof is zero-knowledge: a spectator learns nothing
of the card, and the seats but B learn nothing they did not know.

One batch carries A's sealed shares of ``K`` ciphertexts for one recipient, with one
proof: after the whole statement is in the transcript, weights ``w_k`` fold it into
``C = sum(w_k*c1_k)``, ``R* = sum(w_k*R_k)``, ``E* = sum(w_k*E_k)``, and the proof is
of ``(x_A, r*)`` with ``Y_A = x_A*G``, ``R* = r*G``, ``E* = x_A*C + r*Y_B``. The
discrete logarithms of ``Y_A`` and ``R*`` fix ``x_A`` and ``r*``, so a proof exists
only if ``sum(w_k*(E_k - x_A*c1_k - r_k*Y_B)) = 0``: one wrong ``E_k`` passes with
probability 1/q. The transcript binds the context, both seats, both keys, the table
positions and every ciphertext: a batch is valid for no other table, round, step,
author, recipient or position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.elgamal import Ciphertext, KeyPair
from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    RandomBytes,
    base_mul,
    encode_scalar,
    point_sum,
    random_scalar,
)
from trutnet.crypto.shares import MAX_SHARES
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

PROTOCOL = "trutnet/v1/sealed-shares"


@dataclass(frozen=True, slots=True)
class SealedShares:
    """Seat ``seat``'s decryption shares of the ciphertexts at ``positions``, each
    encrypted to seat ``to`` as ``(R, E)``, with one proof ``(challenge, z_key, z_rand)``."""

    seat: int
    to: int
    positions: tuple[int, ...]
    sealed: tuple[tuple[Point, Point], ...]
    challenge: int
    z_key: int
    z_rand: int

    def to_bytes(self) -> bytes:
        """``u8(seat) u8(to) u16(K)``, K positions (u16), K pairs ``R || E``, then the
        challenge and the two responses."""
        return b"".join(
            [
                bytes([self.seat, self.to]),
                len(self.positions).to_bytes(2, "big"),
                *(p.to_bytes(2, "big") for p in self.positions),
                *(bytes(r) + bytes(e) for r, e in self.sealed),
                encode_scalar(self.challenge),
                encode_scalar(self.z_key),
                encode_scalar(self.z_rand),
            ]
        )

    @staticmethod
    def size(count: int) -> int:
        return 4 + count * (2 + 2 * POINT_BYTES) + 3 * SCALAR_BYTES

    @staticmethod
    def from_bytes(data: bytes) -> SealedShares:
        reader = Reader(data)
        seat, to = reader.u8(), reader.u8()
        count = reader.u16()
        if not 1 <= count <= MAX_SHARES:
            raise DecodeError(f"a sealed batch holds 1..{MAX_SHARES} shares")
        if len(data) != SealedShares.size(count):
            raise DecodeError(f"a sealed batch of {count} is {SealedShares.size(count)} bytes")
        positions = tuple(reader.u16() for _ in range(count))
        sealed = tuple((reader.point(), reader.point()) for _ in range(count))
        challenge, z_key, z_rand = reader.scalar(), reader.scalar(), reader.scalar()
        reader.end()
        return SealedShares(seat, to, positions, sealed, challenge, z_key, z_rand)


def _statement(
    context: Context,
    seat: int,
    to: int,
    public: Point,
    recipient: Point,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    sealed: Sequence[tuple[Point, Point]],
) -> tuple[Transcript, list[int]]:
    """The transcript of the statement, and the weights that fold it (1 for one share)."""
    if seat == to or public == recipient:
        raise ProofError(f"seat {seat}: a share is sealed to another seat")
    transcript = Transcript(PROTOCOL, context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append("to", to.to_bytes(2, "big"))
    transcript.append_points("key", [public])
    transcript.append_points("recipient", [recipient])
    transcript.append("positions", b"".join(p.to_bytes(2, "big") for p in positions))
    transcript.append_points("c1", [c.c1 for c in ciphertexts])
    transcript.append_points("sealed", [p for pair in sealed for p in pair])
    if len(sealed) == 1:
        return transcript, [1]
    return transcript, [transcript.challenge(f"w{k}") for k in range(len(sealed))]


def _fold(points: Sequence[Point], weights: Sequence[int]) -> Point:
    if len(points) == 1:
        return points[0]
    return point_sum(p * w for p, w in zip(points, weights, strict=True))


def seal_shares(
    key: KeyPair,
    seat: int,
    recipient: Point,
    to: int,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    context: Context,
    rng: RandomBytes,
) -> SealedShares:
    """This seat's shares of ``ciphertexts`` (at table ``positions``), each encrypted to
    the seat ``to`` whose key is ``recipient``, with one proof."""
    if not 1 <= len(positions) == len(ciphertexts) <= MAX_SHARES:
        raise CryptoError("one ciphertext per position, at least one")
    randoms = [random_scalar(rng) for _ in ciphertexts]
    sealed = tuple(
        (base_mul(r), c.c1 * key.secret + recipient * r)
        for c, r in zip(ciphertexts, randoms, strict=True)
    )
    transcript, weights = _statement(
        context, seat, to, key.public, recipient, positions, ciphertexts, sealed
    )
    c1 = _fold([c.c1 for c in ciphertexts], weights)
    folded = sum(r * w for r, w in zip(randoms, weights, strict=True)) % ORDER
    k_key, k_rand = random_scalar(rng), random_scalar(rng)
    transcript.append_points(
        "commit", [base_mul(k_key), base_mul(k_rand), c1 * k_key + recipient * k_rand]
    )
    challenge = transcript.challenge("c")
    return SealedShares(
        seat,
        to,
        tuple(positions),
        sealed,
        challenge,
        (k_key + challenge * key.secret) % ORDER,
        (k_rand + challenge * folded) % ORDER,
    )


def verify_sealed(
    batch: SealedShares,
    public: Point,
    recipient: Point,
    ciphertexts: Sequence[Ciphertext],
    context: Context,
) -> None:
    """Check ``batch`` against its author's key ``public``, its recipient's key
    ``recipient`` and the ciphertexts at its positions."""
    if not len(batch.positions) == len(batch.sealed) == len(ciphertexts) >= 1:
        raise ProofError(f"seat {batch.seat}: sealed batch does not match its ciphertexts")
    transcript, weights = _statement(
        context,
        batch.seat,
        batch.to,
        public,
        recipient,
        batch.positions,
        ciphertexts,
        batch.sealed,
    )
    c1 = _fold([c.c1 for c in ciphertexts], weights)
    r = _fold([r for r, _ in batch.sealed], weights)
    e = _fold([e for _, e in batch.sealed], weights)
    neg = ORDER - batch.challenge
    commits = [
        base_mul(batch.z_key) + public * neg,
        base_mul(batch.z_rand) + r * neg,
        c1 * batch.z_key + recipient * batch.z_rand + e * neg,
    ]
    if any(c.is_identity for c in commits):
        raise ProofError(f"seat {batch.seat}: sealed shares do not verify")
    transcript.append_points("commit", commits)
    if transcript.challenge("c") != batch.challenge:
        raise ProofError(f"seat {batch.seat}: sealed shares do not verify")


def open_sealed(batch: SealedShares, key: KeyPair) -> tuple[Point, ...]:
    """The recipient's view: the author's shares, ``D = E - x*R`` (verify first)."""
    return tuple(e - r * key.secret for r, e in batch.sealed)
