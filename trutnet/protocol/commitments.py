"""Commitments at a table: joint random draws and sealed choices (7.4, 8.9; sans-I/O).

* **Joint random draws** (the engine's ``JointRandom``): every seat in seat order
  writes ``commit``, a commitment (8.9, context step ``draw/<label>``) to 32 random
  bytes, then every seat writes ``reveal`` with its bytes. The seed is
  ``SHA-256("trutnet/v1/draw" || v_0 || ... || v_{n-1})`` (fresh values each time: the
  commitments bind them to this table, round and draw); the draw is ``outcomes[k]``
  for ``k = draw(SHA-256(seed || u32(0)), len)``.
  When the engine asks for another joint draw right away (nothing disclosed, decided
  or checkpointed in between: a run of draws, such as a first dealer's), the same seed
  serves it with counter 1, then 2...; no seat could act on knowing it.
* **Sealed choices** (``SecretChoice`` then ``Open``): the seat writes ``seal`` with
  ``SHA-256("trutnet/v1/seal" || Context || u16(seat) || salt || action)``, where the
  context step is ``seal/<label>``, ``salt`` 32 secret random bytes and ``action`` the
  decision as written to the table (UTF-8). Its ``unseal`` later gives the salt and
  the action; every replica recomputes the commitment with the context of the round
  the seal was made in, and a mismatch stops the table with a blame on that seat.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from trutnet.crypto import Context
from trutnet.crypto.randomness import draw

SALT_BYTES = 32
SEAL_DOMAIN = b"trutnet/v1/seal"
DRAW_DOMAIN = b"trutnet/v1/draw"


def draw_index(seed: bytes, counter: int, bound: int) -> int:
    """The ``counter``-th joint draw in ``0..bound-1`` from a joint seed (no bias)."""
    return draw(hashlib.sha256(seed + counter.to_bytes(4, "big")).digest(), bound)[0]


def seal_commitment(context: Context, seat: int, salt: bytes, action: str) -> bytes:
    """The commitment of ``seat`` to ``action`` (its written notation) with ``salt``."""
    if len(salt) != SALT_BYTES:
        raise ValueError(f"a salt is {SALT_BYTES} bytes")
    return hashlib.sha256(
        SEAL_DOMAIN + context.encode() + seat.to_bytes(2, "big") + salt + action.encode()
    ).digest()


@dataclass
class JointDraw:
    """A commit-reveal in progress: every seat's commitment, then its value."""

    label: str
    commits: dict[int, bytes] = field(default_factory=dict)
    values: dict[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Sealed:
    """A seat's sealed choice, until it is opened: the commitment and the round (the
    context's) it was made in."""

    commit: bytes
    round: int
