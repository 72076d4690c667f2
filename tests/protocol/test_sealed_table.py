"""A sealed table (docs/protocol.md 9.9): what goes through the broker opens only with
the table's key, only on its own topic; subscriptions with wildcards still work; a
cleared retained topic is known by the topic it cleared."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trutnet.net import topics
from trutnet.protocol.sealed_table import SEALED, TableSeal

TABLE = bytes(range(16))
LIMIT = 80 * 1024


def test_a_message_opens_with_the_key_on_its_topic_and_nowhere_else():
    key = os.urandom(32)
    seal, reader = TableSeal(key, os.urandom), TableSeal(key, os.urandom)
    outer, sealed = seal.seal(topics.log(TABLE), b"an entry")
    assert outer.startswith(SEALED + "/") and TABLE.hex() not in outer and "log" not in outer
    assert b"an entry" not in sealed
    assert reader.open(outer, sealed, LIMIT) == (topics.log(TABLE), b"an entry")
    other_outer = seal.outer(topics.chat(TABLE))
    assert reader.open(other_outer, sealed, LIMIT) is None  # moved to another topic
    assert TableSeal(os.urandom(32), os.urandom).open(outer, sealed, LIMIT) is None
    flipped = bytearray(sealed)
    flipped[-1] ^= 1
    assert reader.open(outer, bytes(flipped), LIMIT) is None
    assert reader.open(outer, sealed, len(b"an entry") - 1 - 128) is None  # over the bound


def test_two_seals_of_one_message_differ_and_every_level_is_hidden():
    seal = TableSeal(os.urandom(32), os.urandom)
    a, b = (
        seal.seal(topics.presence(TABLE, "ab12"), b"x"),
        seal.seal(topics.presence(TABLE, "ab12"), b"x"),
    )
    assert a[0] == b[0] and a[1] != b[1]  # one topic, fresh nonces
    assert all(part not in a[0] for part in ("presence", "ab12", TABLE.hex(), "table"))


def test_wildcards_map_level_by_level_and_a_clear_names_what_it_clears():
    key = os.urandom(32)
    seal, reader = TableSeal(key, os.urandom), TableSeal(key, os.urandom)
    pattern = reader.outer(topics.watcher(TABLE, "+"))
    outer, sealed = seal.seal(topics.watcher(TABLE, "cafe"), b"present")
    assert pattern.rsplit("/", 1)[0] == outer.rsplit("/", 1)[0] and pattern.endswith("/+")
    assert reader.open(outer, b"", LIMIT) is None  # a clear of a topic never seen
    assert reader.open(outer, sealed, LIMIT) == (topics.watcher(TABLE, "cafe"), b"present")
    assert reader.open(outer, b"", LIMIT) == (topics.watcher(TABLE, "cafe"), b"")
    assert seal.seal(topics.watcher(TABLE, "cafe"), b"") == (outer, b"")


def test_only_trutnet_topics_are_sealed_and_keys_are_32_bytes():
    with pytest.raises(ValueError):
        TableSeal(bytes(16), os.urandom)
    with pytest.raises(ValueError):
        TableSeal(bytes(32), os.urandom).outer("other/topic")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40), st.binary(max_size=400))
def test_any_message_on_any_topic_is_opened_or_dropped_never_a_crash(topic, data):
    reader = TableSeal(bytes(32), os.urandom)
    assert reader.open(SEALED + "/" + topic, data, LIMIT) is None
