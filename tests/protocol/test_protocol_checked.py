"""The proofs one process has checked (trutnet.protocol.checked): each statement's
check runs once, a failure is never remembered, and the memory is bounded."""

from __future__ import annotations

import pytest

from trutnet.crypto import CryptoError
from trutnet.crypto.elgamal import Ciphertext
from trutnet.crypto.group import IDENTITY, base_mul
from trutnet.protocol.checked import CheckedProofs, deck_bytes, statement


def test_a_statement_is_checked_once_and_a_failure_every_time():
    checked = CheckedProofs()
    runs: list[str] = []

    def passes() -> None:
        runs.append("pass")

    def fails() -> None:
        runs.append("fail")
        raise CryptoError("the proof does not verify")

    good, bad = statement("shuffle", b"context", b"deck"), statement("shuffle", b"context", b"x")
    checked.once(good, passes)
    checked.once(good, passes)
    for _ in range(2):
        with pytest.raises(CryptoError):
            checked.once(bad, fails)
    assert runs == ["pass", "fail", "fail"]
    assert (checked.checks, checked.skipped) == (1, 1)
    checked.vouch(bad)  # made in this process: taken as checked from now on
    checked.once(bad, fails)
    assert runs == ["pass", "fail", "fail"] and checked.skipped == 2


def test_statements_of_other_parts_never_meet():
    # the parts are length-prefixed: moving a byte from one part to the next, or
    # changing the kind, gives other bytes
    assert statement("shuffle", b"ab", b"c") != statement("shuffle", b"a", b"bc")
    assert statement("shuffle", b"a") != statement("shares", b"a")
    assert statement("shuffle", b"", b"a") != statement("shuffle", b"a")
    # the open deck's identity stands as 33 zero bytes, which no point encodes to
    card = base_mul(7)
    opened = deck_bytes([Ciphertext(IDENTITY, card)])
    assert opened == bytes(33) + bytes(card) and len(bytes(card)) == 33
    assert deck_bytes([Ciphertext(card, card)]) != opened


def test_the_memory_is_bounded_and_keeps_the_most_recent():
    checked = CheckedProofs(limit=3)
    runs: list[int] = []
    for k in range(4):
        checked.once(statement("s", bytes([k])), lambda k=k: runs.append(k))
    checked.once(statement("s", bytes([3])), lambda: runs.append(99))  # still known
    checked.once(statement("s", bytes([0])), lambda: runs.append(0))  # forgotten
    assert runs == [0, 1, 2, 3, 0]


def test_a_process_that_trusts_no_own_proof_checks_every_one():
    checked = CheckedProofs(trust_own=False)
    runs: list[str] = []
    own = statement("shuffle", b"made here")
    checked.vouch(own)  # ignored: a sibling replica checks it like any other
    checked.once(own, lambda: runs.append("checked"))
    checked.once(own, lambda: runs.append("again"))
    assert runs == ["checked"] and (checked.checks, checked.skipped) == (1, 1)


def test_an_entry_s_signature_is_verified_once_per_process_and_a_forgery_every_time():
    from trutnet.crypto import Identity, SeededRandom
    from trutnet.protocol.envelope import GENESIS, MessageError, parse_entry, sign_entry

    ana = Identity.generate(SeededRandom("checked/ana"))
    wire = sign_entry(
        ana, table=bytes(16), seat=0, seq=0, prev=GENESIS, type="act", body={"action": "x"}
    ).wire
    forged = wire[:-64] + bytes(64)
    checked = CheckedProofs()
    for _ in range(3):  # three replicas of one process read it
        assert parse_entry(wire, bytes(16), checked).author == ana.public
        with pytest.raises(MessageError, match="bad signature"):
            parse_entry(forged, bytes(16), checked)
    assert (checked.signatures, checked.signatures_skipped) == (1, 2)


def test_an_entry_read_by_a_sibling_is_not_encoded_again_and_another_encoding_still_fails(
    monkeypatch,
):
    """The canonical-encoding check of an entry runs once per process, like its
    signature's: a sibling replica that reads the very same bytes skips it; the same
    entry in another (non-canonical) encoding is refused every time, and never marks
    the canonical one known."""
    import msgpack

    from trutnet.crypto import Identity, SeededRandom
    from trutnet.protocol import envelope
    from trutnet.protocol.envelope import GENESIS, MessageError, parse_entry, sign_entry

    ana = Identity.generate(SeededRandom("checked/ana"))
    wire = sign_entry(
        ana, table=bytes(16), seat=0, seq=0, prev=GENESIS, type="act", body={"action": "x"}
    ).wire
    loose = msgpack.packb(msgpack.unpackb(wire), use_bin_type=True, use_single_float=False)
    loose = loose.replace(b"\xa6action", b"\xd9\x06action")  # a str8 where fixstr is canonical
    assert loose != wire and msgpack.unpackb(loose) == msgpack.unpackb(wire)
    encoded = []
    real = envelope._payload
    monkeypatch.setattr(envelope, "_payload", lambda value: encoded.append(1) or real(value))
    checked = CheckedProofs()
    for _ in range(2):
        with pytest.raises(MessageError, match="not canonically encoded"):
            parse_entry(loose, bytes(16), checked)
    assert not checked.signed_before(wire)
    parse_entry(wire, bytes(16), checked)
    first = len(encoded)
    assert checked.signed_before(wire)
    parse_entry(wire, bytes(16), checked)  # a sibling replica: neither check again
    assert len(encoded) == first and checked.signatures_skipped == 1
    with pytest.raises(MessageError, match="entry of another table"):
        parse_entry(wire, bytes(range(16)), checked)  # the caller's table still counts


def test_a_shuffle_is_decoded_once_and_a_malformed_one_fails_every_time():
    calls = []

    def decode(data: bytes, count: int) -> tuple[bytes, int]:
        calls.append(data)
        if data == b"bad":
            raise CryptoError("malformed")
        return (data, count)

    checked = CheckedProofs()
    first = checked.decoded(b"deck", 3, decode)
    assert checked.decoded(b"deck", 3, decode) is first and calls == [b"deck"]
    assert checked.decoded(b"deck", 4, decode) == (b"deck", 4)  # another count: read again
    for _ in range(2):
        with pytest.raises(CryptoError):
            checked.decoded(b"bad", 3, decode)
    assert calls == [b"deck", b"deck", b"bad", b"bad"]
