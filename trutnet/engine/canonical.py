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


def _normalise(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, int | str | bytes):
        return value
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise EngineError("canonical maps have string keys only")
        return {k: _normalise(value[k]) for k in sorted(value)}
    raise EngineError(f"no canonical encoding for {type(value).__name__}")


def canonical_bytes(value: Any) -> bytes:
    """Encode ``value`` (None, bool, int, str, bytes, list, tuple, str-keyed dict)."""
    return msgpack.packb(_normalise(value), use_bin_type=True)


def state_digest(public_state: dict[str, Any]) -> str:
    """Hex SHA-256 of the canonical encoding of a public state."""
    return hashlib.sha256(canonical_bytes(public_state)).hexdigest()
