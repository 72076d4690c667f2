"""The proofs and signatures one process has checked (:class:`CheckedProofs`), so
that the replicas of the seats it plays check each once between them (sans-I/O).

A process that plays several seats (a host and its bots) keeps a replica per seat,
because each seat's game state knows that seat's cards and no other's. Checking a
shuffle proof is the costliest step of a hand, and it is the same statement for every
one of those replicas: the same input deck, output deck, keys, context and proof. So
the replicas share one :class:`CheckedProofs`, which remembers the SHA-256 digest of
each statement that passed, and a replica that meets a statement already there takes
it as checked. So with each entry's signature (:meth:`CheckedProofs.signed_once`),
and a shuffle's deck read into points (:meth:`CheckedProofs.decoded`, shared as is).
A proof that fails is never remembered: every replica refuses it and
blames its author as before.

A replica also *vouches* for the proofs its own seat has just made (it never checks
those, 7.4), so its sibling replicas do not check them either. That is why a
:class:`CheckedProofs` is shared only within one trust domain: the seats that one
process plays, whose secrets it already holds. Two peers that do not trust each other
never share one (each replica has its own unless it is given one), and nothing a peer
receives from the network can put a digest here without passing the check.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from trutnet.crypto.elgamal import Ciphertext

# Digests kept, most recently used last: a hand of the largest table checks a few dozen
# proofs and a few hundred signatures; this keeps many hands' worth while bounding
# memory (32 bytes each).
LIMIT = 4096
DECODED = 16  # shuffles kept decoded (each a deck of points and its proof)


def deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    """A deck's ciphertexts for a statement: the open deck's cards hold the identity,
    which has no encoding of its own; it stands as 33 zero bytes (no point's)."""
    none = bytes(33)
    return b"".join(
        (none if c.c1.is_identity else bytes(c.c1)) + (none if c.c2.is_identity else bytes(c.c2))
        for c in deck
    )


def statement(kind: str, *parts: bytes) -> bytes:
    """The bytes that stand for one proof's statement: its kind, then each part (the
    context, keys, decks, the proof itself) prefixed with its length, so that two
    different statements never give the same bytes."""
    return b"".join([kind.encode(), *(len(part).to_bytes(4, "big") + part for part in parts)])


class CheckedProofs:
    """The digests of the proof statements that passed their check in this process."""

    def __init__(self, limit: int = LIMIT, *, trust_own: bool = True) -> None:
        self._digests: OrderedDict[bytes, None] = OrderedDict()
        self._limit = limit
        # False: a seat's own proofs are checked by a sibling too, so that every proof
        # is checked exactly once (the tests' whole tables in one process)
        self.trust_own = trust_own
        self.checks = 0  # how many proofs were checked here
        self.skipped = 0  # how many were found already checked (or vouched for)
        self.signatures = 0  # entry signatures verified here
        self.signatures_skipped = 0  # and found verified already
        self._decoded: OrderedDict[bytes, Any] = OrderedDict()

    def once(self, statement: bytes, check: Callable[[], None]) -> None:
        """Run ``check`` (which raises if the proof fails) unless ``statement`` passed
        before here; remember it once it passes."""
        digest = hashlib.sha256(statement).digest()
        if digest in self._digests:
            self._digests.move_to_end(digest)
            self.skipped += 1
            return
        check()
        self.checks += 1
        self._remember(digest)

    def signed_once(self, wire: bytes, check: Callable[[], None]) -> None:
        """Run ``check`` (an entry's signature, which raises if it does not verify)
        unless the very same signed bytes verified here before; remember them once they
        do. A signature verifies or not whoever reads it: the replicas of one process
        check each entry's once between them."""
        digest = hashlib.sha256(statement("signature", wire)).digest()
        if digest in self._digests:
            self._digests.move_to_end(digest)
            self.signatures_skipped += 1
            return
        check()
        self.signatures += 1
        self._remember(digest)

    def signed_before(self, wire: bytes) -> bool:
        """Whether the very same signed bytes verified here before (and were read as a
        canonical entry then: a parse checks that first)."""
        return hashlib.sha256(statement("signature", wire)).digest() in self._digests

    def decoded(self, data: bytes, count: int, decode: Callable[[bytes, int], Any]) -> Any:
        """``decode(data, count)``, once for the same bytes (the last :data:`DECODED`
        kept): a shuffle's deck is read into points once for all local replicas. What
        ``decode`` returns must be immutable (it is shared); it raises as it would."""
        key = hashlib.sha256(statement("decoded", count.to_bytes(4, "big"), data)).digest()
        if key in self._decoded:
            self._decoded.move_to_end(key)
            return self._decoded[key]
        value = decode(data, count)
        self._decoded[key] = value
        while len(self._decoded) > DECODED:
            self._decoded.popitem(last=False)
        return value

    def vouch(self, statement: bytes) -> None:
        """Remember ``statement`` unchecked: its proof was made in this process."""
        if self.trust_own:
            self._remember(hashlib.sha256(statement).digest())

    def _remember(self, digest: bytes) -> None:
        self._digests[digest] = None
        self._digests.move_to_end(digest)
        while len(self._digests) > self._limit:
            self._digests.popitem(last=False)
