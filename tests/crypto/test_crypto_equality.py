"""Plaintext-equality tests (``trutnet/crypto/equality.py``, 8.12): completeness over
several positions at once, and every way we know to break the blinding or the
opening: identity blinds, a wrong exponent on one side, a seat forcing a match, a
wrong share, errors that cancel without the weights, replays, swapped positions."""

from __future__ import annotations

import dataclasses

import pytest

from trutnet.crypto import (
    Blinds,
    CardTable,
    Ciphertext,
    Context,
    CryptoError,
    DecodeError,
    KeyPair,
    ProofError,
    SeededRandom,
    ShareBatch,
    blind,
    blinded,
    equal,
    joint_key,
    make_shares,
    verify_blinds,
    verify_shares,
)
from trutnet.crypto.group import IDENTITY, G, base_mul, random_scalar

CTX = Context(4, b"table-1", 2, "locate/blind")
OPEN_CTX = CTX.with_step("locate/unblind")
SEATS = 4
POSITIONS = list(range(20, 32))  # K = 12
HOLDS = [3, 9, 9, 14, 0, 9, 31, 5, 6, 7, 9, 2]  # the card index at each position
TARGET = 9


class Pet:
    """Four seats, a joint key, twelve ciphertexts of known cards."""

    def __init__(self, seed: int = 5) -> None:
        self.rng = SeededRandom(seed)
        self.cards = CardTable("french32", 32)
        self.keys = [KeyPair.generate(self.rng) for _ in range(SEATS)]
        self.publics = [k.public for k in self.keys]
        self.joint = joint_key(self.publics)
        self.cts = [
            Ciphertext(IDENTITY, self.cards.points[i]).reencrypt(
                self.joint, random_scalar(self.rng)
            )
            for i in HOLDS
        ]
        self.target = [self.cards.points[TARGET]] * len(HOLDS)

    def blinds(self, context: Context = CTX) -> list[Blinds]:
        return [
            blind(self.publics[s], s, POSITIONS, self.cts, self.target, context, self.rng)
            for s in range(SEATS)
        ]

    def opens(self, joint: tuple[Ciphertext, ...]) -> list[ShareBatch]:
        return [
            make_shares(self.keys[s], s, POSITIONS, joint, OPEN_CTX, self.rng) for s in range(SEATS)
        ]


@pytest.fixture(scope="module")
def pet():
    table = Pet()
    batches = table.blinds()
    joint = blinded(batches)
    return table, batches, joint, table.opens(joint)


def found(joint, opens):
    return [POSITIONS[k] for k, ct in enumerate(joint) if equal(ct, [o.shares[k] for o in opens])]


def test_equal_positions_are_found_and_no_other(pet):
    table, batches, joint, opens = pet
    for s, batch in enumerate(batches):
        again = Blinds.from_bytes(batch.to_bytes())
        assert again == batch and len(batch.to_bytes()) == Blinds.size(len(POSITIONS))
        verify_blinds(again, table.publics[s], table.cts, table.target, CTX)
    for s, batch in enumerate(opens):
        verify_shares(ShareBatch.from_bytes(batch.to_bytes()), table.publics[s], joint, OPEN_CTX)
    holding = [p for p, card in zip(POSITIONS, HOLDS, strict=True) if card == TARGET]
    assert found(joint, opens) == holding
    assert len(found(joint, opens)) == 4


def test_a_card_that_is_nowhere_is_found_nowhere_and_leaves_random_points():
    table = Pet(seed=8)
    table.target = [table.cards.points[30]] * len(HOLDS)  # the 30th card is not dealt
    joint = blinded(table.blinds())
    opens = table.opens(joint)
    assert found(joint, opens) == []
    leftovers = {
        bytes(ct.c2 - sum((o.shares[k] for o in opens), IDENTITY)) for k, ct in enumerate(joint)
    }
    assert len(leftovers) == len(HOLDS)  # twelve distinct points: nothing to compare
    # and never the plain difference m - M, which would tell the card
    diffs = {bytes(table.cards.points[i] - table.cards.points[30]) for i in HOLDS}
    assert not leftovers & diffs


def test_each_position_may_have_its_own_card_point(pet):
    table, *_ = pet
    cards = [table.cards.points[i if k % 2 else 1] for k, i in enumerate(HOLDS)]
    batches = [
        blind(table.publics[s], s, POSITIONS, table.cts, cards, CTX, table.rng)
        for s in range(SEATS)
    ]
    joint = blinded(batches)
    assert found(joint, table.opens(joint)) == [p for k, p in enumerate(POSITIONS) if k % 2]


def test_an_identity_blind_is_refused(pet):
    table, batches, *_ = pet
    pairs = list(batches[1].pairs)
    pairs[4] = (IDENTITY, IDENTITY)  # r = 0: would hide the other seats' blinding
    forged = dataclasses.replace(batches[1], pairs=tuple(pairs))
    with pytest.raises(ProofError, match="identity"):
        verify_blinds(forged, table.publics[1], table.cts, table.target, CTX)
    with pytest.raises(CryptoError):  # and it has no encoding to be sent with
        forged.to_bytes()
    wire = bytearray(batches[1].to_bytes())
    wire[3 + 2 * 12 : 3 + 2 * 12 + 33] = bytes(33)
    with pytest.raises(DecodeError):
        Blinds.from_bytes(bytes(wire))


def test_a_wrong_exponent_on_one_side_is_refused(pet):
    table, batches, *_ = pet
    for side in (0, 1):
        pairs = [list(p) for p in batches[2].pairs]
        pairs[7][side] = pairs[7][side] * 2  # 2r on one base, r on the other
        forged = dataclasses.replace(batches[2], pairs=tuple(map(tuple, pairs)))
        with pytest.raises(ProofError, match="does not verify"):
            verify_blinds(forged, table.publics[2], table.cts, table.target, CTX)


def test_a_seat_cannot_force_a_match_or_cancel_the_blinding(pet):
    """The last seat, having seen the others' blinds, posts what would make position 0
    (which does not hold the card) decrypt to the identity: ``sum A = a*G`` and
    ``sum B = a*Y`` (then ``B - x*A = 0``), or cancel everything (``sum r = 0``). It
    cannot prove either pair, and the sum of a cancelled blinding is refused anyway."""
    table, batches, *_ = pet
    others = batches[:3]
    a = random_scalar(table.rng)
    for target in ((base_mul(a), table.joint * a), (IDENTITY, IDENTITY)):
        pairs = list(batches[3].pairs)
        sum_a = sum((b.pairs[0][0] for b in others), IDENTITY)
        sum_b = sum((b.pairs[0][1] for b in others), IDENTITY)
        pairs[0] = (target[0] - sum_a, target[1] - sum_b)
        forged = dataclasses.replace(batches[3], pairs=tuple(pairs))
        with pytest.raises(ProofError):
            verify_blinds(forged, table.publics[3], table.cts, table.target, CTX)
        joint = blinded([*others, forged]) if not target[0].is_identity else None
        if joint is None:
            with pytest.raises(ProofError, match="void"):
                blinded([*others, forged])
        else:  # unchecked, it would have worked: the proof is what stops it
            assert found(joint, table.opens(joint))[0] == POSITIONS[0]


def test_a_wrong_decryption_share_is_refused_even_if_errors_cancel(pet):
    table, _, joint, opens = pet
    shares = list(opens[1].shares)
    shares[2] = shares[2] + G
    with pytest.raises(ProofError):
        verify_shares(
            dataclasses.replace(opens[1], shares=tuple(shares)), table.publics[1], joint, OPEN_CTX
        )
    shares = list(opens[1].shares)
    shares[2], shares[5] = shares[2] + G, shares[5] - G  # cancels in an unweighted sum
    with pytest.raises(ProofError):
        verify_shares(
            dataclasses.replace(opens[1], shares=tuple(shares)), table.publics[1], joint, OPEN_CTX
        )
    shares = list(opens[1].shares)
    shares[2], shares[5] = shares[5], shares[2]  # swapped shares
    with pytest.raises(ProofError):
        verify_shares(
            dataclasses.replace(opens[1], shares=tuple(shares)), table.publics[1], joint, OPEN_CTX
        )


def test_a_forged_challenge_or_response_is_refused(pet):
    table, batches, *_ = pet
    batch = batches[0]
    responses = list(batch.responses)
    responses[11] = (responses[11] + 1) % (2**255)
    for forged in (
        dataclasses.replace(batch, challenge=(batch.challenge + 1)),
        dataclasses.replace(batch, responses=tuple(responses)),
    ):
        with pytest.raises(ProofError):
            verify_blinds(forged, table.publics[0], table.cts, table.target, CTX)


def test_a_blinding_replayed_anywhere_else_is_refused(pet):
    table, batches, *_ = pet
    batch = batches[0]
    key, cts, cards = table.publics[0], table.cts, table.target
    elsewhere = [
        (batch, key, cts, cards, CTX.with_step("locate/other")),  # another step
        (batch, key, cts, cards, Context(4, b"table-1", 3, "locate/blind")),  # round
        (batch, key, cts, cards, Context(4, b"table-2", 2, "locate/blind")),  # table
        (batch, key, cts, cards, Context(3, b"table-1", 2, "locate/blind")),  # version
        (dataclasses.replace(batch, seat=1), table.publics[1], cts, cards, CTX),  # author
        (batch, key, cts, [table.cards.points[3]] * 12, CTX),  # another card
        (
            dataclasses.replace(batch, positions=tuple(p + 1 for p in POSITIONS)),
            key,
            cts,
            cards,
            CTX,
        ),  # other positions
        (batch, key, [*cts[1:], cts[0]], cards, CTX),  # other ciphertexts
    ]
    for forged, public, ciphertexts, points, context in elsewhere:
        with pytest.raises(ProofError):
            verify_blinds(forged, public, ciphertexts, points, context)


def test_swapped_positions_are_refused(pet):
    table, batches, *_ = pet
    batch = batches[0]
    swapped = dataclasses.replace(
        batch,
        pairs=(batch.pairs[1], batch.pairs[0], *batch.pairs[2:]),
        responses=(batch.responses[1], batch.responses[0], *batch.responses[2:]),
    )
    with pytest.raises(ProofError):
        verify_blinds(swapped, table.publics[0], table.cts, table.target, CTX)
    both = dataclasses.replace(swapped, positions=(21, 20, *POSITIONS[2:]))
    cts = [table.cts[1], table.cts[0], *table.cts[2:]]
    with pytest.raises(ProofError):  # even with the ciphertexts swapped alike
        verify_blinds(both, table.publics[0], cts, table.target, CTX)


def test_strict_encoding_and_shapes(pet):
    table, batches, *_ = pet
    wire = batches[0].to_bytes()
    for bad in (wire[:-1], wire + b"\0", b"\0\0\0", wire[:1] + b"\0\0" + wire[3:]):
        with pytest.raises(DecodeError):
            Blinds.from_bytes(bad)
    with pytest.raises(ProofError):  # fewer ciphertexts than pairs
        verify_blinds(batches[0], table.publics[0], table.cts[:-1], table.target[:-1], CTX)
    with pytest.raises(ProofError, match="identity component"):  # an open deck's card
        blind(table.publics[0], 0, [0], [Ciphertext(IDENTITY, G)], [G + G], CTX, table.rng)
    with pytest.raises(CryptoError):
        blinded([batches[0], dataclasses.replace(batches[1], positions=(1,) * 12)])


def test_the_known_answer_blinding_verifies():
    """The batch of tests/vectors/crypto.json (docs/protocol.md 8.11) is valid, and its
    pair is 11 times the bases."""
    import json

    from tests.crypto.crypto_vectors import PATH
    from trutnet.crypto import decode_point

    vector = json.loads(PATH.read_text())["equality"]
    ciphertext = Ciphertext(
        *(decode_point(bytes.fromhex(vector["ciphertext"][k])) for k in ("c1", "c2"))
    )
    card = decode_point(bytes.fromhex(vector["card"]))
    batch = Blinds.from_bytes(bytes.fromhex(vector["batch"]))
    verify_blinds(
        batch, base_mul(5), [ciphertext], [card], Context(4, b"table-1", 3, "locate/blind")
    )
    assert batch.pairs[0] == (ciphertext.c1 * 11, (ciphertext.c2 - card) * 11)
    assert (ciphertext.c2 - card) * 11 == ciphertext.c1 * 11 * 12  # it holds the card
