"""The embedded broker's own process:
``python -m trutnet.net.broker_main HOST PORT [PARENT_PID [KIND FOLDER [BRIDGE_URL]]]``.

The broker runs here, apart from the peer, so the peer's crypto (tens of ms per
proof) never stalls message delivery. KIND ``amqtt`` (the default) runs amqtt in this
process and prints ``ready PORT`` once it accepts connections. KIND ``mosquitto``
writes Mosquitto's config in FOLDER, prints ``port PORT`` and becomes Mosquitto
(``exec``): the parent waits until the port accepts. Anyone may connect. BRIDGE_URL
(Mosquitto only): a rendezvous broker the sealed tables' topics are bridged to, both
ways.

It dies with its parent, at once: a broker that outlives a killed host keeps its
port open and half-works, and the table's peers, trying that address first, would
sit on it instead of moving to a successor (``docs/protocol.md`` 9.3). Linux
``PR_SET_PDEATHSIG`` sends SIGKILL (no graceful shutdown to hang), and a watch on
the parent pid covers the start-up race and systems without it.

amqtt's connections are bounded by the files the process may open
(:func:`connection_limit`), not by a fixed count: a broker that serves many tables
(a rendezvous for friends beyond one LAN, ``bench network``'s load) stops where the
machine does. Mosquitto's are too, by its own default.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import resource
import signal
import socket
import sys
from pathlib import Path


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


FILES_KEPT = 64  # open files a broker keeps for itself (its listener, logs, imports)
MOST_FILES = 65_536  # the most open files the broker asks for, when allowed more


def connection_limit() -> int:
    """The connections amqtt may take: as many as this process may open files (its
    soft limit raised to the hard one, up to :data:`MOST_FILES`), less
    :data:`FILES_KEPT`; a connection past that is refused rather than crashing the
    broker with ``EMFILE``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MOST_FILES if hard == resource.RLIM_INFINITY else min(hard, MOST_FILES)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):  # not allowed here: keep the soft limit
            pass
    if soft == resource.RLIM_INFINITY:
        soft = MOST_FILES
    return max(1, soft - FILES_KEPT)


def broker_config(host: str, port: int, connections: int | None = None) -> dict[str, object]:
    """amqtt's config: anonymous clients, at most ``connections`` at once (by default
    :func:`connection_limit`)."""
    if connections is None:
        connections = connection_limit()
    # Supplying plugins replaces amqtt's defaults: anonymous auth must be listed.
    plugins = {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}
    return {
        "listeners": {
            "default": {"type": "tcp", "bind": f"{host}:{port}", "max_connections": connections}
        },
        "plugins": plugins,
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
    kind = sys.argv[4] if len(sys.argv) > 4 else "amqtt"
    folder = Path(sys.argv[5]) if len(sys.argv) > 5 else None
    bridge = sys.argv[6] if len(sys.argv) > 6 else None
    if parent is not None and os.getppid() != parent:
        return  # the parent died before we could ask to die with it
    if kind == "mosquitto" and folder is not None:
        from trutnet.net.broker import (
            SECRET_VARIABLES,
            bridge_endpoint,
            mosquitto_binary,
            mosquitto_config,
        )

        binary = mosquitto_binary()
        if binary is None:
            sys.exit(1)
        rendezvous = bridge_endpoint(bridge) if bridge is not None else None
        conf = mosquitto_config(host, port, folder, rendezvous)
        print(f"port {port}", flush=True)
        # PR_SET_PDEATHSIG is kept across exec: Mosquitto dies with our parent too.
        # its config holds a rendezvous's password, if any: not its environment
        env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
        os.execve(binary, [binary, "-c", str(conf)], env)
    asyncio.run(serve(host, port, parent))


if __name__ == "__main__":
    main()
