"""A TCP proxy in front of the broker that reads MQTT client ids off CONNECT packets,
as anyone sniffing the LAN can (MQTT here is plaintext). For the session takeover case.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

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


class SniffingProxy:
    """Forwards 127.0.0.1:<port> to the broker; ``client_ids`` lists every client id
    that connected through it, in order."""

    def __init__(self, broker_url: str) -> None:
        self.target = parse_broker_url(broker_url)
        self.client_ids: list[str] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()
        assert self._ready.wait(10), "the proxy did not start"

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        server = loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target.host, self.target.port)
        except OSError:
            writer.close()
            return
        first = True

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter, sniff: bool) -> None:
            nonlocal first
            buffered = b""
            try:
                while data := await src.read(65536):
                    if sniff and first:
                        buffered += data
                        found = client_id(buffered)
                        if found is not None or len(buffered) > 4096:
                            first = False
                            if found:
                                self.client_ids.append(found)
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    dst.close()

        await asyncio.gather(pump(reader, up_writer, True), pump(up_reader, writer, False))
