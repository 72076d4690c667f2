"""Bounded decoding of untrusted bytes (issue: one unsigned nested message stopped a
table): nothing but the project's own errors may come out of a decoder."""

from __future__ import annotations

import contextlib

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trutnet.engine.canonical import MAX_DEPTH as CANONICAL_DEPTH
from trutnet.engine.canonical import canonical_bytes
from trutnet.engine.errors import EngineError
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.untrusted import MAX_DEPTH, UntrustedInput, scan, unpack

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=40)
    | st.binary(max_size=300),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=40,
)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=150)
@given(values)
def test_every_shallow_value_round_trips(value):
    data = msgpack.packb(value, use_bin_type=True)
    if _depth(value) <= MAX_DEPTH:
        assert unpack(data, 1 << 20) == value
    else:
        with pytest.raises(UntrustedInput):
            unpack(data, 1 << 20)


@settings(max_examples=250)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_untrusted_input(data):
    with contextlib.suppress(UntrustedInput):
        unpack(data, 1 << 20)


@settings(max_examples=150)
@given(values, st.data())
def test_truncations_and_appendages_are_refused(value, data):
    wire = msgpack.packb(value, use_bin_type=True)
    cut = data.draw(st.integers(0, len(wire) - 1))
    with pytest.raises(UntrustedInput):
        unpack(wire[:cut], 1 << 20)
    with pytest.raises(UntrustedInput):
        unpack(wire + b"\xc0", 1 << 20)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, 766, 1022, 5000, 100_000])
def test_deep_nesting_is_refused_before_decoding(depth):
    for opener in (b"\x91", b"\x81\xa1k"):  # arrays, maps
        wire = opener * depth + b"\xc0"
        with pytest.raises(UntrustedInput, match="nested deeper"):
            scan(wire)
        with pytest.raises(MessageError, match=r"nested deeper|limit"):
            parse_entry(wire)


@pytest.mark.parametrize(
    "header",
    [
        b"\xdd\xff\xff\xff\xff",
        b"\xdf\xff\xff\xff\xff",
        b"\xc6\xff\xff\xff\xff",
        b"\xdb\x7f\xff\xff\xff",
    ],
)
def test_huge_length_headers_are_refused(header):
    with pytest.raises(UntrustedInput):
        unpack(header + b"\x00" * 16, 1 << 20)


@pytest.mark.parametrize("wire", [b"\xca\x00\x00\x00\x00", b"\xd4\x01\x00", b"\xc1"])
def test_types_the_protocol_never_uses_are_refused(wire):
    with pytest.raises(UntrustedInput, match="not used"):
        unpack(wire, 100)


def test_oversized_payload_is_refused_unread():
    with pytest.raises(UntrustedInput, match="limit"):
        unpack(b"\xc0" * 101, 100)


def test_item_count_is_bounded():
    wire = msgpack.packb([0] * 10_000)
    with pytest.raises(UntrustedInput, match="values"):
        unpack(wire, 1 << 20)


def test_the_766_byte_message_that_stopped_a_table():
    """The reproduction: msgpack's own depth limit (1024) let this through, then the
    canonical re-encoding recursed and raised RecursionError in the log pump."""
    wire = b"\x92" + b"\x91" * 762 + b"\xc0" + b"\xc4\x00"
    assert len(wire) == 766
    with pytest.raises(MessageError):
        parse_entry(wire)


def test_canonical_encoding_bounds_its_own_recursion():
    nested: list = []
    for _ in range(CANONICAL_DEPTH + 5):
        nested = [nested]
    with pytest.raises(EngineError, match="nest"):
        canonical_bytes(nested)
    with pytest.raises(EngineError):
        canonical_bytes(2**64)
