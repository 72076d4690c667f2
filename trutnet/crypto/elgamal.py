"""n-of-n ElGamal over secp256k1: seat keys, proofs of key knowledge, decks.

* Each seat has a secret ``x`` and public key ``Y = x*G``, published with a Schnorr
  proof of knowledge of ``x`` bound to the seat and the context, so no seat can
  choose its key as a function of the others' (no rogue keys).
* The joint key is the sum of all seat keys; decrypting needs every seat's share.
* A ciphertext of the card point ``M`` is ``(c1, c2) = (r*G, M + r*Y)``. The open
  deck (before any shuffle) is ``(identity, M_i)``: the first shuffle's re-encryption
  masks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.errors import DecodeError, ProofError
from trutnet.crypto.group import (
    IDENTITY,
    ORDER,
    POINT_BYTES,
    Point,
    RandomBytes,
    base_mul,
    encode_scalar,
    point_sum,
    random_scalar,
)
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

MAX_SEATS = 16


@dataclass(frozen=True, slots=True)
class KeyProof:
    """Schnorr proof of knowledge of a seat's secret key: challenge and response."""

    challenge: int
    response: int

    def to_bytes(self) -> bytes:
        return encode_scalar(self.challenge) + encode_scalar(self.response)

    @staticmethod
    def from_bytes(data: bytes) -> KeyProof:
        reader = Reader(data)
        proof = KeyProof(reader.scalar(), reader.scalar())
        reader.end()
        return proof


def _key_transcript(context: Context, seat: int, public: Point) -> Transcript:
    transcript = Transcript("trutnet/v1/key-proof", context)
    transcript.append("seat", seat.to_bytes(2, "big"))
    transcript.append_points("key", [public])
    return transcript


class KeyPair:
    """A seat's ElGamal key pair. The secret never leaves this object but by ``secret``."""

    __slots__ = ("public", "secret")

    def __init__(self, secret: int) -> None:
        self.secret = secret
        self.public = base_mul(secret)

    @classmethod
    def generate(cls, rng: RandomBytes) -> KeyPair:
        return cls(random_scalar(rng))

    def __repr__(self) -> str:  # never print the secret
        return f"KeyPair(public={self.public!r})"

    def prove(self, context: Context, seat: int, rng: RandomBytes) -> KeyProof:
        nonce = random_scalar(rng)
        transcript = _key_transcript(context, seat, self.public)
        transcript.append_points("commit", [base_mul(nonce)])
        challenge = transcript.challenge("c")
        return KeyProof(challenge, (nonce + challenge * self.secret) % ORDER)


def verify_key(public: Point, proof: KeyProof, context: Context, seat: int) -> None:
    """Check a seat's proof of knowledge of the secret behind ``public``."""
    if public.is_identity:
        raise ProofError("a public key may not be the identity")
    commit = base_mul(proof.response) - public * proof.challenge
    if commit.is_identity:
        raise ProofError(f"seat {seat}: proof of key knowledge does not verify")
    transcript = _key_transcript(context, seat, public)
    transcript.append_points("commit", [commit])
    if transcript.challenge("c") != proof.challenge:
        raise ProofError(f"seat {seat}: proof of key knowledge does not verify")


def joint_key(publics: Sequence[Point]) -> Point:
    """The table's key: the sum of every seat's key (all must be distinct)."""
    if not 1 <= len(publics) <= MAX_SEATS:
        raise ProofError(f"1..{MAX_SEATS} seat keys")
    if len({bytes(p) for p in publics}) != len(publics):
        raise ProofError("two seats published the same key")
    key = point_sum(publics)
    if key.is_identity:
        raise ProofError("the joint key is the identity")
    return key


@dataclass(frozen=True, slots=True)
class Ciphertext:
    c1: Point
    c2: Point

    def reencrypt(self, key: Point, r: int) -> Ciphertext:
        return Ciphertext(self.c1 + base_mul(r), self.c2 + key * r)


Deck = tuple[Ciphertext, ...]


def open_deck(cards: Sequence[Point]) -> Deck:
    """The deck before any shuffle: every card in the clear, ``(identity, M_i)``."""
    return tuple(Ciphertext(IDENTITY, m) for m in cards)


def encode_deck(deck: Deck) -> bytes:
    """``u16(count)`` then each ciphertext as ``c1 || c2`` (33 + 33 bytes)."""
    return len(deck).to_bytes(2, "big") + b"".join(bytes(c.c1) + bytes(c.c2) for c in deck)


def read_deck(reader: Reader, expected: int | None = None) -> Deck:
    count = reader.u16()
    if expected is not None and count != expected:
        raise DecodeError(f"a deck of {expected} cards was expected, not {count}")
    return tuple(Ciphertext(reader.point(), reader.point()) for _ in range(count))


def decode_deck(data: bytes, expected: int | None = None) -> Deck:
    reader = Reader(data)
    deck = read_deck(reader, expected)
    reader.end()
    return deck


DECK_ENTRY_BYTES = 2 * POINT_BYTES
