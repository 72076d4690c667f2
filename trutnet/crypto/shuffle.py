"""Verifiable shuffle: permute and re-encrypt a deck, with a zero-knowledge proof.

The proof is the Terelius-Wikström proof of a shuffle, following the pseudo-code of
Haenni, Locher, Koenig and Dubuis, "Pseudo-Code Algorithms for Verifiable
Re-Encryption Mix-Nets" (FC 2017), written additively. It costs 8N+5 scalar
multiplications to prove and 9N+11 to verify. Its challenges are 252-bit scalars
from a Fiat-Shamir transcript over the whole statement (context, every seat's key,
the joint key, the input and output decks), so its soundness error is about N/q,
far below 2^-128.

Notation: output card ``i`` is input card ``perm[i]`` re-encrypted with ``rt[i]``.
Pedersen generators ``h, h_0..h_{N-1}`` are derived with :func:`hash_to_point` and
cached; nobody knows a discrete log between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.crypto.elgamal import Deck, encode_deck, read_deck
from trutnet.crypto.errors import CryptoError, ProofError
from trutnet.crypto.group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    RandomBytes,
    base_mul,
    encode_scalar,
    hash_to_point,
    point_sum,
    random_scalar,
)
from trutnet.crypto.transcript import Context, Transcript
from trutnet.crypto.wire import Reader

_GENERATORS: list[Point] = []
_H = hash_to_point(b"trutnet/v1/pedersen", b"h")


def generators(count: int) -> list[Point]:
    """The Pedersen generators ``h_0..h_{count-1}`` (derived once, then cached)."""
    while len(_GENERATORS) < count:
        _GENERATORS.append(
            hash_to_point(b"trutnet/v1/pedersen", len(_GENERATORS).to_bytes(2, "big"))
        )
    return _GENERATORS[:count]


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    perm_commits: tuple[Point, ...]  # c_j = r_j*G + h_i for j = perm[i]
    chain: tuple[Point, ...]  # ĉ_i = r̂_i*G + ũ_i*ĉ_{i-1}, ĉ_{-1} = h
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def to_bytes(self) -> bytes:
        return b"".join(
            [
                *(bytes(p) for p in self.perm_commits),
                *(bytes(p) for p in self.chain),
                *(encode_scalar(s) for s in (self.challenge, self.s1, self.s2, self.s3, self.s4)),
                *(encode_scalar(s) for s in self.s_hat),
                *(encode_scalar(s) for s in self.s_prime),
            ]
        )

    @staticmethod
    def size(count: int) -> int:
        return count * (2 * POINT_BYTES + 2 * SCALAR_BYTES) + 5 * SCALAR_BYTES

    @staticmethod
    def read(reader: Reader, count: int) -> ShuffleProof:
        commits = tuple(reader.points(count))
        chain = tuple(reader.points(count))
        challenge, s1, s2, s3, s4 = reader.scalars(5)
        return ShuffleProof(
            commits,
            chain,
            challenge,
            s1,
            s2,
            s3,
            s4,
            tuple(reader.scalars(count)),
            tuple(reader.scalars(count)),
        )

    @staticmethod
    def from_bytes(data: bytes, count: int) -> ShuffleProof:
        reader = Reader(data)
        proof = ShuffleProof.read(reader, count)
        reader.end()
        return proof


def _point_bytes(p: Point) -> bytes:
    return b"\x00" * POINT_BYTES if p.is_identity else bytes(p)


def _deck_bytes(deck: Deck) -> bytes:
    # The open deck has identity c1 values, written as zero bytes in transcripts.
    if all(not c.c1.is_identity for c in deck):
        return encode_deck(deck)
    return len(deck).to_bytes(2, "big") + b"".join(
        _point_bytes(c.c1) + _point_bytes(c.c2) for c in deck
    )


def _statement(
    context: Context,
    keys: Sequence[Point],
    key: Point,
    source: Deck,
    result: Deck,
    commits: Sequence[Point],
) -> tuple[Transcript, list[int]]:
    transcript = Transcript("trutnet/v1/shuffle", context)
    transcript.append_points("keys", keys)
    transcript.append_points("joint-key", [key])
    transcript.append("input", _deck_bytes(source))
    transcript.append("output", _deck_bytes(result))
    transcript.append_points("perm-commits", commits)
    return transcript, [transcript.challenge(f"u{j}") for j in range(len(source))]


def _final_challenge(
    transcript: Transcript,
    chain: Sequence[Point],
    t1: Point,
    t2: Point,
    t3: Point,
    t41: Point,
    t42: Point,
    t_hat: Sequence[Point],
) -> int:
    transcript.append_points("chain", chain)
    transcript.append("t", b"".join(_point_bytes(p) for p in (t1, t2, t3, t41, t42)))
    transcript.append("t-hat", b"".join(_point_bytes(p) for p in t_hat))
    return transcript.challenge("c")


def random_permutation(count: int, rng: RandomBytes) -> list[int]:
    """A uniform permutation of ``range(count)`` (Fisher-Yates, exact rejection)."""
    perm = list(range(count))
    for i in range(count - 1, 0, -1):
        bound = i + 1
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = int.from_bytes(rng(8), "big")
            if value < limit:
                break
        j = value % bound
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def shuffle(
    deck: Deck, key: Point, context: Context, keys: Sequence[Point], rng: RandomBytes
) -> tuple[Deck, ShuffleProof]:
    """Permute and re-encrypt ``deck`` under the joint ``key``; prove it."""
    count = len(deck)
    if count < 2:
        raise CryptoError("a shuffle needs at least 2 cards")
    perm = random_permutation(count, rng)
    rt = [random_scalar(rng) for _ in range(count)]
    result = tuple(deck[perm[i]].reencrypt(key, rt[i]) for i in range(count))
    return result, _prove(deck, result, perm, rt, key, context, keys, rng)


def _prove(
    source: Deck,
    result: Deck,
    perm: list[int],
    rt: list[int],
    key: Point,
    context: Context,
    keys: Sequence[Point],
    rng: RandomBytes,
) -> ShuffleProof:
    n = len(source)
    hs = generators(n)
    q = ORDER
    # Permutation commitment, indexed by input position j = perm[i].
    r = [0] * n
    commits: list[Point] = [_H] * n
    for i in range(n):
        j = perm[i]
        r[j] = random_scalar(rng)
        commits[j] = base_mul(r[j]) + hs[i]
    transcript, u = _statement(context, keys, key, source, result, commits)
    ut = [u[perm[i]] for i in range(n)]
    # Commitment chain.
    r_hat = [random_scalar(rng) for _ in range(n)]
    chain: list[Point] = []
    previous = _H
    for i in range(n):
        previous = base_mul(r_hat[i]) + previous * ut[i]
        chain.append(previous)
    v_hat = [1] * n
    for i in range(n - 2, -1, -1):
        v_hat[i] = ut[i + 1] * v_hat[i + 1] % q
    r_bar = sum(r) % q
    r_hat_sum = sum(a * b for a, b in zip(r_hat, v_hat, strict=True)) % q
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % q
    r_prime = sum(a * b for a, b in zip(rt, ut, strict=True)) % q
    w1, w2, w3, w4 = (random_scalar(rng) for _ in range(4))
    w_hat = [random_scalar(rng) for _ in range(n)]
    w_prime = [random_scalar(rng) for _ in range(n)]
    t1 = base_mul(w1)
    t2 = base_mul(w2)
    t3 = base_mul(w3) + point_sum(h * w for h, w in zip(hs, w_prime, strict=True))
    t41 = key * (q - w4) + point_sum(c.c2 * w for c, w in zip(result, w_prime, strict=True))
    t42 = base_mul(q - w4) + point_sum(c.c1 * w for c, w in zip(result, w_prime, strict=True))
    t_hat = []
    previous = _H
    for i in range(n):
        t_hat.append(base_mul(w_hat[i]) + previous * w_prime[i])
        previous = chain[i]
    c = _final_challenge(transcript, chain, t1, t2, t3, t41, t42, t_hat)
    return ShuffleProof(
        tuple(commits),
        tuple(chain),
        c,
        (w1 + c * r_bar) % q,
        (w2 + c * r_hat_sum) % q,
        (w3 + c * r_tilde) % q,
        (w4 + c * r_prime) % q,
        tuple((w_hat[i] + c * r_hat[i]) % q for i in range(n)),
        tuple((w_prime[i] + c * ut[i]) % q for i in range(n)),
    )


def verify_shuffle(
    source: Deck,
    result: Deck,
    proof: ShuffleProof,
    key: Point,
    context: Context,
    keys: Sequence[Point],
) -> None:
    """Check that ``result`` is a permutation and re-encryption of ``source``.

    Raises :class:`ProofError` when it is not (or when the proof is malformed).
    """
    n = len(source)
    if len(result) != n or n < 2:
        raise ProofError("the shuffled deck does not have the input's size")
    if not (
        len(proof.perm_commits) == len(proof.chain) == len(proof.s_hat) == len(proof.s_prime) == n
    ):
        raise ProofError("the shuffle proof does not match the deck size")
    for card in result:
        if card.c1.is_identity or card.c2.is_identity:
            raise ProofError("a shuffled card holds the identity")
    q = ORDER
    hs = generators(n)
    c = proof.challenge
    neg_c = q - c
    transcript, u = _statement(context, keys, key, source, result, proof.perm_commits)
    u_product = 1
    for value in u:
        u_product = u_product * value % q
    c_bar = point_sum(proof.perm_commits) - point_sum(hs)
    c_hat = proof.chain[-1] - _H * u_product
    c_tilde = point_sum(cj * uj for cj, uj in zip(proof.perm_commits, u, strict=True))
    a_prime = point_sum(e.c2 * uj for e, uj in zip(source, u, strict=True))
    b_prime = point_sum(e.c1 * uj for e, uj in zip(source, u, strict=True))
    t_hat = []
    previous = _H
    for i in range(n):
        t_hat.append(
            point_sum(
                [
                    proof.chain[i] * neg_c,
                    base_mul(proof.s_hat[i]),
                    previous * proof.s_prime[i],
                ]
            )
        )
        previous = proof.chain[i]
    t1 = c_bar * neg_c + base_mul(proof.s1)
    t2 = c_hat * neg_c + base_mul(proof.s2)
    t3 = point_sum(
        [
            c_tilde * neg_c,
            base_mul(proof.s3),
            *(h * s for h, s in zip(hs, proof.s_prime, strict=True)),
        ]
    )
    t41 = point_sum(
        [
            a_prime * neg_c,
            key * (q - proof.s4),
            *(e.c2 * s for e, s in zip(result, proof.s_prime, strict=True)),
        ]
    )
    t42 = point_sum(
        [
            b_prime * neg_c,
            base_mul(q - proof.s4),
            *(e.c1 * s for e, s in zip(result, proof.s_prime, strict=True)),
        ]
    )
    if _final_challenge(transcript, proof.chain, t1, t2, t3, t41, t42, t_hat) != c:
        raise ProofError("the shuffle proof does not verify")


def encode_shuffle(result: Deck, proof: ShuffleProof) -> bytes:
    """A shuffle message body: the output deck, then the proof."""
    return encode_deck(result) + proof.to_bytes()


def decode_shuffle(data: bytes, count: int) -> tuple[Deck, ShuffleProof]:
    """Strictly parse a shuffle of ``count`` cards."""
    reader = Reader(data)
    deck = read_deck(reader, count)
    proof = ShuffleProof.read(reader, count)
    reader.end()
    return deck, proof
