"""A joiner's view of a table before it sits (asyncio, I/O edge): whether the broker
answers (:func:`probe_broker`, one line saying why not), the host's signed lobby
announcement (:func:`lobby_announcement`: its status, game, seats), and
:func:`watch_lobby`, which follows it until the seat is seated. A join that cannot go
on raises :class:`JoinError`, whose message is one line for a person; a table of
another game than the one asked for, :class:`WrongGame`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trutnet.i18n import N_, _, number
from trutnet.net import topics
from trutnet.net.broker import Endpoint
from trutnet.net.mqtt_link import PinError, mqtt_client
from trutnet.protocol.clock import ClockRule
from trutnet.protocol.lobby import (
    CLOCK,
    MAX_ANNOUNCEMENT,
    SEATED,
    LobbyError,
    check_announcement,
)
from trutnet.protocol.sealed_table import TableSeal
from trutnet.runtime.local_seat import LocalSeat

LOBBY_TIMEOUT = 15.0  # seconds a joiner waits for its table's host to be seen (lobby)
PROBE_TIMEOUT = 5.0  # seconds to reach a broker before saying it cannot be reached
# a table's status (a lobby token) as a person reads it
STATUS_SAID = {"open": N_("open"), "playing": N_("playing")}
NO_HOST = N_(
    "no host answers for table {table} at {url} (waited {timeout} s):"
    " the table id is wrong, or its host has left"
)


class JoinError(Exception):
    """A join that cannot go on; the message says what and why, in one line."""


class WrongGame(JoinError):
    """The table plays another game than the one this seat asked for."""

    def __init__(self, table_id: bytes, game: str, asked: str, name: str | None = None) -> None:
        if name:  # as the person named it
            said = _("table {name} plays {game}, not {asked}").format(
                name=repr(name), game=game, asked=asked
            )
        else:
            said = _("table {id} plays {game}, not {asked}").format(
                id=table_id.hex(), game=game, asked=asked
            )
        super().__init__(said)
        self.game = game
        self.asked = asked


def _reason(exc: BaseException, timeout: float) -> str:
    """Why a connection failed, in a person's words."""
    if isinstance(exc, TimeoutError):
        return _("no answer within {timeout} s").format(timeout=number(timeout))
    if isinstance(exc, ConnectionRefusedError):
        return _("connection refused (nothing listens on that port)")
    if isinstance(exc, socket.gaierror):
        return _("unknown host name")
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    text = re.sub(r"^\[Errno \d+\] ", "", str(exc)) or type(exc).__name__
    return text[0].lower() + text[1:]


async def probe_broker(
    endpoint: Endpoint,
    timeout: float = PROBE_TIMEOUT,
) -> None:
    """Connect to the MQTT broker at ``endpoint`` and leave; :class:`JoinError` saying
    why when that does not work within ``timeout`` seconds, or when the broker refuses
    us."""
    import aiomqtt

    from trutnet.net.mqtt_link import refusal, refused_message

    url = endpoint.url
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(endpoint.host, endpoint.port), timeout
        )
    except (OSError, TimeoutError) as exc:
        raise JoinError(
            _("cannot reach the broker at {url}: {why}").format(url=url, why=_reason(exc, timeout))
        ) from None
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    try:
        async with (
            asyncio.timeout(timeout),
            mqtt_client(endpoint, timeout=timeout),
        ):
            pass
    except (aiomqtt.MqttError, OSError, TimeoutError) as exc:
        if refusal(exc):
            raise JoinError(refused_message(endpoint)) from None
        if isinstance(exc, PinError):  # not the pinned certificate: nothing was sent
            raise JoinError(
                _("cannot reach the broker at {url}: {why}").format(url=url, why=exc)
            ) from None
        if endpoint.tls and "CERTIFICATE_VERIFY_FAILED" in str(exc):
            raise JoinError(
                _(
                    "cannot reach the broker at {url}: its TLS certificate is not one this"
                    " machine trusts ({why}); trust its authority (SSL_CERT_FILE=its-ca.pem)"
                    " or ask for the broker's right address"
                ).format(url=url, why=_reason(exc, timeout))
            ) from None
        if endpoint.tls and "SSL" in str(exc).upper():
            raise JoinError(
                _("cannot reach the broker at {url}: no TLS with it ({why})").format(
                    url=url, why=_reason(exc, timeout)
                )
            ) from None
        raise JoinError(
            _(
                "cannot reach the broker at {url}: it does not answer as an MQTT broker ({why})"
            ).format(url=url, why=_reason(exc, timeout))
        ) from None


def _announcement(payload: bytes, table_id: bytes) -> dict[str, Any] | None:
    """The host's retained lobby announcement (its status, "open" or "playing", its
    game...), or None when there is none (cleared by the host's last will) or it is
    not one the table's own host signed (7.10). Only used to tell a person why a join
    cannot go on, and which game the table plays."""
    if not payload:
        return None
    try:
        return check_announcement(payload, table_id)
    except LobbyError:  # forged, of another table, malformed: as good as none
        return None


def _lobby_status(payload: bytes, table_id: bytes) -> str | None:
    """The status of the host's lobby announcement in ``payload`` (see
    :func:`_announcement`)."""
    announced = _announcement(payload, table_id)
    return None if announced is None else str(announced["status"])


async def lobby_status(
    table_id: bytes,
    endpoint: Endpoint,
    timeout: float,
    seal: TableSeal | None = None,
) -> str:
    """Wait up to ``timeout`` s for the host's lobby announcement of ``table_id`` at
    ``endpoint`` (read with ``seal`` on a sealed table); its status, or
    :class:`JoinError` when no host is there."""
    announced = await lobby_announcement(table_id, endpoint, timeout, seal)
    return str(announced["status"])


async def lobby_announcement(
    table_id: bytes,
    endpoint: Endpoint,
    timeout: float,
    seal: TableSeal | None = None,
) -> dict[str, Any]:
    """Wait up to ``timeout`` s for the host's lobby announcement of ``table_id`` at
    ``endpoint`` (its status, game, variant, seats...; read with ``seal`` on a sealed
    table); :class:`JoinError` when no host is there."""
    import aiomqtt

    try:
        async with (
            asyncio.timeout(timeout),
            mqtt_client(endpoint, timeout=min(timeout, 5)) as client,
        ):
            await client.subscribe(_lobby_topic(table_id, seal), qos=1)
            async for message in client.messages:
                announced = _announcement(_opened(message, seal), table_id)
                if announced is not None:
                    return announced
    except TimeoutError:
        pass
    except aiomqtt.MqttError as exc:
        raise JoinError(
            _("lost the broker at {url}: {why}").format(url=endpoint.url, why=_reason(exc, timeout))
        ) from None
    said = _(NO_HOST).format(table=table_id.hex(), url=endpoint.url, timeout=number(timeout))
    raise JoinError(said)


def _lobby_topic(table_id: bytes, seal: TableSeal | None) -> str:
    """The lobby's topic as the broker knows it: sealed on a sealed table (9.9)."""
    topic = topics.lobby(table_id)
    return topic if seal is None else seal.outer(topic)


def _opened(message: Any, seal: TableSeal | None) -> bytes:
    """A lobby message's payload, opened on a sealed table (empty: none, or one that
    does not open with the table's key)."""
    payload = message.payload if isinstance(message.payload, bytes) else b""
    if seal is None or not payload:
        return payload
    opened = seal.open(str(message.topic), payload, MAX_ANNOUNCEMENT)
    return b"" if opened is None else opened[1]


@dataclass(frozen=True)
class Follow:
    """Who follows a lobby, and what it is told. ``spectator``: a spectator's wait ends
    with the ``open`` (it has no seat), and a table playing without it is no failure;
    ``game``: the game asked for (:class:`WrongGame` at once for another); ``on_roster``:
    who the host says is seated, as it changes (seat, name, ``"bot"`` for a bot the host
    seated, else ``""``); ``on_status``: the table's status (``open``, ``playing``...);
    ``on_clock``: the table's turn clock, when the host announces one (7.11)."""

    spectator: bool = False
    game: str | None = None
    on_roster: Callable[[list[tuple[int, str, str]]], None] | None = None
    on_status: Callable[[str], None] | None = None
    on_clock: Callable[[ClockRule], None] | None = None


class _Lobby:
    """What a follower has seen of a lobby: the status, since when, the first one."""

    def __init__(self, table_id: bytes, endpoint: Endpoint, timeout: float, follow: Follow) -> None:
        self.table_id, self.endpoint = table_id, endpoint
        self.timeout, self.follow = timeout, follow
        self.status: str | None = None
        self.seen: str | None = None
        self.since = asyncio.get_running_loop().time()

    def check(self, opened: bool) -> None:
        """:class:`JoinError` once the lobby has been wrong for ``timeout`` seconds."""
        loop, table = asyncio.get_running_loop(), self.table_id.hex()
        if opened or loop.time() - self.since < self.timeout:
            return
        if self.status is None:
            if self.seen is None:
                said = _(NO_HOST).format(
                    table=table, url=self.endpoint.url, timeout=number(self.timeout)
                )
                raise JoinError(said)
            raise JoinError(
                _("the host of table {table} left before the game started").format(table=table)
            )
        if self.status != "open" and not self.follow.spectator:
            status = STATUS_SAID.get(self.status)
            raise JoinError(
                _("table {table} is {status} without this seat: every seat is taken").format(
                    table=table, status=_(status) if status else self.status
                )
            )

    def read(self, payload: Any) -> None:
        """One retained announcement (or its clearing by the host's will)."""
        follow = self.follow
        announced = _announcement(payload if isinstance(payload, bytes) else b"", self.table_id)
        if follow.game is not None and announced is not None and announced["game"] != follow.game:
            raise WrongGame(self.table_id, announced["game"], follow.game)
        if follow.on_roster is not None and announced is not None and SEATED in announced:
            seated = announced[SEATED]
            follow.on_roster([(s, n, "bot" if bot else "") for s, (n, bot) in enumerate(seated)])
        if follow.on_clock is not None and announced is not None and CLOCK in announced:
            follow.on_clock(ClockRule.parse(announced[CLOCK]))  # checked with the rest
        now = None if announced is None else str(announced["status"])
        if now != self.status:
            self.status, self.since = now, asyncio.get_running_loop().time()
            self.seen = self.seen or now
            if now is not None and follow.on_status is not None:
                follow.on_status(now)


async def watch_lobby(
    table_id: bytes,
    endpoint: Endpoint,
    seat: LocalSeat,
    timeout: float = LOBBY_TIMEOUT,
    follow: Follow | None = None,
    seal: TableSeal | None = None,
) -> None:
    """Until ``seat`` is seated (the host's ``open`` names it; a spectator's: until it
    has the ``open``), watch the table's lobby announcement: :class:`JoinError` when no
    host has been there for ``timeout`` s (never came, or left: its last will clears
    the announcement), when the table has been playing without this seat for
    ``timeout`` s (every seat taken; not for a spectator), or when the broker cannot be
    reached again for ``timeout`` s; :class:`WrongGame` at once when the host announces
    another game than the one asked for (``follow``)."""
    import aiomqtt

    loop = asyncio.get_running_loop()
    lobby = _Lobby(table_id, endpoint, timeout, follow or Follow())
    lost: float | None = None  # since when the broker cannot be reached

    def opened() -> bool:
        return seat.peer is not None and seat.peer.replica.state is not None

    while not opened():
        try:
            async with mqtt_client(endpoint, timeout=5) as client:
                await client.subscribe(_lobby_topic(table_id, seal), qos=1)
                lost = None
                messages = aiter(client.messages)
                while not opened():
                    try:
                        message = await asyncio.wait_for(anext(messages), 0.5)
                    except TimeoutError:
                        lobby.check(opened())
                        continue
                    lobby.read(_opened(message, seal))
                    lobby.check(opened())
        except aiomqtt.MqttError as exc:
            lost = lost if lost is not None else loop.time()
            if loop.time() - lost >= timeout:
                why = _reason(exc, timeout)
                raise JoinError(
                    _("lost the broker at {url} (host gone?): {why}").format(
                        url=endpoint.url, why=why
                    )
                ) from None
            await asyncio.sleep(1)
