"""Spectators: a replica with no seat, and the signed presence of a spectator (sans-I/O).

:class:`Spectator` follows a table's log like any replica and writes nothing. It holds
no ElGamal key and no other secret; it is never the owner of a share round (a round's
owners are seats), and it combines no share: the only cards it ever knows are the ones
the log itself reveals to everyone: the played ones, and the positions a ``Locate``
found holding its card (7.4). A spectator learns exactly what
the table's broker learns (``docs/protocol.md`` 7.9).

A spectator says it is there with a small signed message on the table's ``watchers``
topic (9.1): entry-shaped (7.1), type ``watch``, seat 0, seq 0, ``prev`` zero, body
``{"name": str}``, at most :data:`MAX_WATCHER_BYTES` bytes, retained, published on
``watchers/<fp>`` where ``<fp>`` is the fingerprint of the key that signs it; the
spectator's MQTT last will clears it. :class:`Watchers` is what a peer makes of that
topic: only messages signed by the key the topic names count, and at most
:data:`MAX_WATCHERS` are kept. Presence is informative: nothing acts on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trutnet.crypto.identity import Identity, fingerprint
from trutnet.protocol.envelope import GENESIS, Entry, MessageError, parse_entry, sign_entry
from trutnet.protocol.lobby import LobbyError, check_name
from trutnet.protocol.table import TableReplica
from trutnet.protocol.untrusted import UntrustedInput

WATCHER_TYPE = "watch"
MAX_WATCHER_BYTES = 512  # an honest message is about 190 bytes
MAX_WATCHERS = 32  # kept per table; more are dropped until one leaves


class Spectator:
    """A replica with no seat: it follows the log and writes nothing.

    It answers what a runtime asks of a :class:`~trutnet.protocol.table.TablePeer`, as
    a peer with no seat does: never seated, never a newcomer (it never offers to take
    a seat, 7.7), nothing to write, no decision to make. Its replica has no
    ``on_private`` hook: a private share round ends without it learning anything.
    """

    seat: int | None = None  # no seat, now or ever
    holds: frozenset[tuple[int, bytes]] = frozenset()  # it never votes (7.8)

    def __init__(self, table_id: bytes) -> None:
        self.replica = TableReplica(table_id)

    def receive(self, wire: bytes) -> Entry | None:
        """Validate and apply one entry (see :meth:`TableReplica.receive`)."""
        return self.replica.receive(wire)

    def seated(self) -> bool:
        return False

    def standby(self) -> bool:
        return False

    def replaced(self) -> bool:
        return False

    def holding(self) -> bool:
        return False

    def release(self) -> None:
        return None

    def next_automatic(self) -> bytes | None:
        return None

    def decide(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Watcher:
    """A spectator as its signed presence names it."""

    fingerprint: str  # of the key that signed the presence (the topic's ``<fp>``)
    name: str

    def to_dict(self) -> dict[str, Any]:
        return {"fingerprint": self.fingerprint, "name": self.name}


def watcher_message(identity: Identity, table_id: bytes, name: str) -> bytes:
    """The signed presence of the spectator ``identity`` at ``table_id``."""
    return sign_entry(
        identity,
        table=table_id,
        seat=0,
        seq=0,
        prev=GENESIS,
        type=WATCHER_TYPE,
        body={"name": check_name(name)},
    ).wire


def check_watcher(payload: Any, table_id: bytes, fp: str) -> Watcher:
    """The spectator that ``payload``, read on ``watchers/<fp>``, announces;
    :class:`UntrustedInput` unless it is a well-formed presence for this table signed by
    the key whose fingerprint is ``fp``."""
    if not isinstance(payload, bytes) or len(payload) > MAX_WATCHER_BYTES:
        raise UntrustedInput(f"a watcher's presence is at most {MAX_WATCHER_BYTES} bytes")
    try:
        entry = parse_entry(payload, table_id)
    except MessageError as exc:
        raise UntrustedInput(f"not a signed watcher's presence: {exc}") from exc
    if (
        entry.type != WATCHER_TYPE
        or entry.seat != 0
        or entry.seq != 0
        or entry.prev != GENESIS
        or set(entry.body) != {"name"}
    ):
        raise UntrustedInput("a watcher's presence is a watch entry with a name only")
    try:
        name = check_name(entry.body["name"])
    except LobbyError as exc:
        raise UntrustedInput(f"a watcher's presence: {exc}") from exc
    if fingerprint(entry.author) != fp:
        raise UntrustedInput("a watcher's presence signed by another key than its topic names")
    return Watcher(fp, name)


class Watchers:
    """The spectators of one table, from its ``watchers/<fp>`` messages, in the order
    they came; at most ``limit`` (a flood of made-up spectators fills no memory)."""

    def __init__(self, table_id: bytes, limit: int = MAX_WATCHERS) -> None:
        self.table_id = table_id
        self.limit = limit
        self._by_fp: dict[str, Watcher] = {}

    def receive(self, fp: str, payload: bytes) -> bool:
        """Take one message of ``watchers/<fp>``: a presence, or empty (the spectator
        left). True if the list changed; :class:`UntrustedInput` for a message that
        does not count (it changes nothing)."""
        if not payload:
            return self._by_fp.pop(fp, None) is not None
        watcher = check_watcher(payload, self.table_id, fp)
        if self._by_fp.get(fp) == watcher:
            return False
        if fp not in self._by_fp and len(self._by_fp) >= self.limit:
            raise UntrustedInput(f"{self.limit} watchers are listed already")
        self._by_fp[fp] = watcher
        return True

    def listed(self) -> list[Watcher]:
        return list(self._by_fp.values())

    def __len__(self) -> int:
        return len(self._by_fp)
