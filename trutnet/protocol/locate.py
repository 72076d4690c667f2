"""A ``Locate`` at a table: which positions hold a card, by plaintext-equality tests
(7.4, 8.12; sans-I/O).

The engine asks ``Locate(positions, card, then)``. The table runs two unordered rounds
(7.2) in which every seat writes:

* ``blind``: the seat's blinding of each position's ciphertext against the card's
  encoding (:func:`trutnet.crypto.blind`, context step ``locate/blind``);
* ``unblind``: once every blinding is in, the seat's decryption shares of the joint
  blinded ciphertexts (the share batch of 8.8, context step ``locate/unblind``).

A position holds the card iff its blinded ciphertext decrypts to the identity. The
card's encoding is taken from the first deck, in ``Game.decks()`` order, among those
whose cards the position's deck may hold (its own, and the decks its shuffles carried
cards of), that names it (:meth:`~.shares.DeckLedger.encoding`).
Positions are tested in table order. Nothing here is secret: a seat's blinding
exponents are drawn, used and dropped while it writes its entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trutnet.crypto import (
    Blinds,
    Context,
    CryptoError,
    KeyPair,
    ShareBatch,
    blind,
    blinded,
    equal,
    make_shares,
    verify_blinds,
    verify_shares,
)
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import POINT_BYTES, SCALAR_BYTES, Point, RandomBytes
from trutnet.engine.hidden import Locate, Pos
from trutnet.protocol.schema import Rejected
from trutnet.protocol.shares import DeckLedger

BLIND_STEP = "locate/blind"
UNBLIND_STEP = "locate/unblind"


def share_batch_size(count: int) -> int:
    """Bytes of a share batch of ``count`` shares (8.8)."""
    return 3 + count * (2 + POINT_BYTES) + 2 * SCALAR_BYTES


@dataclass
class LocateRound:
    """A ``Locate`` in progress: what is tested, then what every seat posted."""

    step: Locate
    positions: tuple[Pos, ...]  # in table order
    numbers: tuple[int, ...]  # their table positions
    ciphertexts: tuple[Ciphertext, ...]
    cards: tuple[Point, ...]  # the card's encoding, for each position
    blinds: dict[int, Blinds] = field(default_factory=dict)
    joint: tuple[Ciphertext, ...] = ()  # the joint blinded ciphertexts
    shares: dict[int, tuple[Point, ...]] = field(default_factory=dict)

    @classmethod
    def plan(cls, step: Locate, ledger: DeckLedger) -> LocateRound:
        """The tests ``step`` asks for; :class:`Rejected` if a position is not in play or
        cannot hold the card."""
        positions = tuple(ledger.sort(step.positions))
        return cls(
            step,
            positions,
            tuple(ledger.number(p) for p in positions),
            tuple(ledger.ciphertext(p) for p in positions),
            tuple(ledger.encoding(p, step.card) for p in positions),
        )

    # ---------------------------------------------------------------- blind

    def make_blind(self, public: Point, seat: int, context: Context, rng: RandomBytes) -> bytes:
        return blind(
            public, seat, self.numbers, self.ciphertexts, self.cards, context, rng
        ).to_bytes()

    def check_blind(self, data: bytes, seat: int, key: Point, context: Context) -> Blinds:
        """``seat``'s blinding of exactly this round's positions, verified."""
        try:
            batch = Blinds.from_bytes(data)
            if batch.seat != seat or batch.positions != self.numbers:
                raise Rejected("blind", f"a blinding of table positions {list(self.numbers)}")
            verify_blinds(batch, key, self.ciphertexts, self.cards, context)
        except CryptoError as exc:
            raise Rejected("blind-proof", str(exc)) from exc
        return batch

    def join(self) -> None:
        """Every seat's blinding is in: the joint blinded ciphertexts."""
        try:
            self.joint = blinded([self.blinds[s] for s in sorted(self.blinds)])
        except CryptoError as exc:
            raise Rejected("blind-proof", str(exc)) from exc

    # -------------------------------------------------------------- unblind

    def make_unblind(self, key: KeyPair, seat: int, context: Context, rng: RandomBytes) -> bytes:
        return make_shares(key, seat, self.numbers, self.joint, context, rng).to_bytes()

    def check_unblind(
        self, data: bytes, seat: int, key: Point, context: Context
    ) -> tuple[Point, ...]:
        """``seat``'s shares of the joint blinded ciphertexts, verified."""
        try:
            batch = ShareBatch.from_bytes(data)
            if batch.seat != seat or batch.positions != self.numbers:
                raise Rejected("shares", f"shares must cover table positions {list(self.numbers)}")
            verify_shares(batch, key, self.joint, context)
        except CryptoError as exc:
            raise Rejected("share-proof", str(exc)) from exc
        return batch.shares

    def found(self) -> tuple[Pos, ...]:
        """The positions that hold the card, once every seat's shares are in."""
        seats = sorted(self.shares)
        return tuple(
            pos
            for k, (pos, ct) in enumerate(zip(self.positions, self.joint, strict=True))
            if equal(ct, [self.shares[s][k] for s in seats])
        )
