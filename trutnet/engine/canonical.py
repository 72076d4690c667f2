"""Canonical msgpack encoding and the SHA-256 hash of a public state.

Every replica hashes the same public state to the same bytes: maps are written with
their keys sorted (keys are strings), integers in their smallest msgpack form, no
floats. ``docs/protocol.md`` ("State hash") specifies the encoding for other
implementations.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack

from trutnet.engine.errors import EngineError

MAX_DEPTH = 32  # far deeper than any state or entry; bounds the recursion below


def _normalise(value: Any, depth: int = 0) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, int | str | bytes):
        return value
    if depth >= MAX_DEPTH:
        raise EngineError(f"canonical values nest at most {MAX_DEPTH} levels")
    if isinstance(value, list | tuple):
        return [_normalise(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise EngineError("canonical maps have string keys only")
        return {k: _normalise(value[k], depth + 1) for k in sorted(value)}
    raise EngineError(f"no canonical encoding for {type(value).__name__}")


def canonical_bytes(value: Any) -> bytes:
    """Encode ``value`` (None, bool, int, str, bytes, list, tuple, str-keyed dict,
    nested at most :data:`MAX_DEPTH` levels); :class:`EngineError` otherwise."""
    try:
        return msgpack.packb(_normalise(value), use_bin_type=True)
    except (OverflowError, ValueError) as exc:  # an int beyond 64 bits, a huge length
        raise EngineError(f"no canonical encoding: {exc}") from exc


def state_digest(public_state: dict[str, Any]) -> str:
    """Hex SHA-256 of the canonical encoding of a public state."""
    return hashlib.sha256(canonical_bytes(public_state)).hexdigest()
