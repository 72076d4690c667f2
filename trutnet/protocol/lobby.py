"""The lobby before the log: signed join requests and seat assignment (sans-I/O).

A player asks for a seat with a ``join`` request: a signed entry (7.1) with type
``join``, seat 0, seq 0, ``prev`` zero and body ``{"name": str}`` (1..32 characters).
It is never part of the log. The host seats joiners in the order their requests
arrive (a second request from a seated key changes nothing), may seat bots, and
once every seat is taken writes the ``open`` entry with every seat's key and name:
that entry is the seat assignment everyone then checks.

Names at a table are distinct: a name that an earlier seat already has gets the first
free `` (2)``, `` (3)``... (:func:`distinct_name`), in the lobby as seats are taken
and again by every replica when it reads the ``open`` entry or a newcomer's name
(:func:`distinct_names`), so that two people called Alex are told apart the same way
on every screen, whatever the host wrote.

A table id names its host (7.10): it is the first 16 bytes of
``SHA-256("trutnet/v1/table-id" || host key || nonce)`` for a random 16-byte nonce
that the ``open`` entry carries. Whoever knows the table id (from the lobby, from
discovery, or from a friend) can therefore check that an ``open`` comes from the host
who made the table: no one else can open it, even with a signature of their own.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from trutnet.crypto.identity import Identity, fingerprint
from trutnet.engine.api import Game
from trutnet.protocol.clock import ClockError, ClockRule
from trutnet.protocol.envelope import GENESIS, Entry, MessageError, parse_entry, sign_entry

MAX_NAME = 32
NONCE_BYTES = 16
TABLE_ID_DOMAIN = b"trutnet/v1/table-id"


def table_id_for(host_key: bytes, nonce: bytes) -> bytes:
    """The table id bound to ``host_key`` by ``nonce`` (7.10)."""
    return hashlib.sha256(TABLE_ID_DOMAIN + host_key + nonce).digest()[:16]


class LobbyError(Exception):
    """A join request that cannot be honoured (table full, bad name, bad request)."""


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise LobbyError(f"a name is 1..{MAX_NAME} printable characters")
    return name


def distinct_name(name: str, taken: list[str]) -> str:
    """``name``, or if a name in ``taken`` is already that, the first of ``name (2)``,
    ``name (3)``... that none is (cut so that it stays within :data:`MAX_NAME`)."""
    if name not in taken:
        return name
    number = 2
    while True:
        suffix = f" ({number})"
        candidate = name[: MAX_NAME - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1


def distinct_names(names: list[str]) -> list[str]:
    """Every seat's name, made distinct in seat order (:func:`distinct_name`): the
    first seat keeps its name, a later one with the same name gets `` (2)``..."""
    out: list[str] = []
    for name in names:
        out.append(distinct_name(name, out))
    return out


def default_table_name(player: str) -> str:
    """A table's name on the LAN when its host gives none: the host's name and
    ``-table``, with every character that a shell would need quoted (space,
    apostrophe...) made a ``-``, so that ``trutnet join NAME`` works as typed."""
    word = re.sub(r"[^\w.+]+", "-", player).strip("-") or "trutnet"
    return f"{word}-table"[:40]


def check_fallback(value: Any) -> str:
    """A seat's fallback broker (``mqtt://host:port``), or "" for none (9.3)."""
    if value == "":
        return ""
    if not isinstance(value, str) or len(value) > 64 or not value.startswith("mqtt://"):
        raise LobbyError("a fallback broker is mqtt://host:port (at most 64 characters)")
    host, _, port = value[len("mqtt://") :].rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise LobbyError("a fallback broker is mqtt://host:port")
    return value


def join_request(identity: Identity, table_id: bytes, name: str, fallback: str = "") -> bytes:
    body = {"name": check_name(name)}
    if fallback:
        body["fallback"] = check_fallback(fallback)
    entry = sign_entry(
        identity, table=table_id, seat=0, seq=0, prev=GENESIS, type="join", body=body
    )
    return entry.wire


class Lobby:
    """The host's view of who sits where, until the table opens."""

    def __init__(self, game: Game, host: Identity, host_name: str, nonce: bytes) -> None:
        if len(nonce) != NONCE_BYTES:
            raise LobbyError(f"a table nonce is {NONCE_BYTES} bytes")
        self.nonce = bytes(nonce)
        self.table_id = table_id_for(host.public, self.nonce)
        self.game = game
        self.keys: list[bytes] = [host.public]
        self.names: list[str] = [check_name(host_name)]
        self.fallbacks: list[str] = [""]

    @property
    def full(self) -> bool:
        return len(self.keys) == self.game.num_players()

    def seat_of(self, key: bytes) -> int | None:
        return self.keys.index(key) if key in self.keys else None

    def receive(self, wire: bytes) -> int:
        """Seat the author of a join request; return its seat."""
        try:
            entry = parse_entry(wire, self.table_id)
        except MessageError as exc:
            raise LobbyError(f"bad join request: {exc}") from exc
        fields = set(entry.body)
        if (
            entry.type != "join"
            or entry.seq != 0
            or entry.prev != GENESIS
            or not {"name"} <= fields <= {"name", "fallback"}
        ):
            raise LobbyError("a join request has type join, seq 0, prev zero and a name")
        fallback = check_fallback(entry.body.get("fallback", ""))
        return self.seat(entry.author, check_name(entry.body["name"]), fallback)

    def seat(self, key: bytes, name: str, fallback: str = "") -> int:
        """Seat a player or a bot by key (idempotent for a key already seated)."""
        known = self.seat_of(key)
        if known is not None:
            return known
        if self.full:
            raise LobbyError("the table is full")
        self.keys.append(key)
        self.names.append(distinct_name(check_name(name), self.names))
        self.fallbacks.append(check_fallback(fallback))
        return len(self.keys) - 1

    def roster(self) -> list[tuple[int, str, str]]:
        """Seat, name and key fingerprint of everyone seated, for the lobby screen."""
        return [
            (s, n, fingerprint(k))
            for s, (k, n) in enumerate(zip(self.keys, self.names, strict=True))
        ]

    def open_body(self) -> dict[str, Any]:
        if not self.full:
            raise LobbyError("seats are still free")
        return {
            "game": self.game.name,
            "config": self.game.config_dict(),
            "seats": list(self.keys),
            "names": list(self.names),
            "fallbacks": list(self.fallbacks),
            "nonce": self.nonce,
        }


# The lobby announcement (9.1): what `trutnet tables` shows, signed by the host.
ANNOUNCE_VERSION = 1
ANNOUNCE_FIELDS = {"v", "game", "variant", "players", "taken", "name", "host", "table",
                   "broker", "status", "private", "nonce"}  # fmt: skip
# ``seated`` (optional): who has a seat so far, for a joiner's lobby screen; a host
# leaves it out when the whole announcement would not fit MAX_ANNOUNCEMENT.
SEATED = "seated"
# ``hints`` (optional, present when false): the host asks that nobody use the search
# bot's hints at this table (a wish the table cannot enforce: anyone may run a bot)
HINTS = "hints"
# ``clock`` (optional): the table's turn clock, as ``ClockRule.parse`` reads it (7.11)
CLOCK = "clock"
MAX_ANNOUNCEMENT = 2048


def announced_variant(game: Game) -> str:
    """The ``variant`` of an announcement: the game's ``variant`` option, then the name
    of each of its on/off options that is on (``classic fast``), so that
    a table's listing says how it plays; at most 64 characters (9.1)."""
    config = game.config_dict()
    variant = config.get("variant")
    words = [variant] if isinstance(variant, str) else []
    words += [key.replace("_", "-") for key, value in config.items() if value is True]
    return " ".join(words)[:64]


def sign_announcement(host: Identity, table_id: bytes, body: dict[str, Any]) -> bytes:
    """The host's retained lobby message: an entry-shaped message (7.1) of type
    ``lobby`` whose body is the announcement, nonce included (7.10)."""
    return sign_entry(
        host, table=table_id, seat=0, seq=0, prev=GENESIS, type="lobby", body=body
    ).wire


def check_announcement(wire: Any, table_id: bytes) -> dict[str, Any]:
    """The announcement in ``wire`` if the table's own host signed it for ``table_id``;
    :class:`LobbyError` otherwise (forged, of another table, malformed)."""
    if not isinstance(wire, bytes) or len(wire) > MAX_ANNOUNCEMENT:
        raise LobbyError(f"an announcement is at most {MAX_ANNOUNCEMENT} bytes")
    try:
        entry: Entry = parse_entry(wire, table_id)
    except MessageError as exc:
        raise LobbyError(f"not a signed announcement: {exc}") from exc
    body = entry.body
    optional = {SEATED, HINTS, CLOCK}
    if entry.type != "lobby" or entry.seq != 0 or set(body) - optional != ANNOUNCE_FIELDS:
        raise LobbyError("not a lobby announcement")
    nonce = body["nonce"]
    if not isinstance(nonce, bytes) or table_id_for(entry.author, nonce) != table_id:
        raise LobbyError("an announcement not signed by the table's host (7.10)")
    texts = ("game", "variant", "name", "host", "table", "broker", "status")
    if (
        not all(isinstance(body[k], str) and len(body[k]) <= 64 for k in texts)
        or not all(type(body[k]) is int and 0 <= body[k] <= 16 for k in ("players", "taken"))
        or body["v"] != ANNOUNCE_VERSION
        or body["table"] != table_id.hex()
        or body["host"] != fingerprint(entry.author)
        or body["status"] not in ("open", "playing")
        or not isinstance(body["private"], bool)
        or (SEATED in body and not _seated_ok(body[SEATED], body["taken"]))
        or (HINTS in body and body[HINTS] is not False)
        or (CLOCK in body and not _clock_ok(body[CLOCK]))
    ):
        raise LobbyError("a malformed announcement")
    return {k: v for k, v in body.items() if k != "nonce"}


def _clock_ok(clock: Any) -> bool:
    try:
        ClockRule.parse(clock)
    except ClockError:
        return False
    return True


def _seated_ok(seated: Any, taken: int) -> bool:
    """An announcement's ``seated``: one ``[name, bot]`` per seat taken, in seat order
    (a valid name, and whether the host seated a bot there)."""
    if not isinstance(seated, list) or len(seated) != taken:
        return False
    for pair in seated:
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], bool):
            return False
        try:
            check_name(pair[0])
        except LobbyError:
            return False
    return True
