"""Known-answer vectors for the crypto encodings (``tests/vectors/crypto.json``).

Regenerate only on a deliberate, versioned change: ``python -m tests.crypto_vectors``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trutnet.crypto import CardTable, Context, SeededRandom, Transcript, fingerprint
from trutnet.crypto.group import base_mul, hash_to_point
from trutnet.crypto.randomness import commitment, draw
from trutnet.crypto.shuffle import _H, generators

PATH = Path(__file__).parent / "vectors" / "crypto.json"


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
    }


if __name__ == "__main__":
    PATH.write_text(json.dumps(build(), indent=1) + "\n")
    print(f"wrote {PATH}")
