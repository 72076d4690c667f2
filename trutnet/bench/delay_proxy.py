"""A TCP proxy that delays every hop, for ``trutnet bench network --hop-delay-ms``.

This kernel has no netem, so the latency of a LAN or Wi-Fi is simulated here: the
peers connect to the proxy instead of the broker, and every chunk read on either side
of a connection is written to the other side ``delay_ms`` after it was read, in the
order it was read. A message from one peer to another thus crosses two delayed hops
(peer to broker, broker to peer). The proxy runs its own event loop in a thread, so
it works beside code that blocks (the benchmark waits on its peer processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from trutnet.net.broker import Endpoint

CHUNK = 64 * 1024


class DelayProxy:
    """Forwards ``host:port`` (loopback, any free port by default) to ``target``, each
    chunk ``delay_ms`` late."""

    def __init__(
        self, target: Endpoint, delay_ms: float, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        if delay_ms < 0:
            raise ValueError("a delay is 0 ms or more")
        self.target = target
        self.delay = delay_ms / 1000
        self.host = host
        self.port = port
        self.connections = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="delay-proxy", daemon=True)

    @property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.host, self.port)

    def start(self) -> Endpoint:
        self._thread.start()
        if not self._ready.wait(10):
            raise OSError("the delaying proxy did not start")
        return self.endpoint

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def __enter__(self) -> DelayProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        server = loop.run_until_complete(asyncio.start_server(self._client, self.host, self.port))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            # every task ends here, on its own loop: one left pending would be finalised
            # later by the garbage collector, in whatever the main thread is doing then
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target.host, self.target.port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(
            self._pipe(reader, up_writer, self.listener()),
            self._pipe(up_reader, writer, None),
            return_exceptions=True,
        )

    def listener(self) -> Callable[[bytes], None] | None:
        """For a new connection: what hears each chunk its client sends towards the
        target, as it is read (none here; a subclass may look at what crosses the
        wire, as anyone on the LAN can)."""
        return None

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        tap: Callable[[bytes], None] | None,
    ) -> None:
        """One direction: read chunks as they come, write each ``delay`` later, in order."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def late_writer() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(chunk)
                await writer.drain()

        sender = asyncio.create_task(late_writer())
        try:
            while (chunk := await reader.read(CHUNK)) and not sender.done():
                if tap is not None:
                    tap(chunk)
                queue.put_nowait((loop.time() + self.delay, chunk))
        except OSError:
            pass
        finally:
            queue.put_nowait((loop.time() + self.delay, b""))  # the end, after the rest
            with contextlib.suppress(Exception):
                await sender
            with contextlib.suppress(Exception):
                writer.close()
