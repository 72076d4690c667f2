"""A deterministic random-byte source for tests, benchmarks and reproducible runs.

``SeededRandom(seed)`` yields SHA-512(``"trutnet/v1/drbg" || seed || u64(counter)``)
blocks. Real play passes ``os.urandom`` instead.
"""

from __future__ import annotations

import hashlib


class SeededRandom:
    __slots__ = ("_buffer", "_counter", "_seed")

    def __init__(self, seed: bytes | str | int) -> None:
        if isinstance(seed, int):
            seed = seed.to_bytes(32, "big", signed=False)
        elif isinstance(seed, str):
            seed = seed.encode()
        self._seed = b"trutnet/v1/drbg" + hashlib.sha256(seed).digest()
        self._counter = 0
        self._buffer = b""

    def __call__(self, size: int) -> bytes:
        while len(self._buffer) < size:
            block = hashlib.sha512(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out
