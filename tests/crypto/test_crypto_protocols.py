"""Mental poker end to end: completeness for 2-6 seats, and soundness by tampering."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trutnet.crypto import (
    CardTable,
    Ciphertext,
    Context,
    KeyPair,
    ProofError,
    SeededRandom,
    ShareBatch,
    combine,
    decode_shuffle,
    encode_shuffle,
    joint_key,
    make_shares,
    open_deck,
    own_share,
    shuffle,
    verify_key,
    verify_shares,
    verify_shuffle,
)
from trutnet.crypto.group import G, base_mul, random_scalar

CTX = Context(1, b"table-1", 3, "shuffle/0")


class Table:
    """n seats with keys; helpers to shuffle and reveal."""

    def __init__(self, seats: int, deck: str = "french32", size: int = 32, seed: int = 1):
        self.rng = SeededRandom(seed)
        self.cards = CardTable(deck, size)
        self.keys = [KeyPair.generate(self.rng) for _ in range(seats)]
        self.publics = [k.public for k in self.keys]
        self.joint = joint_key(self.publics)

    def shuffle_chain(self, deck=None, context=CTX):
        deck = open_deck(self.cards.points) if deck is None else deck
        steps = []
        for seat in range(len(self.keys)):
            ctx = context.with_step(f"shuffle/{seat}")
            out, proof = shuffle(deck, self.joint, ctx, self.publics, self.rng)
            steps.append((deck, out, proof, ctx))
            deck = out
        return deck, steps

    def reveal(self, deck, positions, owner=None, context=None):
        """Private reveal to ``owner`` (or public with None): every share checked."""
        context = CTX.with_step("reveal") if context is None else context
        cts = [deck[p] for p in positions]
        shares = {}
        for seat, key in enumerate(self.keys):
            if seat == owner:
                continue
            batch = ShareBatch.from_bytes(
                make_shares(key, seat, positions, cts, context, self.rng).to_bytes()
            )
            verify_shares(batch, self.publics[seat], cts, context)
            shares[seat] = batch.shares
        out = []
        for k, ct in enumerate(cts):
            parts = [s[k] for s in shares.values()]
            if owner is not None:
                parts.append(own_share(self.keys[owner], ct))
            out.append(self.cards.index_of(combine(ct, parts)))
        return out


@pytest.mark.parametrize("seats", [2, 3, 4, 6])
@pytest.mark.parametrize("deck,size", [("french32", 32), ("spanish40", 40)])
def test_complete_deal_every_seat_count(seats, deck, size):
    table = Table(seats, deck, size, seed=seats * 100 + size)
    for seat, key in enumerate(table.keys):  # key setup with proofs of knowledge
        ctx = CTX.with_step("keys")
        verify_key(key.public, key.prove(ctx, seat, table.rng), ctx, seat)
    final, steps = table.shuffle_chain()
    for source, out, proof, ctx in steps:  # every replica checks every shuffle
        received, received_proof = decode_shuffle(encode_shuffle(out, proof), size)
        verify_shuffle(source, received, received_proof, table.joint, ctx, table.publics)
    hands = [table.reveal(final, [s, s + seats, s + 2 * seats], owner=s) for s in range(seats)]
    dealt = [c for hand in hands for c in hand]
    assert len(set(dealt)) == 3 * seats  # distinct cards
    rest = table.reveal(final, list(range(3 * seats, size)))  # public reveal of the rest
    assert sorted(dealt + rest) == list(range(size))
    # A public reveal of a dealt card shows the same card its owner saw privately.
    assert table.reveal(final, [0]) == [hands[0][0]]


def test_shuffle_is_a_real_permutation_not_the_identity():
    table = Table(2)
    final, _ = table.shuffle_chain()
    order = table.reveal(final, list(range(32)))
    assert sorted(order) == list(range(32)) and order != list(range(32))


def test_the_same_seed_gives_the_same_shuffle():
    a, b = Table(3, seed=9), Table(3, seed=9)
    assert a.shuffle_chain()[0] == b.shuffle_chain()[0]


# ------------------------------------------------------------------- soundness


@pytest.fixture(scope="module")
def small():
    table = Table(3, "custom-8", 8, seed=5)
    source = open_deck(table.cards.points)
    out, proof = shuffle(source, table.joint, CTX, table.publics, table.rng)
    verify_shuffle(source, out, proof, table.joint, CTX, table.publics)
    # A second shuffle, so the input deck is encrypted too.
    out2, proof2 = shuffle(out, table.joint, CTX, table.publics, table.rng)
    return table, out, out2, proof2


def rejected(table, source, out, proof, context=CTX, keys=None, joint=None):
    with pytest.raises(ProofError):
        verify_shuffle(
            source,
            out,
            proof,
            joint or table.joint,
            context,
            table.publics if keys is None else keys,
        )


def test_shuffle_that_drops_duplicates_or_replaces_a_card_is_rejected(small):
    table, source, out, proof = small
    rejected(table, source, out[:-1], proof)  # drop
    rejected(table, source, (out[0], *out[1:-1], out[0]), proof)  # duplicate
    fresh = Ciphertext(base_mul(7), table.cards.points[0] + table.joint * 7)
    rejected(table, source, (fresh, *out[1:]), proof)  # replace
    rejected(table, source, (out[1], out[0], *out[2:]), proof)  # reorder after proving
    reenc = out[0].reencrypt(table.joint, 11)
    rejected(table, source, (reenc, *out[1:]), proof)  # re-randomise after proving
    rejected(table, source[::-1], out, proof)  # another input deck


def test_shuffle_of_a_deck_with_a_substituted_card_cannot_be_proven(small):
    """An honest-looking proof for a deck where one card was swapped for another."""
    table, source, _, _ = small
    cheat = list(source)
    cheat[0] = cheat[1].reencrypt(table.joint, 5)  # card 1 twice, card 0 gone
    out, proof = shuffle(tuple(cheat), table.joint, CTX, table.publics, table.rng)
    rejected(table, source, out, proof)


def test_shuffle_proof_is_bound_to_its_context_and_keys(small):
    table, source, out, proof = small
    for context in (
        Context(2, CTX.table_id, CTX.round, CTX.step),
        Context(1, b"table-2", CTX.round, CTX.step),
        Context(1, CTX.table_id, 4, CTX.step),
        CTX.with_step("shuffle/1"),
    ):
        rejected(table, source, out, proof, context=context)
    rejected(table, source, out, proof, keys=table.publics[::-1])
    rejected(table, source, out, proof, joint=table.joint + G)


def test_every_field_of_a_shuffle_proof_is_checked(small):
    table, source, out, proof = small
    other = base_mul(12345)
    for field in dataclasses.fields(proof):
        value = getattr(proof, field.name)
        if isinstance(value, tuple):
            for i in range(len(value)):
                item = value[i]
                changed = item + other if not isinstance(item, int) else item + 1
                tampered = (*value[:i], changed, *value[i + 1 :])
                rejected(table, source, out, dataclasses.replace(proof, **{field.name: tampered}))
        else:
            rejected(table, source, out, dataclasses.replace(proof, **{field.name: value + 1}))
    for i in range(len(out)):  # every component of every output card
        for part in ("c1", "c2"):
            card = out[i]
            changed = dataclasses.replace(card, **{part: getattr(card, part) + other})
            rejected(table, source, (*out[:i], changed, *out[i + 1 :]), proof)


def test_key_proofs_reject_rogue_and_replayed_keys():
    table = Table(2)
    ctx = CTX.with_step("keys")
    proof = table.keys[0].prove(ctx, 0, table.rng)
    verify_key(table.publics[0], proof, ctx, 0)
    for public, context, seat in [
        (table.publics[0], ctx, 1),  # replayed as another seat's
        (table.publics[0], CTX.with_step("other"), 0),  # another context
        (table.publics[1] - table.publics[0], ctx, 0),  # rogue key, no secret known
        (table.publics[1], ctx, 0),  # someone else's key
    ]:
        with pytest.raises(ProofError):
            verify_key(public, proof, context, seat)
    with pytest.raises(ProofError):
        joint_key([table.publics[0], table.publics[0]])


def test_wrong_or_swapped_decryption_shares_are_rejected():
    table = Table(3)
    final, _ = table.shuffle_chain()
    positions = [0, 3, 6]
    cts = [final[p] for p in positions]
    ctx = CTX.with_step("reveal")
    good = [make_shares(k, s, positions, cts, ctx, table.rng) for s, k in enumerate(table.keys)]

    def bad(batch, seat=None, cts=cts, context=ctx):
        seat = batch.seat if seat is None else seat
        with pytest.raises(ProofError):
            verify_shares(batch, table.publics[seat], cts, context)

    wrong = list(good[0].shares)
    wrong[1] = cts[1].c1 * (table.keys[0].secret + 1)
    bad(dataclasses.replace(good[0], shares=tuple(wrong)))  # one wrong share
    bad(dataclasses.replace(good[0], shares=good[0].shares[::-1]))  # reordered
    bad(dataclasses.replace(good[0], seat=1), seat=1)  # seat 0's shares as seat 1's
    bad(good[0], seat=1)  # checked against another seat's key
    bad(good[0], cts=cts[::-1])  # other positions' ciphertexts
    bad(good[0], context=CTX.with_step("reveal/other"))  # replayed in another step
    bad(dataclasses.replace(good[0], positions=(0, 3, 7)))
    bad(dataclasses.replace(good[0], challenge=good[0].challenge + 1))
    bad(dataclasses.replace(good[0], response=good[0].response + 1))
    for s, batch in enumerate(good):
        verify_shares(batch, table.publics[s], cts, ctx)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**64), seats=st.integers(2, 4), size=st.integers(2, 10))
def test_random_tables_deal_and_verify(seed, seats, size):
    table = Table(seats, f"custom-{size}", size, seed=seed)
    final, steps = table.shuffle_chain()
    for source, out, proof, ctx in steps:
        verify_shuffle(source, out, proof, table.joint, ctx, table.publics)
    assert sorted(table.reveal(final, list(range(size)))) == list(range(size))


def test_random_scalar_is_nonzero_and_in_range():
    rng = SeededRandom(3)
    values = {random_scalar(rng) for _ in range(100)}
    assert len(values) == 100 and all(0 < v < 2**256 for v in values)
