"""Invitations: a short code read aloud, or a private table's password, gives a friend
what they need to join a sealed table, and an attacker on the broker one guess per try
(docs/protocol.md 9.9, 9.10).

A code is ``NAMEPLATE-WORD-WORD`` (``7-purple-sausage``): the nameplate says where the
two sides meet (``trutnet/v1/invite/<nameplate>/...``), the two words are the
password of a SPAKE2 exchange (:class:`~trutnet.crypto.channel.Pake`) bound to that
nameplate. Then:

1. the guest asks: ``{"v": 1, "id": 16 random bytes, "pake": its message}``;
2. the host answers on the ask's own topic: its message and ``confirm``, a tag that
   only a side with the same key can make; or ``refused`` with why;
3. the guest checks the tag (a wrong code stops here, and the guest learns only that
   its one guess was wrong) and confirms with its own tag;
4. the host checks it and sends the ``welcome``, sealed with a key derived from the
   exchange's: the table's id and key, and where its broker is (the caller's bytes).

A private table's password (:class:`TablePassword`) takes the words' place: the two
sides meet at the table's id rather than a nameplate, and the exchange is bound to
that id, so a guess at one table is no guess at another.

The host counts an exchange that is not confirmed in time, or wrongly, as a failed
guess; :data:`MAX_FAILED` of them burn a code, and lock a password for a while
(:data:`LOCK_SECONDS`, doubled at each lock, at most :data:`MAX_LOCK`): a friend's typos
must not close the table for good. A code also expires after its time, and the host
closes it to seats when the table is full: a spectator's ask (``"watch": true``) is
still welcomed. Both sides are sans-I/O: they take bytes and the time, and return
bytes to publish.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from trutnet.crypto import CryptoError
from trutnet.crypto.channel import (
    KEY_BYTES,
    PAKE_MESSAGE_BYTES,
    Pake,
    derive,
    same,
    seal,
    tag,
    unseal,
)
from trutnet.protocol.invitation_words import WORDS
from trutnet.protocol.untrusted import UntrustedInput, unpack

VERSION = 1
ID_BYTES = 16
MAX_MESSAGE = 512  # an ask, an answer or a confirmation
MAX_WELCOME = 2048  # the host's welcome, sealed
MAX_FAILED = 5  # failed guesses that burn a code
MAX_PENDING = 8  # exchanges a host keeps open at once; more are refused as "busy"
CONFIRM_SECONDS = 30.0  # how long an answered exchange waits for the guest's confirmation
NAMEPLATES = 9999  # a nameplate is 1..NAMEPLATES
LOCK_SECONDS = 60.0  # a password's first lock, after MAX_FAILED failed guesses
MAX_LOCK = 3600.0  # the longest lock: about MAX_FAILED guesses an hour, at worst
REFUSALS = ("expired", "burned", "closed", "busy", "locked")


class InvitationError(ValueError):
    """A code that cannot be read, a wrong code, or an exchange the host refused
    (``reason``: one of :data:`REFUSALS`, or ``"wrong"`` for a code that did not
    match)."""

    def __init__(self, message: str, reason: str = "", **values: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.values = values  # what a screen needs to say it in other words


@dataclass(frozen=True)
class Code:
    """An invitation code: a nameplate and two words."""

    nameplate: int
    words: tuple[str, str]

    def __str__(self) -> str:
        return f"{self.nameplate}-{self.words[0]}-{self.words[1]}"

    @property
    def password(self) -> bytes:
        return "-".join(self.words).encode()

    @property
    def context(self) -> bytes:
        return f"invite {self.nameplate}".encode()

    @classmethod
    def parse(cls, text: str) -> Code:
        """A code as a person types it: hyphens or spaces, any case. A word not in the
        list is refused with the nearest one."""
        parts = [p for p in re.split(r"[\s\-]+", text.strip().lower()) if p]
        if len(parts) != 3 or not parts[0].isdigit() or not 1 <= int(parts[0]) <= NAMEPLATES:
            raise InvitationError(
                f"an invitation code looks like 7-purple-sausage, not {text!r}", "shape", text=text
            )
        nameplate = int(parts[0])
        for word in parts[1:]:
            if word not in WORDS:
                near = difflib.get_close_matches(word, WORDS, n=1)
                hint = f" (did you mean {near[0]}?)" if near else ""
                raise InvitationError(
                    f"{word!r} is not a word of invitation codes{hint}",
                    "word",
                    word=word,
                    near=near[0] if near else None,
                )
        return cls(nameplate, (parts[1], parts[2]))

    @property
    def place(self) -> str:
        """Where host and guest meet (a topic level)."""
        return str(self.nameplate)

    @classmethod
    def make(cls, rng: Callable[[int], bytes], nameplate: int) -> Code:
        """A fresh code at ``nameplate``: two words drawn from ``rng`` (16 bits)."""
        first, second = rng(2)
        return cls(nameplate, (WORDS[first], WORDS[second]))


@dataclass(frozen=True)
class TablePassword:
    """A private table's password, met at the table's id (16 bytes) and bound to it."""

    table: bytes
    text: str = field(repr=False)  # never in a log line or a traceback

    @property
    def password(self) -> bytes:
        return self.text.encode()

    @property
    def context(self) -> bytes:
        return b"private " + self.table

    @property
    def place(self) -> str:
        return self.table.hex()


Secret = Code | TablePassword


def _confirm(key: bytes, side: str, ask_id: bytes) -> bytes:
    return tag(key, f"trutnet invite {side} confirms", ask_id)


def _welcome_key(key: bytes) -> bytes:
    return derive(key, "trutnet invite welcome")


def _read(data: bytes, fields: dict[str, type], limit: int = MAX_MESSAGE) -> dict[str, Any]:
    """An untrusted message: bounded, a map of these fields with these types, ``v`` 1."""
    try:
        message = unpack(data, limit)
    except UntrustedInput as exc:
        raise InvitationError(f"not an invitation message: {exc}") from None
    if not isinstance(message, dict) or message.get("v") != VERSION:
        raise InvitationError("not an invitation message of version 1")
    if set(message) != {"v", *fields}:
        raise InvitationError(f"an invitation message has the fields {sorted(fields)}")
    for name, kind in fields.items():
        if not isinstance(message[name], kind):
            raise InvitationError(f"an invitation message's {name} is {kind.__name__}")
    return message


def _pack(**fields: Any) -> bytes:
    return msgpack.packb({"v": VERSION, **fields})


@dataclass
class _Exchange:
    key: bytes
    deadline: float
    watch: bool  # a spectator's: welcome it once the table is full too


class InvitationHost:
    """The host's side of one code or password: answers asks, checks confirmations,
    sends the ``welcome`` (the caller's bytes), counts failed guesses (which burn a
    code, and lock a password for a while)."""

    def __init__(self, code: Secret, welcome: bytes, now: float, lifetime: float) -> None:
        self.code, self._welcome = code, welcome
        self.expires = now + lifetime
        self.failed = 0  # guesses that failed: exchanges not confirmed, or wrongly
        self.welcomed = 0  # guests that got the welcome
        self.closed = False  # the host closed it (its table is full)
        self.locks = 0  # a password's locks so far
        self.locked_until = 0.0
        self._open: dict[bytes, _Exchange] = {}

    def state(self, now: float, watch: bool = False) -> str | None:
        """Why the code takes no ask now (one of :data:`REFUSALS`), or None; a table
        full is closed to seats, not to spectators (``watch``)."""
        if self.failed >= MAX_FAILED:
            return "burned"
        if now < self.locked_until:
            return "locked"
        if self.closed and not watch:
            return "closed"
        if now >= self.expires:
            return "expired"
        return None

    def _failed(self, now: float) -> None:
        """One failed guess: a password's :data:`MAX_FAILED` th locks it a while."""
        self.failed += 1
        if isinstance(self.code, TablePassword) and self.failed >= MAX_FAILED:
            self.failed = 0
            self.locked_until = now + min(LOCK_SECONDS * 2**self.locks, MAX_LOCK)
            self.locks += 1

    def ask(self, data: bytes, now: float) -> tuple[bytes, bytes] | None:
        """A guest's ask: ``(its id, the answer to publish)``; None for a message that is
        not an ask, or an id already in use (dropped)."""
        self.tick(now)
        try:
            message = _read(data, {"id": bytes, "pake": bytes})
        except InvitationError:
            try:  # a spectator's ask says so
                message = _read(data, {"id": bytes, "pake": bytes, "watch": bool})
            except InvitationError:
                return None
        ask_id, watch = message["id"], message.get("watch", False)
        if len(ask_id) != ID_BYTES or ask_id in self._open:
            return None
        busy = "busy" if len(self._open) >= MAX_PENDING else None
        refused = self.state(now, watch) or busy
        if refused is not None:
            return ask_id, _pack(refused=refused)
        pake = Pake(self.code.password, first=False, context=self.code.context)
        try:
            key = pake.finish(message["pake"])
        except CryptoError:
            return None
        self._open[ask_id] = _Exchange(key, now + CONFIRM_SECONDS, watch)
        answer = _pack(pake=pake.message(), confirm=_confirm(key, "host", ask_id))
        return ask_id, answer

    def confirm(self, data: bytes, now: float) -> tuple[bytes, bytes] | None:
        """A guest's confirmation: ``(its id, the welcome to publish)`` if it proves the
        same key; a wrong one is a failed guess. None otherwise."""
        self.tick(now)
        try:
            message = _read(data, {"id": bytes, "confirm": bytes})
        except InvitationError:
            return None
        exchange = self._open.pop(message["id"], None)
        if exchange is None:
            return None
        if not same(message["confirm"], _confirm(exchange.key, "guest", message["id"])):
            self._failed(now)
            return None
        refused = self.state(now, exchange.watch)
        if refused is not None:  # burned or closed while it was open
            return message["id"], _pack(refused=refused)
        self.welcomed += 1
        sealed = seal(_welcome_key(exchange.key), message["id"], self._welcome, _first_nonce)
        return message["id"], _pack(welcome=sealed)

    def tick(self, now: float) -> None:
        """An exchange left unconfirmed past its deadline is a failed guess."""
        for ask_id, exchange in list(self._open.items()):
            if now >= exchange.deadline:
                del self._open[ask_id]
                self._failed(now)


def _first_nonce(size: int) -> bytes:
    """The welcome's nonce: zero, as the first message under a key is (Noise's counter).
    Its key is used once (one exchange, one welcome), so no nonce repeats under it."""
    return bytes(size)


class InvitationGuest:
    """The guest's side of one code or password: :meth:`ask`, then :meth:`answer` (which gives the
    confirmation to send), then :meth:`welcome` (which gives the host's bytes)."""

    def __init__(self, code: Secret, rng: Callable[[int], bytes], watch: bool = False) -> None:
        self.code = code
        self.id = rng(ID_BYTES)
        self.watch = watch  # a spectator: welcomed once the table is full too
        self._pake = Pake(code.password, first=True, context=code.context)
        self._key: bytes | None = None

    def ask(self) -> bytes:
        if self.watch:
            return _pack(id=self.id, pake=self._pake.message(), watch=True)
        return _pack(id=self.id, pake=self._pake.message())

    def answer(self, data: bytes) -> bytes:
        """The host's answer: the confirmation to send. :class:`InvitationError` for a
        refusal (``reason``), a code that did not match (``"wrong"``), or a message
        that is no answer."""
        try:
            message = _read(data, {"refused": str})
        except InvitationError:
            message = _read(data, {"pake": bytes, "confirm": bytes})
        else:
            reason = message["refused"] if message["refused"] in REFUSALS else "closed"
            raise InvitationError(f"the host refused the code: {reason}", reason)
        if len(message["pake"]) != PAKE_MESSAGE_BYTES:
            raise InvitationError("an answer's key exchange message is 33 bytes")
        try:
            key = self._pake.finish(message["pake"])
        except CryptoError as exc:
            raise InvitationError(f"not an answer: {exc}") from None
        if not same(message["confirm"], _confirm(key, "host", self.id)):
            raise InvitationError("the code did not match", "wrong")
        self._key = key
        return _pack(id=self.id, confirm=_confirm(key, "guest", self.id))

    def welcome(self, data: bytes) -> bytes:
        """The host's welcome: its bytes, once opened with the exchange's key."""
        if self._key is None:
            raise InvitationError("a welcome before the code matched")
        try:
            message = _read(data, {"refused": str})
        except InvitationError:
            message = _read(data, {"welcome": bytes}, MAX_WELCOME)
        else:
            reason = message["refused"] if message["refused"] in REFUSALS else "closed"
            raise InvitationError(f"the host refused the code: {reason}", reason)
        try:
            return unseal(_welcome_key(self._key), self.id, message["welcome"])
        except CryptoError as exc:
            raise InvitationError(f"the welcome does not open: {exc}") from None


__all__ = [
    "KEY_BYTES",
    "MAX_FAILED",
    "Code",
    "InvitationError",
    "InvitationGuest",
    "InvitationHost",
    "Secret",
    "TablePassword",
]
