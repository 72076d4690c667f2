"""The embedded broker's own process: ``python -m trutnet.net.broker_main HOST PORT``.

amqtt runs here, apart from the peer, so the peer's crypto (tens of ms per proof)
never stalls message delivery. The process dies with its parent (Linux
``PR_SET_PDEATHSIG``) and prints ``ready PORT`` once it accepts connections.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import signal
import socket
import sys


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent stops us explicitly
        pass


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


async def serve(host: str, port: int) -> None:
    from amqtt.broker import Broker

    broker = Broker(broker_config(host, port))
    await broker.start()
    print(f"ready {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await broker.shutdown()


def main() -> None:
    _die_with_parent()
    logging.basicConfig(level=logging.ERROR)
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    host = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1"
    port = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "0" else _free_port(host)
    asyncio.run(serve(host, port))


if __name__ == "__main__":
    main()
