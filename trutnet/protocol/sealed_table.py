"""A sealed table: every message of the table sealed with the table's key, on topics
derived from it, so that the broker and anyone on it learn sizes and timing, not what
is said (docs/protocol.md 9.9).

:class:`TableSeal` maps each topic of part 9.1 below ``trutnet/v1/`` to an *outer*
topic: ``trutnet/v1/sealed/`` then each level replaced by its tag under the key (20
hex digits), so a subscription with ``+`` or ``#`` still works level by level. A
payload goes as ``nonce || ChaCha20-Poly1305(msgpack [inner topic, payload])`` with
the outer topic as associated data: it opens only with the key, only on its own
topic. An empty payload (a retained message cleared, a last will's clear) stays
empty: the receiver knows which inner topic it clears from the sealed message it
cleared. The signed messages inside are unchanged: a saved log verifies as it did.
"""

from __future__ import annotations

from collections.abc import Callable

import msgpack

from trutnet.crypto import CryptoError
from trutnet.crypto.channel import KEY_BYTES, derive, seal, tag, unseal
from trutnet.protocol.untrusted import UntrustedInput, unpack

ROOT = "trutnet/v1/"
SEALED = "trutnet/v1/sealed"
LEVEL_HEX = 20  # hex digits of a level's tag: 80 bits
OVERHEAD = 128  # a sealed payload's bytes beyond its payload's (nonce, tag, topic, framing)
MAX_TOPIC = 256
REMEMBERED = 1024  # retained outer topics whose inner topic is kept, for their clears


class TableSeal:
    """Seal and open one table's messages with its key (32 bytes)."""

    def __init__(self, key: bytes, rng: Callable[[int], bytes]) -> None:
        if len(key) != KEY_BYTES:
            raise ValueError("a table key is 32 bytes")
        self._topics = derive(key, "trutnet table topics")
        self._aead = derive(key, "trutnet table messages")
        self._rng = rng
        self._inner: dict[str, str] = {}  # outer topic -> inner, as last opened
        self._levels: dict[str, str] = {}  # level -> its tag: a table uses a few dozen

    def outer(self, topic: str) -> str:
        """The outer topic (or subscription filter) of an inner one under ``trutnet/v1/``."""
        if not topic.startswith(ROOT):
            raise ValueError(f"not a trutnet topic: {topic}")
        levels = topic[len(ROOT) :].split("/")
        return "/".join([SEALED, *(self._level(level) for level in levels)])

    def _level(self, level: str) -> str:
        if level in ("+", "#"):
            return level
        tagged = self._levels.get(level)
        if tagged is None:
            tagged = tag(self._topics, "level", level.encode()).hex()[:LEVEL_HEX]
            if len(self._levels) < REMEMBERED:  # bounded: levels come from the network too
                self._levels[level] = tagged
        return tagged

    def seal(self, topic: str, payload: bytes) -> tuple[str, bytes]:
        """``(outer topic, sealed payload)``; an empty payload stays empty."""
        outer = self.outer(topic)
        if not payload:
            return outer, b""
        plain = msgpack.packb([topic, payload])
        return outer, seal(self._aead, outer.encode(), plain, self._rng)

    def open(self, outer: str, data: bytes, limit: int) -> tuple[str, bytes] | None:
        """``(inner topic, payload)`` of a message received on ``outer``; None for one
        that does not open with this key on this topic, or is larger than ``limit``
        bytes of payload. An empty payload clears the inner topic last opened there
        (None if none was)."""
        if not data:
            inner = self._inner.get(outer)
            return None if inner is None else (inner, b"")
        if len(data) > limit + OVERHEAD:
            return None
        try:
            plain = unseal(self._aead, outer.encode(), bytes(data))
            topic, payload = unpack(plain, limit + OVERHEAD, max_depth=2, max_items=3)
        except (CryptoError, UntrustedInput, ValueError, TypeError):
            return None
        if not isinstance(topic, str) or not isinstance(payload, bytes) or len(topic) > MAX_TOPIC:
            return None
        try:
            if self.outer(topic) != outer:  # sealed for another topic: never
                return None
        except ValueError:
            return None
        self._remember(outer, topic)
        return topic, payload

    def _remember(self, outer: str, inner: str) -> None:
        self._inner.pop(outer, None)
        self._inner[outer] = inner
        while len(self._inner) > REMEMBERED:
            del self._inner[next(iter(self._inner))]
