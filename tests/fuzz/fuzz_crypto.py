"""Fuzz the crypto library's wire decoders: shuffles, share batches, sealed share
batches, plaintext-equality blindings, points, scalars, key proofs, decks, identity
keys and signatures.

Input: byte 0 picks the decoder, the rest is its input. Seeds are the real fields of
the corpus game's ``keys``, ``shuffle`` and ``shares`` entries, sealed batches and
blindings.
Property: a value or a ``CryptoError`` (``DecodeError``/``ProofError``), nothing else.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports(include=["trutnet"]):
    from trutnet.crypto import (
        Blinds,
        CardTable,
        Context,
        CryptoError,
        KeyPair,
        KeyProof,
        SealedShares,
        SeededRandom,
        ShareBatch,
        blind,
        decode_deck,
        decode_point,
        decode_scalar,
        decode_shuffle,
        open_deck,
        seal_shares,
    )
    from trutnet.crypto.identity import decode_public, verify
    from trutnet.crypto.shuffle import ShuffleProof
    from trutnet.protocol.envelope import parse_entry

from tests.fuzz import common

NAME = "crypto"
ALLOWED = (CryptoError,)
CARDS = 32

DECODERS = [
    lambda d: decode_shuffle(d, CARDS),
    ShareBatch.from_bytes,
    decode_point,
    decode_scalar,
    lambda d: decode_scalar(d, True),
    KeyProof.from_bytes,
    decode_deck,
    lambda d: decode_deck(d, CARDS),
    lambda d: ShuffleProof.from_bytes(d, CARDS),
    decode_public,
    lambda d: verify(d[:32], d[32:96], d[96:]),
    SealedShares.from_bytes,
    Blinds.from_bytes,
]


def check(data: bytes) -> None:
    if not data:
        return
    DECODERS[data[0] % len(DECODERS)](data[1:])


def seeds() -> list[bytes]:
    _, wires = common.game()
    out = []
    for wire in wires[:40]:
        entry = parse_entry(wire)
        for field, value in entry.body.items():
            if not isinstance(value, bytes):
                continue
            picks = {
                "deck": [0, 6, 8],
                "shares": [1],
                "key": [2],
                "proof": [5, 3],
            }.get(field, [3, 4])
            out += [bytes([k]) + value for k in picks]
        out.append(bytes([10]) + entry.author + entry.signature + b"x")
    rng = SeededRandom("fuzz-sealed")
    author, recipient = KeyPair.generate(rng), KeyPair.generate(rng)
    deck = [c.reencrypt(author.public, 5) for c in open_deck(CardTable("french32", 32).points)]
    for count in (1, 3):
        batch = seal_shares(
            author, 0, recipient.public, 1, list(range(count)), deck[:count],
            Context(2, b"fuzz", 0, "disclose"), rng,
        )  # fmt: skip
        out.append(bytes([11]) + batch.to_bytes())
        cards = [CardTable("french32", 32).points[0]] * count
        blinds = blind(
            author.public, 0, list(range(count)), deck[:count], cards,
            Context(4, b"fuzz", 0, "locate/blind"), rng,
        )  # fmt: skip
        out.append(bytes([12]) + blinds.to_bytes())
    return out


test_one_input = common.guard(NAME, check, ALLOWED)

if __name__ == "__main__":
    common.main(NAME, test_one_input, seeds())
