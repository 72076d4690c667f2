"""Spectators: a replica with no seat, and the signed presence of a spectator (sans-I/O).

:class:`Spectator` follows a table's log like any replica and writes nothing. It holds
no ElGamal key and no other secret; it is never the owner of a share round (a round's
owners are seats), and it combines no share: the only cards it ever knows are the ones
the log itself reveals to everyone: the played ones, and the positions a ``Locate``
found holding its card (7.4). A spectator learns exactly what
the table's broker learns (``docs/protocol.md`` 7.9).

A spectator says it is there with a small signed message on the table's ``watchers``
topic (9.1): entry-shaped (7.1), type ``watch``, seat 0, seq 0, ``prev`` the head of
the log it has reached, body ``{"name": str}``, at most :data:`MAX_WATCHER_BYTES`
bytes, retained, published on ``watchers/<fp>`` where ``<fp>`` is the fingerprint of
the key that signs it, and again as it follows the log; the spectator's MQTT last
will clears it. :class:`Watchers` is what a peer makes of that topic: only messages
signed by the key the topic names count; a presence is **live** while the head it
names is one of the last :data:`LIVE_HEADS` heads of this peer's log (a spectator
that follows the table says so again as the log moves; a presence posted once, or
replayed, goes stale); the live ones are listed in the order they came, at most
:data:`MAX_WATCHERS`, and the others counted, so a crowd of made-up spectators that
came later can never push a live one off the list. At most :data:`MAX_KEPT` are
kept. Presence is informative: nothing acts on it, and it proves only that a key
followed the log lately, not who watches: anyone on an open broker can read the
table without saying so (``docs/protocol.md`` 7.9).
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
MAX_WATCHERS = 32  # listed by name; the other live ones are counted
MAX_KEPT = 256  # presences kept per table (stale ones go first)
MAX_HEADS = 1 << 16  # heads of this log remembered, to tell an old head from a new one
LIVE_HEADS = 64  # a presence naming one of the last this many heads of the log is live


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


def watcher_message(identity: Identity, table_id: bytes, name: str, head: bytes = GENESIS) -> bytes:
    """The signed presence of the spectator ``identity`` at ``table_id``, which has
    followed its log up to ``head``."""
    return sign_entry(
        identity,
        table=table_id,
        seat=0,
        seq=0,
        prev=head,
        type=WATCHER_TYPE,
        body={"name": check_name(name)},
    ).wire


def check_watcher(payload: Any, table_id: bytes, fp: str) -> Watcher:
    """The spectator that ``payload``, read on ``watchers/<fp>``, announces;
    :class:`UntrustedInput` unless it is a well-formed presence for this table signed by
    the key whose fingerprint is ``fp``. (The head it names: :func:`watcher_head`.)"""
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


def watcher_head(payload: bytes) -> bytes:
    """The head a presence that :func:`check_watcher` accepted names."""
    return parse_entry(payload).prev


class Watchers:
    """The spectators of one table, from its ``watchers/<fp>`` messages: the live ones
    (naming one of the last ``window`` heads this peer's log had, :meth:`note_head`) in
    the order they came, at most ``limit`` by name (:meth:`listed`) and the others
    counted (:meth:`more`); at most ``kept`` presences in memory, the stale ones
    dropped first (a flood of made-up spectators fills no memory)."""

    def __init__(
        self,
        table_id: bytes,
        limit: int = MAX_WATCHERS,
        kept: int = MAX_KEPT,
        window: int = LIVE_HEADS,
    ) -> None:
        self.table_id = table_id
        self.limit = limit
        self.kept = kept
        self.window = window
        self._noted: dict[bytes, int] = {GENESIS: 1}  # head -> when this log had it
        self._heads_noted = 1
        self._by_fp: dict[str, tuple[Watcher, bytes, int]] = {}  # watcher, head, place
        self._arrivals = 0

    def _live(self, head: bytes) -> bool:
        noted = self._noted.get(head)
        return noted is not None and noted > self._heads_noted - self.window

    def _expired(self, head: bytes) -> bool:
        """A head this log had, too long ago. (One it never had may be one it has not
        reached yet: a spectator can be ahead of a busy peer.)"""
        noted = self._noted.get(head)
        return noted is not None and noted <= self._heads_noted - self.window

    def view(self) -> tuple[list[Watcher], int]:
        """The live spectators listed by name (in the order they came), and how many
        other live ones there are."""
        live = sorted((p, w) for w, h, p in self._by_fp.values() if self._live(h))
        return [w for _, w in live[: self.limit]], max(0, len(live) - self.limit)

    def note_head(self, head: bytes) -> bool:
        """This peer's log has reached ``head``; True if the list changed."""
        if head in self._noted:
            return False
        before = self.view()
        self._heads_noted += 1
        self._noted[head] = self._heads_noted
        if len(self._noted) > MAX_HEADS:  # the oldest have long expired
            del self._noted[next(iter(self._noted))]
        return self.view() != before

    def receive(self, fp: str, payload: bytes) -> bool:
        """Take one message of ``watchers/<fp>``: a presence, or empty (the spectator
        left). True if the list changed; :class:`UntrustedInput` for a message that
        does not count (it changes nothing)."""
        before = self.view()
        if not payload:
            self._by_fp.pop(fp, None)
            return self.view() != before
        watcher = check_watcher(payload, self.table_id, fp)
        head = watcher_head(payload)
        known = self._by_fp.get(fp)
        if known is not None and known[0] == watcher and not self._expired(known[1]):
            place = known[2]  # never stale since it came: it keeps its place
        else:
            if known is None and len(self._by_fp) >= self.kept:
                stale = [f for f, (_, h, _) in self._by_fp.items() if not self._live(h)]
                if not stale:
                    raise UntrustedInput(f"{self.kept} live watchers are kept already")
                del self._by_fp[min(stale, key=lambda f: self._by_fp[f][2])]
            self._arrivals += 1
            place = self._arrivals
        self._by_fp[fp] = (watcher, head, place)
        return self.view() != before

    def listed(self) -> list[Watcher]:
        return self.view()[0]

    def more(self) -> int:
        """How many live spectators are not listed by name."""
        return self.view()[1]

    def __len__(self) -> int:
        return len(self._by_fp)
