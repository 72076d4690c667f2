"""Decryption shares with Chaum-Pedersen (DLEQ) proofs, and reveals.

A seat's share of a ciphertext ``(c1, c2)`` is ``D = x*c1``. With every seat's share
the card point is ``M = c2 - sum(D)``.

* **Private reveal** to one seat: every *other* seat publishes its shares of those
  positions; the owner adds its own share privately, so only it learns the card.
* **Public reveal**: every seat publishes its shares.

One message carries a seat's shares of several ciphertexts with one proof: the
shares are folded with weights ``w_k`` drawn from the transcript (after every share is
in it) into ``C = sum(w_k*c1_k)`` and ``D = sum(w_k*D_k)``, and one DLEQ proof shows
``log_G(Y_seat) = log_C(D)``. A single wrong share makes the folded equation fail
except with probability 1/q.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.elgamal import Ciphertext, KeyPair
from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import (
    ORDER,
    Point,
    RandomBytes,
    base_mul,
    encode_scalar,
    point_sum,
    random_scalar,
)
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

MAX_SHARES = 1024


@dataclass(frozen=True, slots=True)
class ShareBatch:
    """One seat's decryption shares of the ciphertexts at ``positions``, with a proof."""

    seat: int
    positions: tuple[int, ...]
    shares: tuple[Point, ...]
    challenge: int
    response: int

    def to_bytes(self) -> bytes:
        """``u8(seat) u16(count)`` then positions (u16 each), shares, challenge, response."""
        return b"".join(
            [
                bytes([self.seat]),
                len(self.positions).to_bytes(2, "big"),
                *(p.to_bytes(2, "big") for p in self.positions),
                *(bytes(s) for s in self.shares),
                encode_scalar(self.challenge),
                encode_scalar(self.response),
            ]
        )

    @staticmethod
    def from_bytes(data: bytes) -> ShareBatch:
        reader = Reader(data)
        seat = reader.u8()
        count = reader.u16()
        if not 1 <= count <= MAX_SHARES:
            raise DecodeError(f"a share batch holds 1..{MAX_SHARES} shares")
        positions = tuple(reader.u16() for _ in range(count))
        shares = tuple(reader.points(count))
        challenge, response = reader.scalar(), reader.scalar()
        reader.end()
        return ShareBatch(seat, positions, shares, challenge, response)


def _fold(
    context: Context,
    seat: int,
    public: Point,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    shares: Sequence[Point],
) -> tuple[Transcript, Point, Point]:
    transcript = Transcript("trutnet/v1/shares", context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append_points("key", [public])
    transcript.append("positions", b"".join(p.to_bytes(2, "big") for p in positions))
    transcript.append_points("c1", [c.c1 for c in ciphertexts])
    transcript.append_points("shares", shares)
    if len(ciphertexts) == 1:
        return transcript, ciphertexts[0].c1, shares[0]
    weights = [transcript.challenge(f"w{k}") for k in range(len(ciphertexts))]
    folded_c1 = point_sum(c.c1 * w for c, w in zip(ciphertexts, weights, strict=True))
    folded_d = point_sum(d * w for d, w in zip(shares, weights, strict=True))
    return transcript, folded_c1, folded_d


def make_shares(
    key: KeyPair,
    seat: int,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    context: Context,
    rng: RandomBytes,
) -> ShareBatch:
    """This seat's shares of ``ciphertexts`` (at deck ``positions``), with one proof."""
    if not 1 <= len(positions) == len(ciphertexts) <= MAX_SHARES:
        raise CryptoError("one ciphertext per position, at least one")
    shares = tuple(c.c1 * key.secret for c in ciphertexts)
    transcript, c1, _ = _fold(context, seat, key.public, positions, ciphertexts, shares)
    nonce = random_scalar(rng)
    transcript.append_points("commit", [base_mul(nonce), c1 * nonce])
    challenge = transcript.challenge("c")
    return ShareBatch(
        seat, tuple(positions), shares, challenge, (nonce + challenge * key.secret) % ORDER
    )


def verify_shares(
    batch: ShareBatch, public: Point, ciphertexts: Sequence[Ciphertext], context: Context
) -> None:
    """Check ``batch`` against the seat's key and the ciphertexts at its positions."""
    if not len(batch.positions) == len(batch.shares) == len(ciphertexts) >= 1:
        raise ProofError(f"seat {batch.seat}: share batch does not match its ciphertexts")
    if any(s.is_identity for s in batch.shares):
        raise ProofError(f"seat {batch.seat}: a share is the identity")
    transcript, c1, d = _fold(
        context, batch.seat, public, batch.positions, ciphertexts, batch.shares
    )
    neg = ORDER - batch.challenge
    commit_g = base_mul(batch.response) + public * neg
    commit_c = c1 * batch.response + d * neg
    if commit_g.is_identity or commit_c.is_identity:
        raise ProofError(f"seat {batch.seat}: decryption shares do not verify")
    transcript.append_points("commit", [commit_g, commit_c])
    if transcript.challenge("c") != batch.challenge:
        raise ProofError(f"seat {batch.seat}: decryption shares do not verify")


def own_share(key: KeyPair, ciphertext: Ciphertext) -> Point:
    """The owner's own share, kept private in a private reveal."""
    return ciphertext.c1 * key.secret


def combine(ciphertext: Ciphertext, shares: Sequence[Point]) -> Point:
    """The plaintext point, given every seat's share of ``ciphertext``."""
    return ciphertext.c2 - point_sum(shares)
