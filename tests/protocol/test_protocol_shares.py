"""The table's decks and share rounds (``trutnet/protocol/shares.py``) without a game:
table positions of a deck grown by carried cards, what the ledger forgets of carried
positions, reading a carried card through its own deck's card table, and share rounds
that show a position to a second and a third seat (shares sealed to each new viewer),
with the real crypto."""

from __future__ import annotations

import pytest

from trutnet.crypto import (
    Context,
    KeyPair,
    SeededRandom,
    joint_key,
    open_sealed,
    own_share,
    shuffle,
)
from trutnet.engine.hidden import Deck, Pos
from trutnet.protocol.shares import EVERYONE, DeckLedger, ShareRound
from trutnet.protocol.table import Rejected

A = Deck("alpha", ("a1", "a2", "a3", "a4"))
B = Deck("beta", ("b1", "b2", "b3"))
CTX = Context(2, b"table-1", 0, "disclose")


class Table:
    """Three seats' keys and a ledger of A and B, shuffled for real."""

    def __init__(self, seats: int = 3, decks: tuple[Deck, ...] = (A, B)) -> None:
        self.rng = SeededRandom("shares")
        self.keys = [KeyPair.generate(self.rng) for _ in range(seats)]
        self.publics = [k.public for k in self.keys]
        self.joint = joint_key(self.publics)
        self.ledger = DeckLedger(decks)

    def deal(self, deck: str, carry: tuple[Pos, ...] = ()) -> None:
        cards = self.ledger.start(deck, carry)
        for _ in self.keys:  # every seat shuffles
            cards, _proof = shuffle(cards, self.joint, CTX, self.publics, self.rng)
        self.ledger.install(deck, cards, carry)

    def run(self, round_: ShareRound) -> dict[int, dict[Pos, str]]:
        """Every seat posts what the round asks (clear and sealed, each checked as a
        replica checks it); each owner then reads its positions."""
        for seat in list(round_.waiting):
            key = self.keys[seat]
            clear = round_.positions_for(seat)
            if clear:
                batch = self.ledger.make(key, seat, clear, CTX, self.rng)
                self.ledger.accept(batch.to_bytes(), seat, key.public, clear, CTX)
            sealed = round_.sealed_for(seat)
            wires = [
                self.ledger.seal(key, seat, self.publics[to], to, ps, CTX, self.rng).to_bytes()
                for to, ps in sealed.items()
            ]
            if sealed:
                batches = self.ledger.accept_sealed(wires, seat, self.publics, sealed, CTX)
                for to, delivered in batches.items():
                    round_.delivered.setdefault(to, []).append(delivered)
        seen: dict[int, dict[Pos, str]] = {}
        for owner, positions in round_.owners.items():
            if owner == EVERYONE:
                continue
            private: dict[Pos, dict[int, object]] = {}
            for ps, batch in round_.delivered.get(owner, ()):
                for pos, share in zip(ps, open_sealed(batch, self.keys[owner]), strict=True):
                    private.setdefault(pos, {})[batch.seat] = share
            for pos in positions:
                mine = private.setdefault(pos, {})
                mine[owner] = own_share(self.keys[owner], self.ledger.ciphertext(pos))
                seen.setdefault(owner, {})[pos] = self.ledger.card(pos, mine)
        return seen


def test_a_grown_deck_numbers_its_carried_slots_past_every_deck():
    """T = 7 cards in all: alpha 0..3, beta 4..6; beta's carried slots are T*2 + k."""
    table = Table()
    table.deal("alpha")
    table.deal("beta", (Pos("alpha", 1), Pos("alpha", 3)))
    ledger = table.ledger
    assert [ledger.number(Pos("beta", i)) for i in range(5)] == [4, 5, 6, 14, 15]
    assert [ledger.number(Pos("alpha", i)) for i in (0, 2)] == [0, 2]
    for gone in (Pos("alpha", 1), Pos("alpha", 3), Pos("beta", 5)):
        with pytest.raises(Rejected, match="no position of a deck in play"):
            ledger.number(gone)
    table.deal("alpha", (Pos("beta", 4),))  # alpha's carried slot: T*1 + 0
    assert ledger.number(Pos("alpha", 4)) == 7 and ledger.number(Pos("alpha", 1)) == 1
    with pytest.raises(Rejected):
        ledger.number(Pos("beta", 4))


def test_a_carried_card_is_read_through_its_own_decks_card_table():
    table = Table(2)
    table.deal("alpha")
    carry = (Pos("alpha", 0), Pos("alpha", 2))
    table.run(ShareRound.plan("reveal", {EVERYONE: carry}, table.ledger, 2))
    carried = [table.ledger.card(p) for p in carry]
    table.deal("beta", carry)
    positions = tuple(Pos("beta", i) for i in range(5))
    table.run(ShareRound.plan("reveal", {EVERYONE: positions}, table.ledger, 2))
    cards = [table.ledger.card(p) for p in positions]
    assert sorted(cards) == sorted([*B.cards, *carried])
    # Carried again, with a deck that carried before: still read as what it is.
    table.deal("beta", tuple(p for p, c in zip(positions, cards, strict=True) if c[0] == "a"))
    again = tuple(Pos("beta", i) for i in range(5))
    table.run(ShareRound.plan("reveal", {EVERYONE: again}, table.ledger, 2))
    assert sorted(table.ledger.card(p) for p in again) == sorted(cards)


def test_the_ledger_forgets_the_shares_and_reveals_of_carried_positions():
    table = Table(2)
    table.deal("alpha")
    pos = Pos("alpha", 2)
    table.run(ShareRound.plan("reveal", {EVERYONE: (pos,)}, table.ledger, 2))
    table.ledger.revealed[pos] = table.ledger.card(pos)
    assert table.ledger.complete(pos, 2)
    table.deal("beta", (pos,))
    assert pos not in table.ledger.shares and pos not in table.ledger.revealed
    assert not table.ledger.complete(Pos("beta", 3), 2)  # the carried card, fresh


@pytest.mark.parametrize(
    "deck,carry,why",
    [
        ("gamma", (), "not one of its decks"),
        ("beta", (Pos("alpha", 0), Pos("alpha", 0)), "twice"),
        ("beta", (Pos("alpha", 9),), "no position of a deck in play"),
        ("beta", (Pos("beta", 0),), "no position of a deck in play"),  # beta not dealt yet
        ("alpha", (Pos("alpha", 0),), None),  # a deck may carry its own old position
    ],
)
def test_a_shuffle_refuses_a_bad_carry(deck, carry, why):
    table = Table(2)
    table.deal("alpha")
    if why is None:
        assert len(table.ledger.start(deck, carry)) == len(A) + len(carry)
        return
    with pytest.raises(Rejected, match=why) as exc:
        table.ledger.start(deck, carry)
    assert exc.value.rule == "hidden"


def test_a_deck_grows_to_every_decks_cards_at_most_and_names_stay_distinct():
    table = Table(2)
    table.deal("alpha")
    table.deal("beta", tuple(Pos("alpha", i) for i in range(4)))  # 7 = T: allowed
    with pytest.raises(Rejected, match="may grow to 7 cards"):
        table.ledger.start("alpha", tuple(Pos("beta", i) for i in range(4)))
    twin = Table(2, (A, Deck("twin", ("a1", "x"))))
    twin.deal("alpha")
    with pytest.raises(Rejected, match="card name in common"):
        twin.ledger.start("twin", (Pos("alpha", 0),))


def _viewers(owners: dict[int, tuple[Pos, ...]], before: dict[int, set[Pos]]) -> dict:
    seen = {s: set(ps) for s, ps in before.items()}
    for s, ps in owners.items():
        seen.setdefault(s, set()).update(ps)
    return {p: {s for s, ps in seen.items() if p in ps} for ps in owners.values() for p in ps}


def test_a_second_viewer_gets_the_first_viewers_share_sealed_and_reads_the_card():
    """Seat 0 is shown alpha@1 (seats 1 and 2 post in the clear); then seat 1 is: only
    seat 0 writes, sealing its share to seat 1; seat 1 reads the card seat 0 read,
    while the public shares still lack seat 0's."""
    table = Table()
    table.deal("alpha")
    pos = Pos("alpha", 1)
    first = ShareRound.plan("disclose", {0: (pos,)}, table.ledger, 3, {pos: {0}})
    assert first.todo == {1: [pos], 2: [pos]} and not first.sealed
    card = table.run(first)[0][pos]
    second = ShareRound.plan("disclose", {1: (pos,)}, table.ledger, 3, {pos: {0, 1}})
    assert second.waiting == [0] and second.sealed == {0: {1: [pos]}} and not second.todo
    assert table.run(second) == {1: {pos: card}}
    assert set(table.ledger.shares[pos]) == {1, 2}  # seat 0's never public
    # A third viewer: seats 0 and 1 seal to it; seat 2's own share is public already.
    third = ShareRound.plan("disclose", {2: (pos,)}, table.ledger, 3, {pos: {0, 1, 2}})
    assert third.waiting == [0] and third.sealed == {0: {2: [pos]}}  # seat 1's is public
    assert table.run(third) == {2: {pos: card}}


def test_two_viewers_in_one_round_seal_to_each_other():
    table = Table()
    table.deal("alpha")
    p, q = Pos("alpha", 0), Pos("alpha", 3)
    owners = {0: (p, q), 1: (p,)}
    round_ = ShareRound.plan("disclose", owners, table.ledger, 3, _viewers(owners, {}))
    assert round_.todo == {1: [q], 2: [p, q]}
    assert round_.sealed == {0: {1: [p]}, 1: {0: [p]}}
    seen = table.run(round_)
    assert seen[0][p] == seen[1][p] and set(seen[0]) == {p, q}
    assert set(table.ledger.shares[p]) == {2}  # neither viewer's share is public
    # A third seat shown p later gets both viewers' shares, sealed.
    later = ShareRound.plan("disclose", {2: (p,)}, table.ledger, 3, {p: {0, 1, 2}})
    assert later.sealed == {0: {2: [p]}, 1: {2: [p]}} and not later.todo
    assert table.run(later) == {2: {p: seen[0][p]}}
    # A public reveal then asks the clear shares of the seats that never posted one.
    public = ShareRound.plan("reveal", {EVERYONE: (p,)}, table.ledger, 3)
    assert public.todo == {0: [p], 1: [p]} and not public.sealed


def test_a_sealed_batch_that_is_not_the_planned_one_is_refused():
    table = Table()
    table.deal("alpha")
    pos, other = Pos("alpha", 1), Pos("alpha", 2)
    table.run(ShareRound.plan("disclose", {0: (pos, other)}, table.ledger, 3, {}))
    plan = {1: [pos]}
    key = table.keys[0]

    def seal(to: int, positions: list[Pos], context: Context = CTX) -> bytes:
        publics = table.publics
        return table.ledger.seal(key, 0, publics[to], to, positions, context, table.rng).to_bytes()

    good = seal(1, [pos])
    table.ledger.accept_sealed([good], 0, table.publics, plan, CTX)
    cases = [
        ([], "schema"),
        ([good, good], "schema"),
        (good, "schema"),
        (["x"], "schema"),
        ([good + b"\x00"], "schema"),
        ([good[:-1]], "share-proof"),
        ([seal(2, [pos])], "shares"),  # sealed to another seat
        ([seal(1, [other])], "shares"),  # another position
        ([seal(1, [pos], CTX.with_step("reveal"))], "share-proof"),  # another context
    ]
    for data, rule in cases:
        with pytest.raises(Rejected) as exc:
            table.ledger.accept_sealed(data, 0, table.publics, plan, CTX)
        assert exc.value.rule == rule, (data, exc.value)
    with pytest.raises(Rejected) as exc:  # seat 0's batch offered as seat 2's
        table.ledger.accept_sealed([good], 2, table.publics, plan, CTX)
    assert exc.value.rule == "shares"
