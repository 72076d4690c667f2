"""Strict parsing of the crypto library's canonical binary encodings.

A :class:`Reader` takes exactly what a format says and fails with a
:class:`~trutnet.crypto.errors.DecodeError` on anything else: short input, trailing
bytes, invalid points, non-canonical scalars.
"""

from __future__ import annotations

from trutnet.crypto.errors import DecodeError
from trutnet.crypto.group import POINT_BYTES, SCALAR_BYTES, Point, decode_point, decode_scalar


class Reader:
    __slots__ = ("_data", "_pos")

    def __init__(self, data: bytes) -> None:
        if not isinstance(data, bytes | bytearray):
            raise DecodeError("expected bytes")
        self._data = bytes(data)
        self._pos = 0

    def take(self, size: int) -> bytes:
        end = self._pos + size
        if end > len(self._data):
            raise DecodeError("input too short")
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def point(self) -> Point:
        return decode_point(self.take(POINT_BYTES))

    def points(self, count: int) -> list[Point]:
        return [self.point() for _ in range(count)]

    def scalar(self, nonzero: bool = False) -> int:
        return decode_scalar(self.take(SCALAR_BYTES), nonzero)

    def scalars(self, count: int) -> list[int]:
        return [self.scalar() for _ in range(count)]

    def end(self) -> None:
        if self._pos != len(self._data):
            raise DecodeError(f"{len(self._data) - self._pos} trailing bytes")
