"""Plaintext-equality tests (Jakobsson-Juels) of ElGamal ciphertexts against public
card points, with proofs (8.12).

Whether the ciphertext ``(c1, c2)`` under the joint key ``Y = sum(Y_i)`` holds the
public point ``M``, and nothing else about it:

1. **Blind.** Each seat ``i`` draws a non-zero ``r_i`` and posts
   ``(A_i, B_i) = r_i*(c1, c2 - M)`` with a proof that both have the same exponent.
   The sum ``(A, B) = (sum r_i)*(c1, c2 - M)`` is an encryption of
   ``(sum r_i)*(m - M)`` under ``Y``: the identity if ``m = M``, else a point that no
   seat can predict (``sum r_i`` is unknown to all while one seat is honest).
2. **Open.** Each seat posts its decryption share ``D_i = x_i*A`` of ``(A, B)`` with
   the share proof of 8.8 (:mod:`.shares`); ``m = M`` iff ``B - sum(D_i)`` is the
   identity.

A batch covers ``K`` ciphertexts, each against its own card point, one ``r_{i,k}``
per ciphertext. The blinding proof is ``K`` Chaum-Pedersen proofs under **one**
Fiat-Shamir challenge (an AND of ``K`` statements): each position has its own
exponent, so the random-weights folding of 8.8, which needs one witness for all,
does not apply. Its transcript binds the context, the seat and its key, the table
positions, every ciphertext, every card point and every blinded pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.errors import CryptoError, DecodeError, ProofError
from trutnet.crypto.group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    RandomBytes,
    encode_scalar,
    point_sum,
    random_scalar,
)
from trutnet.crypto.shares import MAX_SHARES, combine
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

PROTOCOL = "trutnet/v1/pet-blind"


@dataclass(frozen=True, slots=True)
class Blinds:
    """Seat ``seat``'s blinded pairs ``(A_k, B_k)`` of the ciphertexts at ``positions``,
    with one proof: the challenge and one response per position."""

    seat: int
    positions: tuple[int, ...]
    pairs: tuple[tuple[Point, Point], ...]
    challenge: int
    responses: tuple[int, ...]

    def to_bytes(self) -> bytes:
        """``u8(seat) u16(K)``, K positions (u16), K pairs ``A || B``, the challenge,
        then K responses."""
        return b"".join(
            [
                bytes([self.seat]),
                len(self.positions).to_bytes(2, "big"),
                *(p.to_bytes(2, "big") for p in self.positions),
                *(bytes(a) + bytes(b) for a, b in self.pairs),
                encode_scalar(self.challenge),
                *(encode_scalar(z) for z in self.responses),
            ]
        )

    @staticmethod
    def size(count: int) -> int:
        return 3 + count * (2 + 2 * POINT_BYTES + SCALAR_BYTES) + SCALAR_BYTES

    @staticmethod
    def from_bytes(data: bytes) -> Blinds:
        reader = Reader(data)
        seat, count = reader.u8(), reader.u16()
        if not 1 <= count <= MAX_SHARES:
            raise DecodeError(f"a blinding batch holds 1..{MAX_SHARES} pairs")
        if len(data) != Blinds.size(count):
            raise DecodeError(f"a blinding batch of {count} is {Blinds.size(count)} bytes")
        positions = tuple(reader.u16() for _ in range(count))
        pairs = tuple((reader.point(), reader.point()) for _ in range(count))
        challenge = reader.scalar()
        responses = tuple(reader.scalars(count))
        reader.end()
        return Blinds(seat, positions, pairs, challenge, responses)


def _bases(ciphertexts: Sequence[Ciphertext], cards: Sequence[Point]) -> list[tuple[Point, Point]]:
    """``(c1, c2 - M)`` of each ciphertext: the two bases its blinding multiplies."""
    if not 1 <= len(ciphertexts) == len(cards) <= MAX_SHARES:
        raise CryptoError("one card point per ciphertext, at least one")
    bases = [(c.c1, c.c2 - m) for c, m in zip(ciphertexts, cards, strict=True)]
    if any(p.is_identity or q.is_identity for p, q in bases):
        raise ProofError("a ciphertext to test has an identity component")
    return bases


def _statement(
    context: Context,
    seat: int,
    public: Point,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    cards: Sequence[Point],
    pairs: Sequence[tuple[Point, Point]],
) -> Transcript:
    transcript = Transcript(PROTOCOL, context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append_points("key", [public])
    transcript.append("positions", b"".join(p.to_bytes(2, "big") for p in positions))
    transcript.append_points("ciphertexts", [p for c in ciphertexts for p in (c.c1, c.c2)])
    transcript.append_points("cards", cards)
    transcript.append_points("blinded", [p for pair in pairs for p in pair])
    return transcript


def blind(
    public: Point,
    seat: int,
    positions: Sequence[int],
    ciphertexts: Sequence[Ciphertext],
    cards: Sequence[Point],
    context: Context,
    rng: RandomBytes,
) -> Blinds:
    """This seat's blinding of ``ciphertexts`` (at table ``positions``) against
    ``cards`` (one point each), with one proof; ``public`` is the seat's key, bound
    to the proof. The exponents are thrown away: nothing later needs them."""
    bases = _bases(ciphertexts, cards)
    if len(positions) != len(bases):
        raise CryptoError("one position per ciphertext")
    exponents = [random_scalar(rng) for _ in bases]
    pairs = tuple((p * r, q * r) for (p, q), r in zip(bases, exponents, strict=True))
    transcript = _statement(context, seat, public, positions, ciphertexts, cards, pairs)
    nonces = [random_scalar(rng) for _ in bases]
    transcript.append_points(
        "commit", [t for (p, q), u in zip(bases, nonces, strict=True) for t in (p * u, q * u)]
    )
    challenge = transcript.challenge("c")
    responses = tuple((u + challenge * r) % ORDER for u, r in zip(nonces, exponents, strict=True))
    return Blinds(seat, tuple(positions), pairs, challenge, responses)


def verify_blinds(
    batch: Blinds,
    public: Point,
    ciphertexts: Sequence[Ciphertext],
    cards: Sequence[Point],
    context: Context,
) -> None:
    """Check ``batch`` against its author's key and the ciphertexts and card points
    of its positions: every pair is ``r_k*(c1_k, c2_k - M_k)`` for some ``r_k`` the
    author knows, and none is the identity."""
    count = len(batch.positions)
    if not count == len(batch.pairs) == len(batch.responses) == len(ciphertexts) >= 1:
        raise ProofError(f"seat {batch.seat}: blinding batch does not match its ciphertexts")
    bases = _bases(ciphertexts, cards)
    if any(a.is_identity or b.is_identity for a, b in batch.pairs):
        raise ProofError(f"seat {batch.seat}: a blinded point is the identity")
    transcript = _statement(
        context, batch.seat, public, batch.positions, ciphertexts, cards, batch.pairs
    )
    neg = ORDER - batch.challenge
    commits = []
    for (p, q), (a, b), z in zip(bases, batch.pairs, batch.responses, strict=True):
        commits += [p * z + a * neg, q * z + b * neg]
    if any(c.is_identity for c in commits):
        raise ProofError(f"seat {batch.seat}: blinding does not verify")
    transcript.append_points("commit", commits)
    if transcript.challenge("c") != batch.challenge:
        raise ProofError(f"seat {batch.seat}: blinding does not verify")


def blinded(batches: Sequence[Blinds]) -> tuple[Ciphertext, ...]:
    """The joint blinded ciphertexts ``(sum A_k, sum B_k)``, given every seat's batch
    (verified, over the same positions). A sum that is the identity (probability
    ``2^-256`` for honest seats, impossible to force with proven exponents) is refused."""
    if not batches or len({b.positions for b in batches}) != 1:
        raise CryptoError("one blinding batch per seat, over the same positions")
    out = []
    for k, position in enumerate(batches[0].positions):
        a = point_sum(batch.pairs[k][0] for batch in batches)
        b = point_sum(batch.pairs[k][1] for batch in batches)
        if a.is_identity or b.is_identity:
            raise ProofError(f"the blinded ciphertext of position {position} is void")
        out.append(Ciphertext(a, b))
    return tuple(out)


def equal(ciphertext: Ciphertext, shares: Sequence[Point]) -> bool:
    """Whether the blinded ``ciphertext`` decrypts to the identity with every seat's
    (verified) share: whether the tested ciphertext held its card point."""
    return combine(ciphertext, shares).is_identity
