"""Decoding bytes from the network or a file without trusting them (sans-I/O).

Every msgpack payload a peer receives goes through :func:`unpack`: before anything is
decoded, a non-recursive scan of the msgpack headers bounds the size, the nesting
depth and the number of items, and checks that every declared length fits in the
bytes actually received (a "huge length header" is refused, never allocated). Types
the protocol never uses (floats, extension types) are refused too. Only then does
msgpack decode it, with map keys restricted to strings. Whatever the input,
:func:`unpack` returns a value or raises :class:`UntrustedInput`; nothing else (no
``RecursionError``, no ``MemoryError``, no msgpack exception) escapes.

``docs/protocol.md`` 7.1 gives the limits: at most :data:`MAX_DEPTH` levels of arrays
and maps, at most :data:`MAX_ITEMS` values in one payload.
"""

from __future__ import annotations

from typing import Any

import msgpack

MAX_DEPTH = 16
MAX_ITEMS = 8192


class UntrustedInput(ValueError):
    """Bytes that are not an acceptable msgpack payload; the message says why."""


# Fixed-size headers: first byte -> (header length, length-field size, kind).
# kind: "scalar" (no payload), "raw" (payload of the length read), "array", "map".
_LENGTH_PREFIXED = {
    0xC4: (1, "raw"),  # bin 8
    0xC5: (2, "raw"),  # bin 16
    0xC6: (4, "raw"),  # bin 32
    0xD9: (1, "raw"),  # str 8
    0xDA: (2, "raw"),  # str 16
    0xDB: (4, "raw"),  # str 32
    0xDC: (2, "array"),  # array 16
    0xDD: (4, "array"),  # array 32
    0xDE: (2, "map"),  # map 16
    0xDF: (4, "map"),  # map 32
}
_FIXED_SCALARS = {
    0xC0: 0,  # nil
    0xC2: 0,  # false
    0xC3: 0,  # true
    0xCC: 1,  # uint 8
    0xCD: 2,  # uint 16
    0xCE: 4,  # uint 32
    0xCF: 8,  # uint 64
    0xD0: 1,  # int 8
    0xD1: 2,  # int 16
    0xD2: 4,  # int 32
    0xD3: 8,  # int 64
}


def scan(data: bytes, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS) -> None:
    """Check the shape of one msgpack value in ``data`` without decoding it.

    Raises :class:`UntrustedInput` for truncated or trailing bytes, a declared length
    beyond the input, nesting deeper than ``max_depth``, more than ``max_items``
    values, or a type the protocol does not use.
    """
    size = len(data)
    pos = 0
    items = 0
    pending: list[int] = [1]  # values still to read at each open level
    while pending:
        if pending[-1] == 0:
            pending.pop()
            continue
        pending[-1] -= 1
        if pos >= size:
            raise UntrustedInput("truncated msgpack")
        items += 1
        if items > max_items:
            raise UntrustedInput(f"more than {max_items} values")
        byte = data[pos]
        pos += 1
        children = 0
        if byte <= 0x7F or byte >= 0xE0:  # positive / negative fixint
            continue
        if 0xA0 <= byte <= 0xBF:  # fixstr
            pos += byte & 0x1F
        elif 0x90 <= byte <= 0x9F:  # fixarray
            children = byte & 0x0F
        elif 0x80 <= byte <= 0x8F:  # fixmap
            children = 2 * (byte & 0x0F)
        elif byte in _FIXED_SCALARS:
            pos += _FIXED_SCALARS[byte]
        elif byte in _LENGTH_PREFIXED:
            width, kind = _LENGTH_PREFIXED[byte]
            if pos + width > size:
                raise UntrustedInput("truncated msgpack length")
            length = int.from_bytes(data[pos : pos + width], "big")
            pos += width
            if kind == "raw":
                pos += length
            else:
                # Each value takes at least one byte: a count beyond what is left is a lie.
                if length > size - pos:
                    raise UntrustedInput(f"{kind} of {length} values in {size - pos} bytes")
                children = length if kind == "array" else 2 * length
        else:
            raise UntrustedInput(f"msgpack type 0x{byte:02x} is not used by the protocol")
        if pos > size:
            raise UntrustedInput("a length runs past the end of the input")
        if children:
            if len(pending) > max_depth:
                raise UntrustedInput(f"nested deeper than {max_depth} levels")
            pending.append(children)
    if pos != size:
        raise UntrustedInput(f"{size - pos} bytes after the msgpack value")


def unpack(
    data: Any, max_bytes: int, max_depth: int = MAX_DEPTH, max_items: int = MAX_ITEMS
) -> Any:
    """Decode one msgpack value from untrusted ``data`` (at most ``max_bytes``)."""
    if not isinstance(data, bytes | bytearray):
        raise UntrustedInput("a payload is bytes")
    if len(data) > max_bytes:
        raise UntrustedInput(f"payload of {len(data)} bytes (limit {max_bytes})")
    data = bytes(data)
    scan(data, max_depth, max_items)
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True)
    except Exception as exc:  # e.g. invalid UTF-8 in a str, a non-string map key
        raise UntrustedInput(f"not valid msgpack: {type(exc).__name__}: {exc}") from exc
