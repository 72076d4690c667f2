"""The embedded broker's own process:
``python -m trutnet.net.broker_main HOST PORT [PARENT_PID]``.

amqtt runs here, apart from the peer, so the peer's crypto (tens of ms per proof)
never stalls message delivery. It prints ``ready PORT`` once it accepts connections.

It dies with its parent, at once: a broker that outlives a killed host keeps its
port open and half-works, and the table's peers, trying that address first, would
sit on it instead of moving to a successor (``docs/protocol.md`` 9.3). Linux
``PR_SET_PDEATHSIG`` sends SIGKILL (no graceful shutdown to hang), and a watch on
the parent pid covers the start-up race and systems without it.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import signal
import socket
import sys


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the watch below does it
        pass


async def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:  # the parent is gone (we were re-parented)
            os._exit(0)
        await asyncio.sleep(0.25)


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def broker_config(host: str, port: int) -> dict[str, object]:
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}", "max_connections": 256}},
        # Supplying plugins replaces amqtt's defaults: anonymous auth must be listed.
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


async def serve(host: str, port: int, parent: int | None = None) -> None:
    from amqtt.broker import Broker

    watch = asyncio.create_task(_watch_parent(parent)) if parent is not None else None
    broker = Broker(broker_config(host, port))
    await broker.start()
    print(f"ready {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    if watch is not None:
        watch.cancel()
    await broker.shutdown()


def main() -> None:
    _die_with_parent()
    logging.basicConfig(level=logging.ERROR)
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
    port = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "0" else _free_port(host)
    parent = int(sys.argv[3]) if len(sys.argv) > 3 else None
    if parent is not None and os.getppid() != parent:
        return  # the parent died before we could ask to die with it
    asyncio.run(serve(host, port, parent))


if __name__ == "__main__":
    main()
