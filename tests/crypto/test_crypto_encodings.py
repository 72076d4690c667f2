"""Strict canonical encodings, and the known-answer vectors in tests/vectors/crypto.json."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import ROOT
from tests.crypto.crypto_vectors import PATH, build
from tests.crypto.test_crypto_protocols import CTX, Table
from trutnet.crypto import (
    CardTable,
    DecodeError,
    SeededRandom,
    ShareBatch,
    ShuffleProof,
    decode_deck,
    decode_point,
    decode_scalar,
    decode_shuffle,
    encode_deck,
    encode_shuffle,
    joint_key,
    make_shares,
    open_deck,
    shuffle,
)
from trutnet.crypto.elgamal import KeyPair, KeyProof
from trutnet.crypto.group import FIELD, ORDER, base_mul

scalars = st.integers(1, ORDER - 1)


def test_vectors_are_unchanged():
    assert json.loads(PATH.read_text()) == build()


@given(scalars)
def test_points_and_scalars_round_trip(k):
    p = base_mul(k)
    assert decode_point(bytes(p)) == p
    assert decode_scalar(k.to_bytes(32, "big")) == k


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x02" * 32,
        b"\x02" * 34,
        b"\x04" + b"\x01" * 32,
        b"\x00" * 33,
        b"\x02" + FIELD.to_bytes(32, "big"),
        b"\x02" + (2**256 - 1).to_bytes(32, "big"),
        b"\x02" + (5).to_bytes(32, "big"),  # x = 5 is not on secp256k1
        "02" * 33,
    ],
)
def test_invalid_points_are_refused(data):
    with pytest.raises(DecodeError):
        decode_point(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00" * 31, b"\x00" * 33, ORDER.to_bytes(32, "big"), (2**256 - 1).to_bytes(32, "big")],
)
def test_non_canonical_scalars_are_refused(data):
    with pytest.raises(DecodeError):
        decode_scalar(data)
    with pytest.raises(DecodeError):
        decode_scalar(b"\x00" * 32, nonzero=True)


def test_deck_shuffle_share_and_key_proof_encodings_are_strict():
    table = Table(2, "custom-4", 4, seed=2)
    out, proof = shuffle(open_deck(table.cards.points), table.joint, CTX, table.publics, table.rng)
    data = encode_shuffle(out, proof)
    assert len(data) == 2 + 4 * 66 + ShuffleProof.size(4)
    assert decode_shuffle(data, 4) == (out, proof)
    for bad in (data[:-1], data + b"\x00", data[:2] + b"\x00" + data[3:]):
        with pytest.raises(DecodeError):
            decode_shuffle(bad, 4)
    with pytest.raises(DecodeError):
        decode_shuffle(data, 5)  # another deck size
    assert decode_deck(encode_deck(out), 4) == out
    with pytest.raises(DecodeError):
        decode_deck(encode_deck(out), 3)
    batch = make_shares(table.keys[0], 0, [1, 2], [out[1], out[2]], CTX, table.rng)
    raw = batch.to_bytes()
    assert ShareBatch.from_bytes(raw) == batch
    for bad in (raw[:-1], raw + b"\x00", raw[:1] + b"\x00\x00" + raw[3:]):
        with pytest.raises(DecodeError):
            ShareBatch.from_bytes(bad)
    key_proof = table.keys[0].prove(CTX, 0, table.rng)
    assert KeyProof.from_bytes(key_proof.to_bytes()) == key_proof
    with pytest.raises(DecodeError):
        KeyProof.from_bytes(key_proof.to_bytes()[:-1])


def test_open_deck_cannot_be_sent():
    """The identity (the open deck's c1) has no encoding: it can never be received."""
    with pytest.raises(Exception, match="identity"):
        encode_deck(open_deck(CardTable("custom-2", 2).points))


def test_keys_never_print_their_secret():
    key = KeyPair.generate(SeededRandom(1))
    assert str(key.secret) not in repr(key) and hex(key.secret)[2:] not in repr(key)
    joint_key([key.public])


def test_protocol_doc_lists_the_crypto_vectors():

    doc = (ROOT / "docs/protocol.md").read_text()
    vectors = build()
    for entry in vectors["hash_to_point"]:
        assert entry["point"] in doc
    for index in (0, 1, 7, 8, 31):
        assert vectors["cards"]["french32"][index] in doc
    for value in (
        vectors["pedersen"]["h"],
        vectors["context"]["encoding"],
        vectors["transcript"]["challenge_a"],
        vectors["commitment"]["commit"],
        vectors["sealed_shares"]["batch"],
        vectors["sealed_shares"]["share"],
        vectors["sealed_shares"]["ciphertext"]["c1"],
        vectors["equality"]["batch"],
        vectors["equality"]["ciphertext"]["c2"],
    ):
        assert value in doc
