"""An MQTT connection for one process (I/O edge, asyncio, aiomqtt).

* Sets ``TCP_NODELAY`` on every connection: paho leaves Nagle on, and QoS 1 round
  trips then take about 44 ms instead of about 1 ms (measured on this machine).
* Reconnects with back-off, re-subscribes, and tells its owner (``on_connect``) so the
  owner can ask for what it missed. Endpoints are tried in order, so a table can move
  to a successor broker when its host is gone (``docs/protocol.md`` 9.3).
* Incoming messages land in an ``asyncio.Queue`` of ``(topic, payload)``; a payload
  larger than any protocol message (``MAX_PAYLOAD``) is dropped and counted before it
  is queued, and a full queue makes the connection wait (back-pressure on a flood)
  instead of growing without bound.
* The MQTT client id is random (96 bits) on every connection: anyone on the LAN can
  open a connection to the broker, and one that guessed a peer's client id would cut
  that peer off (MQTT lets a new session with the same id take over the old one).
* A broker given with a user (``mqtt://USER@host:port``) gets that user name and the
  password of ``$TRUTNET_BROKER_PASSWORD`` on every connection; a broker that refuses
  the connection is remembered in :attr:`MqttLink.refused` (one clear line, never the
  password) and tried again like any lost broker.
* A sealed table's link (``seal``, docs/protocol.md 9.9) seals every message it
  publishes (its last will too) on the topic derived from the table's key, subscribes
  to the derived filters, and hands its owner only what opens with that key, under
  the topic it was sealed for; the rest is dropped and counted (``unopened``).
* Every MQTT client is closed, sockets included, while its event loop still runs
  (:func:`mqtt_client`, :func:`release`): a client left to the garbage collector would
  close its sockets after the loop is gone, through callbacks on that dead loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import aiomqtt
from aiomqtt.exceptions import MqttConnectError

from trutnet.i18n import _
from trutnet.net.broker import (
    BROKER_PASSWORD_ENV,
    BrokerError,
    Endpoint,
    broker_credentials,
    tls_options,
)
from trutnet.protocol.sealed_table import OVERHEAD, TableSeal

log = logging.getLogger("trutnet.net")
# paho's own lines ("failed to receive on socket: ...") are for debugging only: the link
# reports a lost broker itself, and Python would print them on a person's screen.
client_log = logging.getLogger("trutnet.net.mqtt")
client_log.setLevel(logging.CRITICAL)
MAX_PAYLOAD = 80 * 1024  # above the largest entry (64 KiB) and any other message
INBOX_SIZE = 4096


def release(client: aiomqtt.Client) -> None:
    """Close ``client``'s sockets now, on the running loop, and cut its socket callbacks.

    aiomqtt hands paho's socket to the event loop (``add_reader``); paho closes it in
    ``Client.__del__`` if nobody did before, and the callback then reaches for a loop
    that may be closed ("Exception ignored in: Client.__del__"). Closing here, whatever
    way the session ended (refused, cancelled mid-connect, lost), leaves nothing for the
    finalizer; a connection attempt still running in its executor thread finds no
    callback to call when it ends."""
    paho = client._client  # aiomqtt keeps paho's client there
    with contextlib.suppress(Exception):
        paho._reset_sockets()  # paho's own close, its callbacks included
    paho.on_socket_open = None
    paho.on_socket_close = None
    paho.on_socket_register_write = None
    paho.on_socket_unregister_write = None


def current_task_cancelling() -> bool:
    """Whether the running task has been asked to stop (and not told to go on since)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class PinError(aiomqtt.MqttError):
    """The broker's TLS certificate is not the pinned one, or could not be read."""


async def tls_for(endpoint: Endpoint) -> dict[str, Any]:
    """:func:`~trutnet.net.broker.tls_options` off the event loop (a pinned broker's
    certificate is read first); :class:`PinError` for a certificate that is not the
    pinned one."""
    if not endpoint.pin:
        return tls_options(endpoint)
    try:
        return await asyncio.to_thread(tls_options, endpoint)
    except BrokerError as exc:
        raise PinError(str(exc)) from None


@contextlib.asynccontextmanager
async def mqtt_client(endpoint: Endpoint, **options: Any) -> AsyncIterator[aiomqtt.Client]:
    """``async with aiomqtt.Client(...)`` to ``endpoint`` (over TLS for ``mqtts://``,
    :func:`~trutnet.net.broker.tls_options`), then :func:`release`: the one way this
    project opens a short MQTT connection."""
    tls = await tls_for(endpoint)
    client = aiomqtt.Client(
        endpoint.host, endpoint.port, **options, **tls, **broker_credentials(endpoint)
    )
    try:
        async with client:
            yield client
    except aiomqtt.MqttError as exc:  # the disconnect of a cancelled caller failed
        if current_task_cancelling():
            raise asyncio.CancelledError from exc
        raise
    finally:
        release(client)


class MqttLink:
    def __init__(
        self,
        endpoints: Sequence[Endpoint] | Callable[[], Sequence[Endpoint]],
        subscriptions: Sequence[str],
        name: str,
        will: tuple[str, bytes] | None = None,
        on_connect: Callable[[], Awaitable[None]] | None = None,
        seal: TableSeal | None = None,
    ) -> None:
        self._endpoints = endpoints
        # a sealed table's (9.9): every topic and payload goes through it, both ways
        self.seal = seal
        self.unopened = 0  # messages that did not open with the table's key: dropped
        self.refused: str | None = None  # why the last broker turned us down
        self.subscriptions = list(subscriptions)
        self.name = name
        self.will = will
        self.on_connect = on_connect
        self.inbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(INBOX_SIZE)
        self.sink = self.inbox  # where the connection puts messages (a fault wrapper may
        # sit between ``sink`` and ``inbox``)
        self.client: aiomqtt.Client | None = None
        self.connected = asyncio.Event()
        self.endpoint: Endpoint | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.reconnects = 0
        self.disconnected_since: float | None = None
        self.oversized = 0  # payloads dropped unread for their size
        self._sending: set[asyncio.Task[bool]] = set()  # :meth:`send`'s, not yet acked

    def endpoints(self) -> Sequence[Endpoint]:
        return self._endpoints() if callable(self._endpoints) else self._endpoints

    def use_endpoints(self, endpoints: Callable[[], Sequence[Endpoint]]) -> None:
        """From the next connection on, try the brokers ``endpoints()`` lists (a table's
        fallbacks, once its ``open`` entry names them), in that order."""
        self._endpoints = endpoints

    async def start(self) -> None:
        """Connect in the background; a second call does nothing (one connection per
        link, so every message arrives once)."""
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        """Let what :meth:`send` handed over reach the broker (3 s at most), then
        disconnect cleanly if the broker answers within 3 s; otherwise drop it (a
        half-dead broker never acknowledges the DISCONNECT)."""
        if self._sending:
            await asyncio.wait(set(self._sending), timeout=3.0)
        self._closing = True
        if self._task is not None:
            for grace in (3.0, 2.0):
                self._task.cancel()
                done, _pending = await asyncio.wait({self._task}, timeout=grace)
                if done:
                    break
            if self._task.done() and not self._task.cancelled():
                with contextlib.suppress(Exception):
                    self._task.result()

    async def _run(self) -> None:
        delay = 0.1
        for attempt in itertools.count():
            # Always from the top: every peer converges on the earliest live candidate
            # (later successors stand down when an earlier one is alive, 9.3).
            candidates = list(self.endpoints())
            for endpoint in candidates:
                if self._closing:
                    return
                try:
                    await self._session(endpoint)
                    delay = 0.1
                except aiomqtt.MqttError as exc:
                    # aiomqtt's disconnect on the way out of a cancelled session can
                    # raise MqttError in place of the CancelledError: this task was
                    # told to stop, so it stops (else it connects again, and the event
                    # loop's shutdown waits for it for ever).
                    if current_task_cancelling():
                        raise asyncio.CancelledError from exc
                    if isinstance(exc, PinError) or refusal(exc):
                        why = str(exc) if isinstance(exc, PinError) else ""
                        why = why or refused_message(endpoint)
                        if self.refused != why:
                            log.warning("%s: %s", self.name, why)
                        self.refused = why
                    log.debug("%s: %s unreachable or lost: %s", self.name, endpoint.url, exc)
                finally:
                    self.connected.clear()
                    self.client = None
                    if self.disconnected_since is None:
                        self.disconnected_since = asyncio.get_running_loop().time()
            if attempt:
                self.reconnects += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    async def _session(self, endpoint: Endpoint) -> None:
        will = None
        if self.will is not None:
            will = aiomqtt.Will(*self._outgoing(*self.will), qos=1, retain=True)
        client = aiomqtt.Client(
            endpoint.host,
            endpoint.port,
            identifier=f"{self.name}-{secrets.token_hex(12)}",
            will=will,
            keepalive=10,
            timeout=5,
            clean_session=True,
            logger=client_log,
            **await tls_for(endpoint),
            **broker_credentials(endpoint),
        )
        async with contextlib.AsyncExitStack() as stack:
            stack.callback(release, client)
            await stack.enter_async_context(client)
            sock = client._client.socket()  # paho's socket: turn Nagle off
            sock = getattr(sock, "_socket", sock)  # over WebSockets: the one it wraps
            if sock is not None:
                with contextlib.suppress(AttributeError, OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for topic in self.subscriptions:
                await client.subscribe(self._filter(topic), qos=1)
            self.client, self.endpoint = client, endpoint
            self.refused = None
            self.disconnected_since = None
            self.connected.set()
            if self.on_connect is not None:
                await self.on_connect()
            if current_task_cancelling():  # a wait_for above swallowed it (Python 3.11)
                raise asyncio.CancelledError
            async for message in client.messages:
                payload = message.payload
                if not isinstance(payload, bytes | bytearray):
                    continue
                if len(payload) > MAX_PAYLOAD + (0 if self.seal is None else OVERHEAD):
                    self.oversized += 1
                    continue
                incoming = (str(message.topic), bytes(payload))
                if self.seal is not None:
                    opened = self.seal.open(*incoming, MAX_PAYLOAD)
                    if opened is None:
                        self.unopened += 1
                        continue
                    incoming = opened
                await self.sink.put(incoming)

    def _filter(self, topic: str) -> str:
        """The topic (or filter) as the broker sees it."""
        return topic if self.seal is None else self.seal.outer(topic)

    def _outgoing(self, topic: str, payload: bytes) -> tuple[str, bytes]:
        """A message as the broker gets it: sealed, on a sealed table."""
        return (topic, payload) if self.seal is None else self.seal.seal(topic, payload)

    async def subscribe(self, topic: str) -> None:
        if topic not in self.subscriptions:
            self.subscriptions.append(topic)
        if self.client is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await self.client.subscribe(self._filter(topic), qos=1)

    async def resubscribe(self, topic: str) -> None:
        """Subscribe again: the broker sends the topic's retained messages once more."""
        if self.client is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await self.client.subscribe(self._filter(topic), qos=1)

    def send(self, topic: str, payload: bytes, wait: float = 30.0) -> None:
        """Publish without waiting for the broker's acknowledgement: the message goes
        out in the order of the calls (each call's publish starts before the next's),
        and the caller's next message need not wait a round trip. For a message the
        protocol repairs if it is lost (a log entry: sync, 9.2); :meth:`close` lets
        the ones under way finish."""
        task = asyncio.get_running_loop().create_task(self.publish(topic, payload, wait=wait))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def publish(
        self, topic: str, payload: bytes, retain: bool = False, wait: float = 30.0
    ) -> bool:
        """Publish with QoS 1; wait for a connection first (up to ``wait`` seconds)."""
        deadline = asyncio.get_running_loop().time() + wait
        while not self._closing:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return False
            try:
                await asyncio.wait_for(self.connected.wait(), remaining)
            except TimeoutError:
                return False
            client = self.client
            if client is None:
                continue
            try:
                await client.publish(*self._outgoing(topic, payload), qos=1, retain=retain)
                return True
            except aiomqtt.MqttError:
                await asyncio.sleep(0.05)
        return False


# CONNACK codes that mean "not you": MQTT 3.1.1 (4, 5) and MQTT 5 (134, 135).
_REFUSED = {4, 5, 134, 135}


def refusal(exc: BaseException) -> bool:
    """Whether ``exc`` is a broker turning down our connection (it wants a user name
    and password, or not the ones we gave)."""
    if not isinstance(exc, MqttConnectError):
        return False
    code = getattr(exc, "rc", None)
    value = getattr(code, "value", code)
    return isinstance(value, int) and value in _REFUSED


def refused_message(endpoint: Endpoint) -> str:
    """A broker that turned us down, in one line: what to give it."""
    if endpoint.user is not None:
        return _(
            "the broker at {url} refused user {user}: wrong or missing password (set {variable})"
        ).format(url=endpoint.url, user=endpoint.user, variable=BROKER_PASSWORD_ENV)
    return _(
        "the broker at {url} refused the connection: it asks for a user name, given as"
        " mqtt://USER@host:port, and a password, set in {variable}"
    ).format(url=endpoint.url, variable=BROKER_PASSWORD_ENV)
