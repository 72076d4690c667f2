"""The encrypted decks of a table and their decryption shares (7.4, 8.6-8.8; sans-I/O).

A table knows a game's decks only as the engine declares them
(:class:`~trutnet.engine.hidden.Deck`: a name and its cards in encoding order).
:class:`DeckLedger` holds the ciphertexts of every deck as last shuffled and every
verified decryption share of their positions; a position's card can be read once
every seat's share of it is known. Share batches number positions as *table
positions*: the sizes of the decks before it in ``Game.decks()``, plus the index, so
that one batch may cover several decks.

A :class:`ShareRound` collects shares, every seat that has some to post in seat
order: a **private** round (``disclose``) shows positions to their owners (every
other seat posts its shares of them); a **public** round (``reveal``) shows positions
to everyone (every seat posts the shares it has not posted yet). A seat never posts
its share of a position shown to it alone, so that position stays its secret until it
reveals it itself, its own share in the entry that reveals it (a play, 7.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from trutnet.crypto import (
    CardTable,
    Context,
    CryptoError,
    KeyPair,
    ShareBatch,
    combine,
    make_shares,
    open_deck,
    verify_shares,
)
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import Point, RandomBytes
from trutnet.engine.hidden import Deck, Pos
from trutnet.protocol.schema import Rejected

EVERYONE = -1
"""The owner of a public round's positions."""


class DeckLedger:
    """The decks in play, encrypted, and every verified share of their positions."""

    def __init__(self, decks: Sequence[Deck]) -> None:
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
        if offset > 2**16:
            raise CryptoError("the decks of a game hold at most 65,536 cards in all")
        self.ciphertexts: dict[str, tuple[Ciphertext, ...]] = {}  # each deck as last shuffled
        self.shares: dict[Pos, dict[int, Point]] = {}  # position -> seat -> verified share
        self.revealed: dict[Pos, str] = {}  # positions shown to everyone -> card

    # -------------------------------------------------------------- decks

    def open(self, deck: str) -> tuple[Ciphertext, ...]:
        """The open deck of ``deck`` (8.6): what its first shuffle starts from."""
        return open_deck(self.tables[deck].points)

    def install(self, deck: str, ciphertexts: tuple[Ciphertext, ...]) -> None:
        """A deck freshly shuffled: its positions are new, nothing of them is known."""
        self.ciphertexts[deck] = ciphertexts
        for pos in [p for p in self.shares if p.deck == deck]:
            del self.shares[pos]
        for pos in [p for p in self.revealed if p.deck == deck]:
            del self.revealed[pos]

    def clear(self) -> None:
        """Forget every deck (the seats' keys changed, 7.7)."""
        self.ciphertexts, self.shares, self.revealed = {}, {}, {}

    def number(self, pos: Pos) -> int:
        """The table position of ``pos``, which must be a position of a shuffled deck."""
        deck = self.ciphertexts.get(pos.deck)
        if deck is None or not 0 <= pos.index < len(deck):
            raise Rejected("hidden", f"{pos} is no position of a deck in play")
        return self.offsets[pos.deck] + pos.index

    def ciphertext(self, pos: Pos) -> Ciphertext:
        self.number(pos)
        return self.ciphertexts[pos.deck][pos.index]

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
            verify_shares(batch, key, [self.ciphertext(p) for p in positions], context)
        except CryptoError as exc:
            raise Rejected("share-proof", str(exc)) from exc
        for pos, share in zip(positions, batch.shares, strict=True):
            self.shares.setdefault(pos, {})[seat] = share

    def card(self, pos: Pos, own: Sequence[Point] = ()) -> str:
        """The card at ``pos`` from the known shares (plus ``own``: an owner's own
        share, kept private); :class:`~trutnet.crypto.CryptoError` if it is no card."""
        point = combine(self.ciphertext(pos), [*self.shares.get(pos, {}).values(), *own])
        return self.specs[pos.deck].cards[self.tables[pos.deck].index_of(point)]


@dataclass
class ShareRound:
    """Shares being collected: ``owners`` maps a seat, or :data:`EVERYONE`, to the
    positions shown to it; ``todo`` what each seat still has to post; ``waiting`` the
    seats still to post, in seat order."""

    step: str  # the context step of its shares: "disclose" or "reveal"
    owners: dict[int, tuple[Pos, ...]]
    todo: dict[int, list[Pos]] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)

    @classmethod
    def plan(
        cls, step: str, owners: Mapping[int, Sequence[Pos]], ledger: DeckLedger, seats: int
    ) -> ShareRound:
        """Who posts what: each seat, the round's positions it does not own and has not
        posted a share of yet."""
        round_ = cls(step, {o: tuple(ps) for o, ps in owners.items() if ps})
        for seat in range(seats):
            theirs = [p for o, ps in round_.owners.items() if o != seat for p in ps]
            todo = ledger.missing(seat, theirs)
            if todo:
                round_.todo[seat] = todo
                round_.waiting.append(seat)
        return round_

    def positions_for(self, seat: int) -> list[Pos]:
        return list(self.todo.get(seat, []))
