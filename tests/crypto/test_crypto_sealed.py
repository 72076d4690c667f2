"""Shares sealed to a second viewer (``trutnet/crypto/sealed.py``): completeness, that
only the recipient can open them, soundness by tampering, and strict encodings."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.crypto.test_crypto_protocols import Table
from trutnet.crypto import (
    Ciphertext,
    Context,
    CryptoError,
    DecodeError,
    KeyPair,
    ProofError,
    SealedShares,
    combine,
    decode_point,
    make_shares,
    open_sealed,
    own_share,
    seal_shares,
    verify_sealed,
)
from trutnet.crypto.group import ORDER, base_mul, random_scalar
from trutnet.crypto.sealed import _fold, _statement

CTX = Context(2, b"table-1", 3, "disclose")
POSITIONS = [0, 3, 6]


@pytest.fixture(scope="module")
def dealt():
    """Three seats; a shuffled deck; seat 0 sees positions 0, 3, 6 privately (seats 1
    and 2 posted their shares in the clear); seat 0 seals its shares to seat 1."""
    table = Table(3, seed=41)
    final, _ = table.shuffle_chain()
    cts = [final[p] for p in POSITIONS]
    public = {s: make_shares(table.keys[s], s, POSITIONS, cts, CTX, table.rng) for s in (1, 2)}
    batch = seal_shares(table.keys[0], 0, table.publics[1], 1, POSITIONS, cts, CTX, table.rng)
    return table, cts, public, batch


def card_of(table, ct, shares):
    return table.cards.index_of(combine(ct, shares))


def test_the_second_viewer_reads_the_card_the_first_one_saw(dealt):
    table, cts, public, batch = dealt
    verify_sealed(batch, table.publics[0], table.publics[1], cts, CTX)
    opened = open_sealed(batch, table.keys[1])
    for k, ct in enumerate(cts):
        first = card_of(
            table, ct, [public[1].shares[k], public[2].shares[k], own_share(table.keys[0], ct)]
        )
        assert opened[k] == own_share(table.keys[0], ct)  # exactly seat 0's share
        second = card_of(table, ct, [public[2].shares[k], opened[k], own_share(table.keys[1], ct)])
        assert first == second


def test_no_one_but_the_recipient_opens_a_sealed_share(dealt):
    """The author, a third seat and a spectator with every public share get no card:
    ``(R, E)`` is an encryption under the recipient's key."""
    table, cts, public, batch = dealt
    for key in (table.keys[0], table.keys[2]):
        for k, ct in enumerate(cts):
            wrong = open_sealed(batch, key)[k]
            assert wrong != own_share(table.keys[0], ct)
            with pytest.raises(CryptoError):
                card_of(table, ct, [public[1].shares[k], public[2].shares[k], wrong])
    for k, ct in enumerate(cts):  # every share posted or sealed, as points, is no card
        r, e = batch.sealed[k]
        for guess in (e, r, e - r):
            with pytest.raises(CryptoError):
                card_of(table, ct, [public[1].shares[k], public[2].shares[k], guess])


def _prove(table, seat, to, positions, cts, sealed, randoms, context=CTX, secret=None):
    """A prover that signs any statement (``sealed``) honestly with ``secret``: how a
    cheat would try to pass a wrong encryption."""
    secret = table.keys[seat].secret if secret is None else secret
    transcript, weights = _statement(
        context, seat, to, table.publics[seat], table.publics[to], positions, cts, sealed
    )
    c1 = _fold([c.c1 for c in cts], weights)
    folded = sum(r * w for r, w in zip(randoms, weights, strict=True)) % ORDER
    k1, k2 = random_scalar(table.rng), random_scalar(table.rng)
    transcript.append_points(
        "commit", [base_mul(k1), base_mul(k2), c1 * k1 + table.publics[to] * k2]
    )
    c = transcript.challenge("c")
    return SealedShares(
        seat,
        to,
        tuple(positions),
        tuple(sealed),
        c,
        (k1 + c * secret) % ORDER,
        (k2 + c * folded) % ORDER,
    )


def rejected(table, batch, cts, seat=0, to=1, context=CTX):
    with pytest.raises(ProofError):
        verify_sealed(batch, table.publics[seat], table.publics[to], cts, context)


def test_a_wrong_share_or_the_encryption_of_another_point_is_rejected(dealt):
    table, cts, _, _ = dealt
    randoms = [random_scalar(table.rng) for _ in cts]
    honest = [
        (base_mul(r), c.c1 * table.keys[0].secret + table.publics[1] * r)
        for c, r in zip(cts, randoms, strict=True)
    ]
    # The test's prover is sound: with the honest statement its proof passes.
    honest_proof = _prove(table, 0, 1, POSITIONS, cts, honest, randoms)
    verify_sealed(honest_proof, table.publics[0], table.publics[1], cts, CTX)
    y1 = table.publics[1]
    x0 = table.keys[0].secret
    cheats = {
        "wrong share": (cts[1].c1 * (x0 + 1) + y1 * randoms[1]),
        "another position's share": (cts[2].c1 * x0 + y1 * randoms[1]),
        "a card point": (table.cards.points[5] + y1 * randoms[1]),
        "encrypted to seat 2": (cts[1].c1 * x0 + table.publics[2] * randoms[1]),
        "R and E with different randoms": (cts[1].c1 * x0 + y1 * (randoms[1] + 1)),
    }
    for e in cheats.values():
        sealed = list(honest)
        sealed[1] = (honest[1][0], e)
        rejected(table, _prove(table, 0, 1, POSITIONS, cts, sealed, randoms), cts)
    # Errors that cancel in a plain sum are caught by the transcript's weights.
    delta = base_mul(99)
    sealed = [honest[0], (honest[1][0], honest[1][1] + delta), (honest[2][0], honest[2][1] - delta)]
    rejected(table, _prove(table, 0, 1, POSITIONS, cts, sealed, randoms), cts)
    # A proof with another secret (a seat that does not know x_A) fails too.
    forged = _prove(table, 0, 1, POSITIONS, cts, honest, randoms, secret=x0 + 1)
    rejected(table, forged, cts)


def test_a_sealed_batch_is_bound_to_its_seats_positions_and_context(dealt):
    table, cts, _, batch = dealt
    rejected(table, batch, cts, to=2)  # checked against another recipient's key
    rejected(table, dataclasses.replace(batch, to=2), cts, to=2)  # relabelled recipient
    rejected(table, dataclasses.replace(batch, to=2), cts)  # relabelled, same key
    rejected(table, batch, cts, seat=2)  # as another author's
    rejected(table, dataclasses.replace(batch, seat=2), cts, seat=2)
    rejected(table, dataclasses.replace(batch, positions=(0, 3, 7)), cts)  # other positions
    rejected(table, dataclasses.replace(batch, positions=(6, 3, 0)), cts)
    rejected(table, batch, cts[::-1])  # swapped positions' ciphertexts
    rejected(table, dataclasses.replace(batch, sealed=batch.sealed[::-1]), cts)
    rejected(table, dataclasses.replace(batch, sealed=batch.sealed[::-1]), cts[::-1])
    swapped = (batch.sealed[1], batch.sealed[0], batch.sealed[2])
    rejected(table, dataclasses.replace(batch, sealed=swapped), cts)
    for context in (  # replayed in another table, round, step or version
        Context(2, b"table-2", 3, "disclose"),
        Context(2, b"table-1", 4, "disclose"),
        Context(2, b"table-1", 3, "reveal"),
        Context(1, b"table-1", 3, "disclose"),
    ):
        rejected(table, batch, cts, context=context)
    other = base_mul(12345)
    for k in range(len(cts)):  # every point of every pair, and every scalar
        r, e = batch.sealed[k]
        for pair in ((r + other, e), (r, e + other), (e, r)):
            sealed = (*batch.sealed[:k], pair, *batch.sealed[k + 1 :])
            rejected(table, dataclasses.replace(batch, sealed=sealed), cts)
    for name in ("challenge", "z_key", "z_rand"):
        value = getattr(batch, name)
        rejected(table, dataclasses.replace(batch, **{name: (value + 1) % ORDER}), cts)


def test_a_batch_replayed_after_a_reshuffle_or_to_another_viewer_fails(dealt):
    """A sealed batch is valid once: for these ciphertexts (a new deal has others), for
    this recipient (another viewer needs its own), never for the author itself."""
    table, cts, _, batch = dealt
    again, _ = table.shuffle_chain()
    rejected(table, batch, [again[p] for p in POSITIONS])
    resent = seal_shares(table.keys[0], 0, table.publics[2], 2, POSITIONS, cts, CTX, table.rng)
    verify_sealed(resent, table.publics[0], table.publics[2], cts, CTX)
    rejected(table, resent, cts)  # seat 2's batch offered to seat 1
    with pytest.raises(ProofError):
        seal_shares(table.keys[0], 0, table.publics[0], 0, POSITIONS, cts, CTX, table.rng)
    with pytest.raises(CryptoError):
        seal_shares(table.keys[0], 0, table.publics[1], 1, [], [], CTX, table.rng)


def test_sealed_batch_encoding_is_strict(dealt):
    _, _, _, batch = dealt
    raw = batch.to_bytes()
    assert len(raw) == SealedShares.size(3) == 4 + 3 * 68 + 96
    assert SealedShares.from_bytes(raw) == batch
    zero_count = raw[:2] + b"\x00\x00" + raw[4:]
    big_count = raw[:2] + b"\x04\x01" + raw[4:]
    bad_point = raw[: 4 + 6] + b"\x04" + raw[4 + 6 + 1 :]
    bad_scalar = raw[:-32] + ORDER.to_bytes(32, "big")
    for bad in (b"", raw[:-1], raw + b"\x00", zero_count, big_count, bad_point, bad_scalar):
        with pytest.raises(DecodeError):
            SealedShares.from_bytes(bad)
    with pytest.raises(DecodeError):
        SealedShares.from_bytes("not bytes")  # type: ignore[arg-type]


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**64), seats=st.integers(2, 5), count=st.integers(1, 6))
def test_random_second_viewers_read_the_card(seed, seats, count):
    table = Table(seats, "custom-8", 8, seed=seed)
    final, _ = table.shuffle_chain()
    positions = list(range(count))
    cts = [final[p] for p in positions]
    first, second = 0, seats - 1
    batch = SealedShares.from_bytes(
        seal_shares(
            table.keys[first], first, table.publics[second], second, positions, cts, CTX, table.rng
        ).to_bytes()
    )
    verify_sealed(batch, table.publics[first], table.publics[second], cts, CTX)
    opened = open_sealed(batch, table.keys[second])
    for k, ct in enumerate(cts):
        others = [own_share(table.keys[s], ct) for s in range(seats) if s not in (first, second)]
        seen = card_of(
            table,
            ct,
            [*others, own_share(table.keys[first], ct), own_share(table.keys[second], ct)],
        )
        assert card_of(table, ct, [*others, opened[k], own_share(table.keys[second], ct)]) == seen


def test_the_sealed_vector_verifies_and_opens_to_the_share():
    """The known-answer batch of tests/vectors/crypto.json (docs/protocol.md 8.11) is
    valid, and seat 1's key opens it to seat 0's share."""
    from tests.crypto.crypto_vectors import PATH

    vector = json.loads(PATH.read_text())["sealed_shares"]
    author, recipient = KeyPair(5), KeyPair(7)
    ciphertext = Ciphertext(
        *(decode_point(bytes.fromhex(vector["ciphertext"][k])) for k in ("c1", "c2"))
    )
    batch = SealedShares.from_bytes(bytes.fromhex(vector["batch"]))
    context = Context(2, b"table-1", 3, "disclose")
    verify_sealed(batch, author.public, recipient.public, [ciphertext], context)
    assert bytes(open_sealed(batch, recipient)[0]).hex() == vector["share"]
    assert batch.positions == (12,) and (batch.seat, batch.to) == (0, 1)
