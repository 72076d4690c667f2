"""A TCP proxy in front of the broker that reads MQTT client ids off CONNECT packets,
as anyone sniffing the LAN can (MQTT here is plaintext). For the session takeover case.
"""

from __future__ import annotations

from collections.abc import Callable

from trutnet.bench.delay_proxy import DelayProxy
from trutnet.net.broker import parse_broker_url


def client_id(packet: bytes) -> str | None:
    """The client identifier of an MQTT 3.1.1 or 5 CONNECT packet, if ``packet``
    starts with a whole one."""
    if not packet or packet[0] >> 4 != 1:
        return None
    pos, length, shift = 1, 0, 0
    while pos < len(packet):  # remaining length, variable byte integer
        byte = packet[pos]
        length |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            break
    if len(packet) < pos + length:
        return None
    name_len = int.from_bytes(packet[pos : pos + 2], "big")
    pos += 2 + name_len
    level = packet[pos]
    pos += 1 + 1 + 2  # level, flags, keep alive
    if level == 5:  # properties: a variable byte integer length, then the properties
        props, shift = 0, 0
        while True:
            byte = packet[pos]
            props |= (byte & 0x7F) << shift
            pos += 1
            shift += 7
            if not byte & 0x80:
                break
        pos += props
    size = int.from_bytes(packet[pos : pos + 2], "big")
    return packet[pos + 2 : pos + 2 + size].decode(errors="replace")


class SniffingProxy(DelayProxy):
    """Forwards 127.0.0.1:<port> to the broker, with no delay; ``client_ids`` lists
    every client id that connected through it, in order."""

    def __init__(self, broker_url: str) -> None:
        super().__init__(parse_broker_url(broker_url), 0)
        self.client_ids: list[str] = []

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def listener(self) -> Callable[[bytes], None]:
        """Reads the client id off the first packet of each connection (its CONNECT)."""
        buffered: bytes | None = b""

        def hear(chunk: bytes) -> None:
            nonlocal buffered
            if buffered is None:  # the CONNECT is behind us
                return
            buffered += chunk
            found = client_id(buffered)
            if found is not None or len(buffered) > 4096:
                buffered = None
                if found:
                    self.client_ids.append(found)

        return hear
