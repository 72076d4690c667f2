"""Invitation codes and private tables' passwords over a broker (asyncio, I/O edge):
the host serves a code or a password (:class:`InvitationServer`), a guest trades it
for the host's welcome (:func:`accept_invitation`). The exchange itself is
:mod:`trutnet.protocol.invitation`; this module carries it (docs/protocol.md 9.9,
9.10), at a place: a code's nameplate, or a private table's id in hex:

``trutnet/v1/invite/<p>``                  retained: the place's claim (16 random
                                          bytes of its host), cleared by its last will
``trutnet/v1/invite/<p>/ask``              a guest's ask
``trutnet/v1/invite/<p>/confirm``          a guest's confirmation
``trutnet/v1/invite/<p>/answer/<id>``      the host's answer, then its welcome (``id``:
                                          the ask's, in hex)

A host of a code draws a free nameplate: one whose claim is someone else's is left for
another draw; a private table's place is its id. It listens for asks before it claims,
and serves the code until it stops: to seats until its table is full, to spectators
(an ask that says ``watch``) after; a lost broker is reached again and the place
claimed again, with the same code. Every
message is QoS 1 and bounded; what does not read as the exchange is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
import msgpack

from trutnet.crypto.channel import KEY_BYTES
from trutnet.i18n import N_, _
from trutnet.net import topics
from trutnet.net.broker import Endpoint
from trutnet.net.mqtt_link import mqtt_client
from trutnet.protocol.invitation import (
    MAX_MESSAGE,
    MAX_PENDING,
    MAX_WELCOME,
    NAMEPLATES,
    Code,
    InvitationError,
    InvitationGuest,
    InvitationHost,
    Secret,
    TablePassword,
)
from trutnet.protocol.sealed_table import TableSeal
from trutnet.protocol.untrusted import UntrustedInput, unpack

LIFETIME = 600.0  # seconds a code is good for, by default
ANSWER_TIMEOUT = 15.0  # seconds a guest waits for each of the host's two replies
CLAIM_BYTES = 16
DRAWS = 20  # nameplates tried before giving up
RECONNECT = 1.0  # seconds between tries to reach a lost broker again, once a code is served


claim_topic, ask_topic = topics.invite_claim, topics.invite_ask
confirm_topic, answer_topic = topics.invite_confirm, topics.invite_answer


# why a code did not work, as a person reads it (``InvitationError.reason``)
REFUSED_SAID = {
    "expired": N_("the code has expired: ask the host for a new one"),
    "burned": N_("the code was tried too many times with wrong words: ask the host for a new one"),
    "closed": N_("the table of this code is full or closed"),
    "busy": N_("the host is answering other guests: try again in a moment"),
    "wrong": N_("the code did not match: check its words with the host"),
    "locked": N_(
        "the table refused too many wrong passwords and takes none for a while:"
        " try again in a few minutes"
    ),
}
# the same, where a private table's password took the code's place
PASSWORD_SAID = {
    **REFUSED_SAID,
    "closed": N_("the table is full or closed"),
    "wrong": N_("wrong table password"),
}


def refusal_said(reason: str, secret: Secret, default: str) -> str:
    """Why ``secret`` did not work (an :class:`InvitationError`'s reason), in a line."""
    said = PASSWORD_SAID if isinstance(secret, TablePassword) else REFUSED_SAID
    return _(said[reason]) if reason in said else default


class InvitationServer:
    """Serves one code (or ``password``, at its table's id) at one broker until
    :meth:`stop`: draws a free nameplate, claims it, answers asks and confirmations.
    ``welcome``: the bytes a guest with the right code gets. ``clock``: the time source
    (seconds)."""

    def __init__(
        self,
        endpoint: Endpoint,
        welcome: bytes,
        lifetime: float = LIFETIME,
        password: TablePassword | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.endpoint, self.welcome, self.lifetime = endpoint, welcome, lifetime
        self.password, self.clock, self.rng = password, clock, rng
        self.code: Secret | None = password
        self.host: InvitationHost | None = None
        self.ready = asyncio.Event()  # the code is claimed and served
        self._early: list[Any] = []  # asks that came while the nameplate was claimed
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> Secret:
        """Serve in the background; the code, once its nameplate is claimed."""
        self._task = asyncio.create_task(self._serve())
        ready = asyncio.create_task(self.ready.wait())
        await asyncio.wait({ready, self._task}, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if not self.ready.is_set():
            self._task.result()  # its error
        assert self.code is not None
        return self.code

    def close(self) -> None:
        """Take no more seats (the table is full): a seat's ask is refused as closed,
        a spectator's still welcomed."""
        if self.host is not None:
            self.host.closed = True

    async def stop(self) -> None:
        """Stop serving: the nameplate's claim is cleared (or its last will clears it)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await task

    async def _serve(self) -> None:
        if self.password is not None:  # a private table's place is its id
            if not await self._serve_at(self.password.place, self.rng(CLAIM_BYTES)):
                raise InvitationError("this table's id is claimed by another host")
            return
        for _draw in range(DRAWS):
            nameplate = 1 + secrets.randbelow(NAMEPLATES)
            if await self._serve_at(nameplate, self.rng(CLAIM_BYTES)):
                return
        raise InvitationError("no free nameplate at this broker")

    async def _serve_at(self, nameplate: int | str, token: bytes) -> bool:
        """Claim ``nameplate`` and answer on it; False if it is someone else's. Once the
        code is served, a lost broker is reached again (every :data:`RECONNECT` s) and
        the nameplate claimed again, with the same code, until :meth:`stop`; if
        another host took the nameplate meanwhile, the code is no longer served."""
        while True:
            will = aiomqtt.Will(claim_topic(nameplate), b"", qos=1, retain=True)
            try:
                async with mqtt_client(self.endpoint, timeout=5, will=will) as client:
                    if not await self._claimed(client, nameplate, token):
                        return self.ready.is_set()  # taken: by another, or while away
                    try:
                        await self._answer(client, nameplate)
                    finally:
                        with contextlib.suppress(aiomqtt.MqttError):
                            await client.publish(claim_topic(nameplate), b"", qos=1, retain=True)
                    return True
            except (aiomqtt.MqttError, OSError):
                if not self.ready.is_set():
                    raise  # the first claim: the host says why it cannot serve a code
            await asyncio.sleep(RECONNECT)  # the broker restarts, or the line comes back

    async def _claimed(self, client: aiomqtt.Client, nameplate: int | str, token: bytes) -> bool:
        """Claim ``nameplate``; False if it is someone else's. A claim there before ours
        comes back first (a retained message arrives right after the subscription),
        then our own: whichever comes first decides. The asks and confirmations are
        subscribed to first, so that none sent once the claim shows is lost (a guest
        may ask as soon as it does); those that come meanwhile wait in
        ``self._early`` for :meth:`_answer`."""
        self._early = []
        await client.subscribe(ask_topic(nameplate), qos=1)
        await client.subscribe(confirm_topic(nameplate), qos=1)
        await client.subscribe(claim_topic(nameplate), qos=1)
        await client.publish(claim_topic(nameplate), token, qos=1, retain=True)
        async with asyncio.timeout(ANSWER_TIMEOUT):
            async for message in client.messages:
                if not message.topic.matches(claim_topic(nameplate)):
                    if len(self._early) < MAX_PENDING:
                        self._early.append(message)
                    continue
                if message.payload == token:
                    break
                if isinstance(message.payload, bytes) and message.payload:
                    return False
        await client.unsubscribe(claim_topic(nameplate))
        if self.host is None:  # the first claim makes the code; a claim again keeps it
            if self.code is None:
                assert isinstance(nameplate, int)
                self.code = Code.make(self.rng, nameplate)
            self.host = InvitationHost(self.code, self.welcome, self.clock(), self.lifetime)
        return True

    async def _answer(self, client: aiomqtt.Client, nameplate: int | str) -> None:
        assert self.host is not None
        self.ready.set()
        async for message in _then(self._early, client.messages):
            payload = message.payload
            if not isinstance(payload, bytes) or len(payload) > MAX_MESSAGE:
                continue
            if message.topic.matches(ask_topic(nameplate)):
                reply = self.host.ask(payload, self.clock())
            elif message.topic.matches(confirm_topic(nameplate)):
                reply = self.host.confirm(payload, self.clock())
            else:
                continue
            if reply is not None:
                await client.publish(answer_topic(nameplate, reply[0]), reply[1], qos=1)


async def _then(first: list[Any], rest: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """The messages of ``first``, then those of ``rest``."""
    for message in first:
        yield message
    async for message in rest:
        yield message


async def accept_invitation(
    endpoint: Endpoint,
    code: Secret,
    timeout: float = ANSWER_TIMEOUT,
    rng: Callable[[int], bytes] = os.urandom,
    watch: bool = False,
) -> bytes:
    """The host's welcome for ``code`` (or a private table's password; ``watch``: as a
    spectator, also once the table is full); :class:`InvitationError` with a line for
    a person (a wrong code or password, a refusal, nobody answering)."""
    guest = InvitationGuest(code, rng, watch)
    answers = answer_topic(code.place, guest.id)
    async with mqtt_client(endpoint, timeout=5) as client:
        await client.subscribe(answers, qos=1)
        await client.publish(ask_topic(code.place), guest.ask(), qos=1)
        messages = _replies(client, answers, timeout, code)
        try:
            confirmation = guest.answer(await anext(messages))
        except InvitationError as exc:
            raise InvitationError(refusal_said(exc.reason, code, str(exc)), exc.reason) from None
        await client.publish(confirm_topic(code.place), confirmation, qos=1)
        try:
            return guest.welcome(await anext(messages))
        except InvitationError as exc:
            raise InvitationError(refusal_said(exc.reason, code, str(exc)), exc.reason) from None


def _silent_said(code: Secret, timeout: float) -> str:
    if isinstance(code, TablePassword):
        return _(
            "nobody answers for table {id} at this broker (waited {timeout} s): its host"
            " may have left"
        ).format(id=code.place[:8], timeout=round(timeout))
    return _(
        "nobody answers code {code} at this broker (waited {timeout} s): check"
        " its number, and that the host's program still runs"
    ).format(code=code, timeout=round(timeout))


async def _replies(
    client: aiomqtt.Client, topic: str, timeout: float, code: Secret
) -> AsyncIterator[bytes]:
    """The host's replies on ``topic``, each within ``timeout`` seconds (a broker may
    deliver another topic's retained message: amqtt does)."""
    iterator = aiter(client.messages)
    while True:
        try:
            async with asyncio.timeout(timeout):
                message = await anext(iterator)
        except TimeoutError:
            raise InvitationError(_silent_said(code, timeout), "silent") from None
        if not message.topic.matches(topic) or not isinstance(message.payload, bytes):
            continue
        if len(message.payload) <= MAX_WELCOME:
            yield message.payload


@dataclass(frozen=True)
class Welcome:
    """What a guest gets for the right code: the sealed table's id and key, and the
    broker it plays on."""

    table: bytes
    key: bytes
    broker: str

    def pack(self) -> bytes:
        return msgpack.packb({"v": 1, "table": self.table, "key": self.key, "broker": self.broker})

    @classmethod
    def read(cls, data: bytes) -> Welcome:
        """:class:`InvitationError` for a welcome that is not one (from a host that
        knew the code, so a broken program, not an attacker)."""
        try:
            message = unpack(data, MAX_WELCOME)
            table, key, broker = message["table"], message["key"], message["broker"]
        except (UntrustedInput, KeyError, TypeError) as exc:
            raise InvitationError(f"the host's welcome is not one: {exc}") from None
        if not (
            isinstance(table, bytes) and len(table) == 16
            and isinstance(key, bytes) and len(key) == KEY_BYTES
            and isinstance(broker, str) and len(broker) <= 200
        ):  # fmt: skip
            raise InvitationError("the host's welcome is not one")
        return cls(table, key, broker)


class TableInvitation:
    """A host's sealed table and its invitation: the table key (``seal`` for its
    link), and the code (or, with ``password``, the private table's password) served at
    its broker from :meth:`start`: to seats until the table is full (:meth:`full`), to
    spectators until the host stops (:meth:`stop`). A password is served for as long as
    the host is (``lifetime`` is a code's). ``key``: the table key, when it was drawn
    before (a rematch's, named to the last table's seats, 9.7); else a fresh one."""

    def __init__(
        self,
        endpoint: Endpoint,
        table_id: bytes,
        rng: Callable[[int], bytes],
        lifetime: float = LIFETIME,
        password: str | None = None,
        key: bytes | None = None,
    ) -> None:
        self.key = key if key is not None else rng(KEY_BYTES)
        self.seal = TableSeal(self.key, os.urandom)
        welcome = Welcome(table_id, self.key, endpoint.url).pack()
        secret = None if password is None else TablePassword(table_id, password)
        self.lifetime = lifetime if secret is None else math.inf
        self.server = InvitationServer(endpoint, welcome, self.lifetime, secret, rng=rng)

    async def start(self) -> Secret:
        return await self.server.start()

    def full(self) -> None:
        self.server.close()

    async def stop(self) -> None:
        await self.server.stop()
