"""Signed envelopes and the hash-chained log: strict parsing, chain, sequence, equivocation."""

from __future__ import annotations

import msgpack
import pytest

from tests import ROOT
from trutnet.crypto import Identity, SeededRandom
from trutnet.engine.canonical import canonical_bytes
from trutnet.protocol.envelope import (
    GENESIS,
    MAX_ENTRY_BYTES,
    MessageError,
    parse_entry,
    sign_entry,
)
from trutnet.protocol.log import LogError, TableLog

TABLE = bytes(range(16))
ALICE = Identity.generate(SeededRandom(1))
BOB = Identity.generate(SeededRandom(2))


def entry(who=ALICE, seat=0, seq=0, prev=GENESIS, type="note", body=None, table=TABLE):
    return sign_entry(
        who,
        table=table,
        seat=seat,
        seq=seq,
        prev=prev,
        type=type,
        body={"text": "hi"} if body is None else body,
    )


def test_entry_round_trips_and_has_a_stable_id():
    e = entry(body={"b": 1, "a": [1, b"x"], "c": {"z": None, "y": True}})
    again = parse_entry(e.wire, TABLE)
    assert again == e and again.id == e.id and len(e.id) == 32
    assert e.body == {"a": [1, b"x"], "b": 1, "c": {"y": True, "z": None}}


def test_tampered_or_forged_entries_are_refused():
    e = entry()
    envelope, sig = msgpack.unpackb(e.wire, raw=False)
    forged_body = canonical_bytes([[*envelope[:7], {"text": "ho"}], sig])
    with pytest.raises(MessageError, match="signature"):
        parse_entry(forged_body)
    as_bob = canonical_bytes([[*envelope[:3], BOB.public, *envelope[4:]], sig])
    with pytest.raises(MessageError, match="signature"):
        parse_entry(as_bob)  # forging another seat's message
    bad_sig = canonical_bytes([envelope, bytes(64)])
    with pytest.raises(MessageError, match="signature"):
        parse_entry(bad_sig)


@pytest.mark.parametrize(
    "mutate,rule",
    [
        (lambda env: [env[0] - 1, *env[1:]], "version"),  # version 1: plays had share rounds
        (lambda env: [env[0] + 1, *env[1:]], "version"),
        (lambda env: [env[0], b"short", *env[2:]], "encoding"),
        (lambda env: [*env[:2], 16, *env[3:]], "encoding"),
        (lambda env: [*env[:4], -1, *env[5:]], "encoding"),
        (lambda env: [*env[:5], b"\x00" * 31, *env[6:]], "encoding"),
        (lambda env: [*env[:6], "", env[7]], "encoding"),
        (lambda env: [*env[:7], [1, 2]], "encoding"),
        (lambda env: env[:7], "encoding"),
    ],
)
def test_malformed_envelopes_are_refused_with_a_rule(mutate, rule):
    envelope, sig = msgpack.unpackb(entry().wire, raw=False)
    with pytest.raises(MessageError) as exc:
        parse_entry(canonical_bytes([mutate(envelope), sig]))
    assert exc.value.rule == rule


@pytest.mark.parametrize(
    "wire",
    [
        b"",
        b"\xc1",
        b"\x92",
        msgpack.packb([1, 2]),
        msgpack.packb({"a": 1}),
        b"\x00" * (MAX_ENTRY_BYTES + 1),
        "text",
    ],
)
def test_garbage_is_refused_not_crashed_on(wire):
    with pytest.raises(MessageError):
        parse_entry(wire)


def test_non_canonical_encodings_are_refused():
    e = entry(body={"a": 1, "b": 2})
    envelope, sig = msgpack.unpackb(e.wire, raw=False)
    envelope[7] = dict(reversed(list(envelope[7].items())))  # keys out of order
    with pytest.raises(MessageError, match="canonical"):
        parse_entry(msgpack.packb([envelope, sig], use_bin_type=True))
    wide = msgpack.packb([[*envelope[:4], msgpack.ExtType(1, b""), *envelope[5:]], sig])
    with pytest.raises(MessageError):
        parse_entry(wide)


def test_entry_of_another_table_is_refused():
    with pytest.raises(MessageError, match="another table"):
        parse_entry(entry(table=bytes(16)).wire, TABLE)


def test_log_accepts_only_entries_that_extend_its_head():
    log = TableLog()
    first = entry()
    log.append(first)
    second = entry(who=BOB, seat=1, prev=first.id)
    with pytest.raises(LogError, match="chain"):
        log.append(entry(who=BOB, seat=1, prev=GENESIS))  # does not extend the head
    with pytest.raises(LogError, match="sequence"):
        log.append(entry(who=BOB, seat=1, seq=1, prev=first.id))  # skips a number
    log.append(second)
    assert log.head == second.id and len(log) == 2
    with pytest.raises(LogError, match="duplicate"):
        log.append(second)  # replay of the same entry
    third = entry(seq=1, prev=second.id)
    log.append(third)
    assert log.next_seq(ALICE.public) == 2 and log.next_seq(BOB.public) == 1


def test_equivocation_is_proven_with_both_signed_entries():
    log = TableLog()
    first = entry()
    log.append(first)
    other = entry(body={"text": "something else"})  # same author, same seq 0
    with pytest.raises(LogError) as exc:
        log.append(other)
    blame = exc.value.blame
    assert exc.value.rule == "equivocation"
    assert blame is not None and blame.seat == 0
    assert set(blame.evidence) == {first.wire, other.wire}
    for wire in blame.evidence:  # the evidence is checkable offline
        assert parse_entry(wire).seq == 0


def test_protocol_doc_describes_every_message_type():

    import trutnet.protocol.table as table

    doc = (ROOT / "docs/protocol.md").read_text()
    handlers = [name[4:] for name in dir(table.TableReplica) if name.startswith("_on_")]
    assert set(handlers) == set(table.TYPE_LIMITS)  # every type has a size limit
    for kind in handlers:
        assert f"| `{kind}` |" in doc, kind


def test_signed_entry_vector():
    """The vector changes with the protocol version (the envelope carries it): on a
    deliberate version change, write this entry's new ``wire`` and ``id`` into
    ``tests/vectors/protocol.json`` and ``docs/protocol.md`` part 10."""
    import json

    root = ROOT
    vector = json.loads((root / "tests/vectors/protocol.json").read_text())
    identity = Identity.from_seed(bytes.fromhex(vector["identity_seed"]))
    e = sign_entry(
        identity,
        table=b"\xaa" * 16,
        seat=0,
        seq=0,
        prev=GENESIS,
        type="act",
        body={"action": "trut"},
    )
    assert e.wire.hex() == vector["wire"] and e.id.hex() == vector["id"]
    assert vector["wire"] in (root / "docs/protocol.md").read_text()


def test_round_digest_vector():
    """7.2: the head after an unordered round commits to every entry of the round, in
    seat order (``tests/vectors/protocol.json``, ``docs/protocol.md`` part 10)."""
    import json

    from trutnet.protocol.log import round_digest

    root = ROOT
    vector = json.loads((root / "tests/vectors/protocol.json").read_text())["round_digest"]
    ids = [bytes.fromhex(i) for i in vector["ids"]]
    assert round_digest(ids).hex() == vector["digest"]
    assert round_digest(ids[::-1]).hex() != vector["digest"]
    assert f"digest: {vector['digest']}" in (root / "docs/protocol.md").read_text()


def test_table_id_vector():
    """7.10: the table id names its host."""
    import json

    from trutnet.protocol.lobby import table_id_for

    root = ROOT
    vector = json.loads((root / "tests/vectors/protocol.json").read_text())["table_id"]
    host = Identity.from_seed(bytes.fromhex(vector["host_seed"]))
    assert table_id_for(host.public, bytes.fromhex(vector["nonce"])).hex() == vector["table"]
    assert f"table id `{vector['table']}`" in (root / "docs/protocol.md").read_text()
