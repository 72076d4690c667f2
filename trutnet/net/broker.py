"""Brokers behind one small interface: the embedded amqtt broker, or an external one.

* :class:`EmbeddedBroker` starts amqtt in a child process (``broker_main``), so the
  host's own crypto cannot starve deliveries, and stops it; the child also dies if
  the peer dies.
* :class:`ExternalBroker` is any MQTT 3.1.1/5 broker the group already runs
  (Mosquitto, EMQX...), given as ``mqtt://host:port``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_PORT = 1883


class BrokerError(Exception):
    """A broker that cannot be started, reached, or parsed from a URL."""


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"


def parse_broker_url(url: str) -> Endpoint:
    parts = urlsplit(url)
    if parts.scheme != "mqtt" or not parts.hostname or parts.path not in ("", "/"):
        raise BrokerError(f"a broker URL looks like mqtt://host:1883, not {url!r}")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError as exc:
        raise BrokerError(f"bad port in {url!r}") from exc
    return Endpoint(parts.hostname, port)


class ExternalBroker:
    def __init__(self, url: str) -> None:
        self.endpoint = parse_broker_url(url)

    def start(self) -> Endpoint:
        return self.endpoint

    def stop(self) -> None:
        pass


class EmbeddedBroker:
    """amqtt in a child process, bound to ``host`` (LAN play: the LAN interface)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.process: subprocess.Popen[str] | None = None
        self.endpoint: Endpoint | None = None

    def start(self, timeout: float = 15.0) -> Endpoint:
        if self.process is not None:
            raise BrokerError("already started")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "trutnet.net.broker_main",
                self.host,
                str(self.port),
                str(os.getpid()),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if line.startswith("ready "):
                self.port = int(line.split()[1])
                self.endpoint = Endpoint(self.host, self.port)
                return self.endpoint
            if self.process.poll() is not None:
                break
        self.stop()
        raise BrokerError(f"the embedded broker did not start on {self.host}:{self.port}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None
