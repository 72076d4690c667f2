"""Known-answer vectors for the crypto encodings (``tests/vectors/crypto.json``).

Regenerate only on a deliberate, versioned change: ``python -m tests.crypto.crypto_vectors``.
"""

from __future__ import annotations

import json
from typing import Any

from tests import TESTS
from trutnet.crypto import (
    CardTable,
    Ciphertext,
    Context,
    KeyPair,
    SeededRandom,
    Transcript,
    blind,
    fingerprint,
    seal_shares,
)
from trutnet.crypto.group import base_mul, hash_to_point
from trutnet.crypto.randomness import commitment, draw
from trutnet.crypto.shuffle import _H, generators

PATH = TESTS / "vectors" / "crypto.json"


class FixedScalars:
    """A random source that yields the given scalars, each as 64 bytes (8.1)."""

    def __init__(self, *scalars: int) -> None:
        self.scalars = list(scalars)

    def __call__(self, size: int) -> bytes:
        assert size == 64
        return self.scalars.pop(0).to_bytes(64, "big")


def sealed_vector() -> dict[str, Any]:
    """Seat 0 (secret 5) seals its share of one ciphertext, at table position 12, to
    seat 1 (secret 7): the card is french32 card 0 encrypted under the joint key with
    randomness 9; the sealing randomness is 11, the proof's nonces 13 and 17."""
    context = Context(2, b"table-1", 3, "disclose")
    first, second = KeyPair(5), KeyPair(7)
    card = CardTable("french32", 32).points[0]
    joint = first.public + second.public
    ciphertext = Ciphertext(base_mul(9), card + joint * 9)
    batch = seal_shares(
        first, 0, second.public, 1, [12], [ciphertext], context, FixedScalars(11, 13, 17)
    )
    return {
        "context": {"version": 2, "table_id": "table-1", "round": 3, "step": "disclose"},
        "secrets": {"author": 5, "recipient": 7},
        "ciphertext": {"c1": bytes(ciphertext.c1).hex(), "c2": bytes(ciphertext.c2).hex()},
        "randomness": {"r": 11, "k_key": 13, "k_rand": 17},
        "share": bytes(ciphertext.c1 * 5).hex(),
        "batch": batch.to_bytes().hex(),
    }


def equality_vector() -> dict[str, Any]:
    """Seat 0 (key 5*G) blinds the ciphertext of french32 card 0 under the joint key
    (5 + 7)*G with randomness 9, at table position 12, against card 0 itself (8.12):
    blinding exponent 11, proof nonce 13."""
    context = Context(4, b"table-1", 3, "locate/blind")
    card = CardTable("french32", 32).points[0]
    ciphertext = Ciphertext(base_mul(9), card + base_mul(12) * 9)
    batch = blind(base_mul(5), 0, [12], [ciphertext], [card], context, FixedScalars(11, 13))
    return {
        "context": {"version": 4, "table_id": "table-1", "round": 3, "step": "locate/blind"},
        "key": bytes(base_mul(5)).hex(),
        "ciphertext": {"c1": bytes(ciphertext.c1).hex(), "c2": bytes(ciphertext.c2).hex()},
        "card": bytes(card).hex(),
        "randomness": {"r": 11, "k": 13},
        "batch": batch.to_bytes().hex(),
    }


def build() -> dict[str, Any]:
    context = Context(1, b"table-1", 3, "shuffle/0")
    transcript = Transcript("trutnet/v1/example", context)
    transcript.append_points("point", [base_mul(1)])
    first = transcript.challenge("a")
    second = transcript.challenge("b")
    return {
        "description": "trutnet crypto known-answer vectors; see docs/protocol.md part 8",
        "hash_to_point": [
            {"domain": d, "message": m.hex(), "point": bytes(hash_to_point(d.encode(), m)).hex()}
            for d, m in [("test", b""), ("test", b"abc"), ("trutnet/v1/card/french32", b"\x00\x00")]
        ],
        "cards": {
            name: [bytes(p).hex() for p in CardTable(name, size).points]
            for name, size in [("french32", 32), ("spanish40", 40), ("custom-3", 3)]
        },
        "pedersen": {"h": bytes(_H).hex(), "h_i": [bytes(p).hex() for p in generators(4)]},
        "context": {
            "version": 1,
            "table_id": "table-1",
            "round": 3,
            "step": "shuffle/0",
            "encoding": context.encode().hex(),
        },
        "transcript": {
            "protocol": "trutnet/v1/example",
            "appended": "point=G",
            "challenge_a": hex(first),
            "challenge_b": hex(second),
        },
        "commitment": {
            "seat": 2,
            "value": "11" * 32,
            "commit": commitment(b"\x11" * 32, 2, context).hex(),
        },
        "draw": {"seed": "22" * 32, "bound": 6, "values": draw(b"\x22" * 32, 6, 10)},
        "drbg": {"seed": 7, "bytes": SeededRandom(7)(48).hex()},
        "fingerprint": {"public": "33" * 32, "fingerprint": fingerprint(b"\x33" * 32)},
        "sealed_shares": sealed_vector(),
        "equality": equality_vector(),
    }


if __name__ == "__main__":
    PATH.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {PATH}")
