"""The encrypted decks of a table and their decryption shares (7.4, 8.6-8.8; sans-I/O).

A table knows a game's decks only as the engine declares them
(:class:`~trutnet.engine.hidden.Deck`: a name and its cards in encoding order).
:class:`DeckLedger` holds the ciphertexts of every deck as last shuffled and every
verified decryption share of their positions; a position's card can be read once
every seat's share of it is known. Share batches number positions as *table
positions*: the sizes of the decks before it in ``Game.decks()``, plus the index, so
that one batch may cover several decks.

A shuffle may **carry** positions of other decks (``Shuffle(deck, then, carry)``):
the deck's own cards, freshly encrypted, then the carried ciphertexts, never
decrypted. A carried slot ``i >= len(deck)`` is table position
``T * (j + 1) + i - len(deck)``, where ``T`` is the number of cards of all decks and
``j`` the deck's index in ``Game.decks()``: past every deck's own numbers, and no deck
grows past ``T`` cards, so no two slots share a number. A carried position is gone
from its old deck (no share of it, no reveal, no number), and a card of the grown deck
is read through the card tables of every deck it may hold cards of.

A :class:`ShareRound` collects shares, every seat that has some to post in seat
order: a **private** round (``disclose``) shows positions to their owners (every
other seat posts its shares of them); a **public** round (``reveal``) shows positions
to everyone (every seat posts the shares it has not posted yet). A seat never posts in
the clear its share of a position it was shown privately, so that position stays
hidden from the seats that were not shown it until it is revealed to all (a play, its
own share in the entry that reveals it, 7.4). When such a position is shown to one
more seat, each seat that saw it before and has not posted its share **seals** its
share to the new viewer (:mod:`trutnet.crypto.sealed`): encrypted to that seat alone,
with a proof every replica checks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from trutnet.crypto import (
    CardTable,
    Context,
    CryptoError,
    KeyPair,
    SealedShares,
    ShareBatch,
    combine,
    make_shares,
    open_deck,
    seal_shares,
    verify_sealed,
    verify_shares,
)
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import Point, RandomBytes
from trutnet.engine.hidden import Deck, Pos
from trutnet.protocol.checked import CheckedProofs, deck_bytes, statement
from trutnet.protocol.schema import Rejected

EVERYONE = -1
"""The owner of a public round's positions."""
MAX_POSITIONS = 2**16  # share batches number table positions with a u16


class DeckLedger:
    """The decks in play, encrypted, and every verified share of their positions."""

    def __init__(self, decks: Sequence[Deck], checked: CheckedProofs | None = None) -> None:
        self.checked = CheckedProofs() if checked is None else checked  # each proof once
        self.specs: dict[str, Deck] = {}
        self.offsets: dict[str, int] = {}
        self.tables: dict[str, CardTable] = {}
        offset = 0
        for deck in decks:
            if deck.name in self.specs:
                raise CryptoError(f"two decks named {deck.name}")
            self.specs[deck.name] = deck
            self.offsets[deck.name] = offset
            self.tables[deck.name] = CardTable(deck.name, len(deck))
            offset += len(deck)
        if offset > MAX_POSITIONS:
            raise CryptoError("the decks of a game hold at most 65,536 cards in all")
        self.total = offset  # T: the cards of all decks, the most a deck may grow to
        self.ciphertexts: dict[str, tuple[Ciphertext, ...]] = {}  # each deck as last shuffled
        self.kinds: dict[str, tuple[str, ...]] = {}  # the decks whose cards each may hold
        self.gone: set[Pos] = set()  # positions carried into another shuffle
        self.shares: dict[Pos, dict[int, Point]] = {}  # position -> seat -> verified share
        self.revealed: dict[Pos, str] = {}  # positions shown to everyone -> card

    # -------------------------------------------------------------- decks

    def start(self, deck: str, carry: Sequence[Pos] = ()) -> tuple[Ciphertext, ...]:
        """What the first shuffle of ``deck`` starts from: its open deck (8.6), then the
        ciphertexts of the ``carry`` positions (distinct positions in play)."""
        if deck not in self.specs:
            raise Rejected("hidden", f"the game shuffles {deck}, not one of its decks")
        if len(set(carry)) != len(carry):
            raise Rejected("hidden", f"a shuffle of {deck} carries a position twice")
        carried = tuple(self.ciphertext(p) for p in carry)  # each one in play
        size = len(self.specs[deck]) + len(carry)
        if size > self.total:
            raise Rejected("hidden", f"{deck} may grow to {self.total} cards, not {size}")
        last = self.total * (list(self.specs).index(deck) + 1) + len(carry) - 1
        if carry and last >= MAX_POSITIONS:
            raise Rejected("hidden", f"{deck}'s carried cards have no table positions")
        names = self._kinds(deck, carry)
        cards = [c for name in names for c in self.specs[name].cards]
        if len(set(cards)) != len(cards):
            raise Rejected("hidden", f"{deck} would hold decks with a card name in common")
        return open_deck(self.tables[deck].points) + carried

    def _kinds(self, deck: str, carry: Iterable[Pos]) -> tuple[str, ...]:
        """The decks whose cards ``deck`` holds once shuffled with ``carry``, in order."""
        names = {deck}.union(*(self.kinds.get(p.deck, (p.deck,)) for p in carry))
        return tuple(n for n in self.specs if n in names)

    def install(
        self, deck: str, ciphertexts: tuple[Ciphertext, ...], carry: Sequence[Pos] = ()
    ) -> None:
        """A deck freshly shuffled (with ``carry`` carried into it): its positions are
        new, nothing of them is known; the carried positions are gone from their decks."""
        self.kinds[deck] = self._kinds(deck, carry)
        self.ciphertexts[deck] = ciphertexts
        stale = {p for p in (*self.shares, *self.revealed, *self.gone) if p.deck == deck}
        for pos in stale | set(carry):
            self.shares.pop(pos, None)
            self.revealed.pop(pos, None)
            self.gone.discard(pos)
        self.gone.update(p for p in carry if p.deck != deck)

    def clear(self) -> None:
        """Forget every deck (the seats' keys changed, 7.7)."""
        self.ciphertexts, self.shares, self.revealed = {}, {}, {}
        self.kinds, self.gone = {}, set()

    def number(self, pos: Pos) -> int:
        """The table position of ``pos``, which must be a position of a shuffled deck."""
        deck = self.ciphertexts.get(pos.deck)
        if deck is None or not 0 <= pos.index < len(deck) or pos in self.gone:
            raise Rejected("hidden", f"{pos} is no position of a deck in play")
        own = len(self.specs[pos.deck])
        if pos.index < own:
            return self.offsets[pos.deck] + pos.index
        return self.total * (list(self.specs).index(pos.deck) + 1) + pos.index - own

    def ciphertext(self, pos: Pos) -> Ciphertext:
        self.number(pos)
        return self.ciphertexts[pos.deck][pos.index]

    def encoding(self, pos: Pos, card: str) -> Point:
        """The encoding of ``card`` in the first deck (in ``Game.decks()`` order) among
        those ``pos`` may hold cards of (its own, and those its shuffles carried cards
        of) that names it: what a ``Locate`` tests ``pos`` against."""
        self.number(pos)
        for name in self.kinds.get(pos.deck, (pos.deck,)):
            cards = self.specs[name].cards
            if card in cards:
                return self.tables[name].points[cards.index(card)]
        raise Rejected("hidden", f"{pos} can hold no card {card!r}")

    def sort(self, positions: Iterable[Pos]) -> list[Pos]:
        return sorted(set(positions), key=self.number)

    # -------------------------------------------------------------- shares

    def missing(self, seat: int, positions: Iterable[Pos]) -> list[Pos]:
        """Those of ``positions`` whose share from ``seat`` is not known, in table order."""
        return self.sort(p for p in positions if seat not in self.shares.get(p, {}))

    def complete(self, pos: Pos, seats: int) -> bool:
        return len(self.shares.get(pos, {})) == seats

    def make(
        self, key: KeyPair, seat: int, positions: Sequence[Pos], context: Context, rng: RandomBytes
    ) -> ShareBatch:
        """This seat's share batch of ``positions`` (in table order)."""
        return make_shares(
            key,
            seat,
            [self.number(p) for p in positions],
            [self.ciphertext(p) for p in positions],
            context,
            rng,
        )

    def accept(
        self, data: bytes, seat: int, key: Point, positions: Sequence[Pos], context: Context
    ) -> None:
        """Verify ``seat``'s share batch of exactly ``positions`` and record its shares."""
        numbers = [self.number(p) for p in positions]
        try:
            batch = ShareBatch.from_bytes(data)
            if batch.seat != seat or list(batch.positions) != numbers:
                raise Rejected("shares", f"shares must cover table positions {numbers}")
            ciphertexts = [self.ciphertext(p) for p in positions]
            said = statement("shares", context.encode(), bytes(key), deck_bytes(ciphertexts), data)
            self.checked.once(said, partial(verify_shares, batch, key, ciphertexts, context))
        except CryptoError as exc:
            raise Rejected("share-proof", str(exc)) from exc
        for pos, share in zip(positions, batch.shares, strict=True):
            self.shares.setdefault(pos, {})[seat] = share

    def seal(
        self,
        key: KeyPair,
        seat: int,
        recipient: Point,
        to: int,
        positions: Sequence[Pos],
        context: Context,
        rng: RandomBytes,
    ) -> SealedShares:
        """This seat's shares of ``positions`` (in table order) sealed to seat ``to``."""
        return seal_shares(
            key,
            seat,
            recipient,
            to,
            [self.number(p) for p in positions],
            [self.ciphertext(p) for p in positions],
            context,
            rng,
        )

    def accept_sealed(
        self,
        data: Any,
        seat: int,
        keys: Sequence[Point],
        plan: Mapping[int, Sequence[Pos]],
        context: Context,
    ) -> dict[int, tuple[list[Pos], SealedShares]]:
        """Verify ``seat``'s sealed batches, one per recipient of ``plan`` (recipient ->
        positions) in increasing recipient order; returns them by recipient. Nothing
        public is recorded: only each recipient can open its batch."""
        if not isinstance(data, list) or len(data) != len(plan):
            raise Rejected("schema", f"field 'sealed' must be a list of {len(plan)} batches")
        out: dict[int, tuple[list[Pos], SealedShares]] = {}
        for wire, (to, positions) in zip(data, sorted(plan.items()), strict=True):
            numbers = [self.number(p) for p in positions]
            if not isinstance(wire, bytes) or len(wire) > SealedShares.size(len(numbers)):
                raise Rejected("schema", f"a sealed batch for seat {to} is {len(numbers)} shares")
            try:
                batch = SealedShares.from_bytes(wire)
                if (batch.seat, batch.to, list(batch.positions)) != (seat, to, numbers):
                    raise Rejected("shares", f"sealed to seat {to}: table positions {numbers}")
                ciphertexts = [self.ciphertext(p) for p in positions]
                ends = (bytes(keys[seat]), bytes(keys[to]))
                said = statement("sealed", context.encode(), *ends, deck_bytes(ciphertexts), wire)
                check = partial(verify_sealed, batch, keys[seat], keys[to], ciphertexts, context)
                self.checked.once(said, check)
            except CryptoError as exc:
                raise Rejected("share-proof", f"sealed to seat {to}: {exc}") from exc
            out[to] = (list(positions), batch)
        return out

    def card(self, pos: Pos, private: Mapping[int, Point] | None = None) -> str:
        """The card at ``pos`` from the known shares and ``private`` ones (seat ->
        share: a seat's own, and those sealed to it), read through the card table of
        each deck the position's deck may hold cards of;
        :class:`~trutnet.crypto.CryptoError` if it is no card."""
        shares = {**self.shares.get(pos, {}), **(private or {})}
        point = combine(self.ciphertext(pos), list(shares.values()))
        for name in self.kinds.get(pos.deck, (pos.deck,)):
            try:
                return self.specs[name].cards[self.tables[name].index_of(point)]
            except CryptoError:
                continue
        raise CryptoError(f"the decrypted point is not a card {pos} may hold")


@dataclass
class ShareRound:
    """Shares being collected: ``owners`` maps a seat, or :data:`EVERYONE`, to the
    positions shown to it; ``todo`` what each seat still has to post in the clear;
    ``sealed`` what each seat seals to each other seat; ``waiting`` the seats still to
    post, in seat order; ``delivered`` the verified sealed batches, by recipient."""

    step: str  # the context step of its shares: "disclose" or "reveal"
    owners: dict[int, tuple[Pos, ...]]
    todo: dict[int, list[Pos]] = field(default_factory=dict)
    sealed: dict[int, dict[int, list[Pos]]] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)
    delivered: dict[int, list[tuple[list[Pos], SealedShares]]] = field(default_factory=dict)

    @classmethod
    def plan(
        cls,
        step: str,
        owners: Mapping[int, Sequence[Pos]],
        ledger: DeckLedger,
        seats: int,
        viewers: Mapping[Pos, Collection[int]] | None = None,
    ) -> ShareRound:
        """Who posts what. Each seat gives the shares of the round's positions it does
        not own and has not posted yet: sealed to their owner if the seat is one of the
        position's ``viewers`` (the seats shown it privately, this round's owners
        included), else in the clear."""
        round_ = cls(step, {o: tuple(ps) for o, ps in owners.items() if ps})
        viewers = viewers or {}
        for seat in range(seats):
            clear: list[Pos] = []
            sealed: dict[int, list[Pos]] = {}
            for owner, positions in round_.owners.items():
                for pos in ledger.missing(seat, positions) if owner != seat else ():
                    if owner != EVERYONE and seat in viewers.get(pos, ()):
                        sealed.setdefault(owner, []).append(pos)
                    else:
                        clear.append(pos)
            if clear:
                round_.todo[seat] = ledger.sort(clear)
            if sealed:
                round_.sealed[seat] = {to: sealed[to] for to in sorted(sealed)}
            if clear or sealed:
                round_.waiting.append(seat)
        return round_

    def positions_for(self, seat: int) -> list[Pos]:
        return list(self.todo.get(seat, []))

    def sealed_for(self, seat: int) -> dict[int, list[Pos]]:
        """What ``seat`` seals in this round: recipient -> positions, in table order."""
        return dict(self.sealed.get(seat, {}))
