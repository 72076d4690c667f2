"""A delayed hop on a simulated internet, as a process of its own (run in the public
network's namespace): ``python -m tests.net.hop LISTEN_HOST LISTEN_PORT TARGET_HOST
TARGET_PORT DELAY_MS`` forwards every connection, each chunk ``DELAY_MS`` late both
ways (this kernel has no netem), says ``ready`` on its standard output once it
listens, then ``from HOST`` for each connection, and serves until it is killed."""

from __future__ import annotations

import signal
import sys
import threading

from trutnet.bench.delay_proxy import DelayProxy
from trutnet.net.broker import Endpoint


class SayingProxy(DelayProxy):
    """Says where each connection comes from (``from HOST``): behind NAT, a router's
    public address, never a home's."""

    async def _client(self, reader, writer) -> None:  # type: ignore[no-untyped-def]
        print(f"from {writer.get_extra_info('peername')[0]}", flush=True)
        await super()._client(reader, writer)


def main(argv: list[str]) -> None:
    listen_host, listen_port, target_host, target_port, delay_ms = argv
    proxy = SayingProxy(
        Endpoint(target_host, int(target_port)), float(delay_ms), listen_host, int(listen_port)
    )
    proxy.start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    proxy.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
