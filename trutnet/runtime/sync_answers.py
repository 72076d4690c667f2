"""Which peer answers a sync request, with which entries, and when (9.2; no I/O).

A sync request is anonymous and at most 48 bytes, and any peer that has the head it names
could answer it with everything after that head. If every peer did, for every
request, one outsider would make the whole table re-send its log over and over. So:

* **one peer answers for the table.** Each peer ranks itself for a request by its
  seats, counting from the seat the request's position picks (``start`` modulo the
  number of seats, :func:`rank`): rank 0 answers at once; rank ``r`` only once
  ``r × step`` seconds have passed since the request and no other peer's answer has
  covered a request for ``step`` seconds (the seat whose rank is 0 may be gone);
* **only what was asked:** the entries after the head the request names (and the
  entries of the round in progress, 9.2);
* **each entry goes by at most once per** ``resend`` **seconds, whoever sends it.**
  An entry that went by on the log topic after a request was made (an answer from
  any peer, or its author's own publication) answers that request; so does one that
  was sent again less than ``resend`` seconds before the request: it is not sent
  again before then. A flood of requests thus costs the table about one copy of the
  log per ``resend`` seconds; an honest peer that asked just after a copy went by
  asks again when nothing comes (every second, 9.2), and is answered then.

:class:`SyncAnswers` holds only entry ids, times and request positions, all bounded;
the runtime tells it what it asked, sent and saw (with a monotonic ``now``), and asks
:meth:`SyncAnswers.due` which positions to send now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from trutnet.protocol.untrusted import UntrustedInput, unpack

RESEND = 1.0  # seconds before an entry is sent again as an answer
STEP = 0.5  # seconds each rank waits after the one before it
MAX_PENDING = 16  # request positions kept; more are merged into the nearest one below
MAX_TRACKED = 8192  # entry ids remembered (far above a game's log)
BATCH = 64  # positions handed out per call of ``due``
NEVER = float("-inf")


MAX_AT = 1 << 24  # a log length no table reaches


def sync_request(head: bytes, at: int | None = None) -> bytes:
    """A sync request: ``{head}``, or, asked again for the same head, ``{head, at}``
    with the asker's log length (9.2)."""
    body: dict[str, Any] = {"head": head} if at is None else {"head": head, "at": at}
    return msgpack.packb(body, use_bin_type=True)


def parse_sync_request(payload: Any) -> tuple[bytes, int | None]:
    """``(head, at)`` of a sync request (``at`` None when not given);
    :class:`~trutnet.protocol.untrusted.UntrustedInput` for anything else."""
    request = unpack(payload, 256)
    if not isinstance(request, dict) or set(request) not in ({"head"}, {"head", "at"}):
        raise UntrustedInput("a sync request is {head: 32-byte id[, at: log length]}")
    head, at = request["head"], request.get("at")
    if not isinstance(head, bytes) or len(head) != 32:
        raise UntrustedInput("a sync request is {head: 32-byte id[, at: log length]}")
    if at is not None and (type(at) is not int or not 0 <= at <= MAX_AT):
        raise UntrustedInput("a sync request's at is a log length")
    return head, at


def parting_position(at: int | None, length: int) -> int | None:
    """Where to answer a request whose head is not in this log, from its ``at``: the
    position of the asker's last entry, when this log reaches it (this log's entry
    there differs from the asker's: one of the two logs parted there or before, as
    when a seat showed the asker another entry than the table, 7.2); None otherwise
    (no ``at``, or an asker ahead of this log)."""
    if at is None or not 1 <= at <= length:
        return None
    return at - 1


def rank(start: int, seats: set[int], players: int) -> int:
    """This peer's rank for a request from log position ``start``: how many seats come
    before its first local seat, counting from seat ``start`` modulo ``players``. A
    peer with no seat (a newcomer following the table) comes after every seat."""
    if not seats or players <= 0:
        return max(players, 1)
    return min((seat - start) % players for seat in seats)


def _remember(book: dict[bytes, float], key: bytes, value: float) -> None:
    book.pop(key, None)
    book[key] = value
    if len(book) > MAX_TRACKED:
        del book[next(iter(book))]


class SyncAnswers:
    """The sync requests this peer has to see answered, and what went by (9.2)."""

    def __init__(self, resend: float = RESEND, step: float = STEP) -> None:
        self.resend = resend
        self.step = step
        # request position -> (first asked, last asked, this peer's rank for it)
        self._pending: dict[int, tuple[float, float, int]] = {}
        self._seen: dict[bytes, float] = {}  # entry id -> when it last went by
        self._resent: dict[bytes, float] = {}  # entry id -> when it was last sent again
        self._mine: dict[bytes, float] = {}  # published here, its copy from the broker to come
        self._answered = NEVER  # when another peer's answer last covered a request

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def asked(self, start: int, now: float, my_rank: int) -> None:
        """Someone asked for the entries from log position ``start``."""
        first, _, _ = self._pending.get(start, (now, now, my_rank))
        self._pending[start] = (first, now, my_rank)
        if len(self._pending) > MAX_PENDING:  # an outsider naming many heads: merge
            top = max(self._pending)
            first, last, mine = self._pending.pop(top)
            below = max(self._pending)
            f, last_below, r = self._pending[below]
            self._pending[below] = (min(f, first), max(last, last_below), min(r, mine))

    def published(self, entry_id: bytes, now: float, answer: bool) -> None:
        """This peer published ``entry_id`` on the log topic: an ``answer`` to a
        request, or an entry it wrote."""
        _remember(self._mine, entry_id, now)
        _remember(self._seen, entry_id, now)
        if answer:
            _remember(self._resent, entry_id, now)

    def went_by(self, entry_id: bytes, now: float, again: bool) -> None:
        """An entry of the log came from the broker; ``again``: this peer had it
        already (someone sent it again, or it is this peer's own coming back)."""
        if self._mine.pop(entry_id, None) is not None:
            return  # this peer's own publication: counted when it was sent
        if again:
            if self._pending and self._seen.get(entry_id, NEVER) < max(
                last for _, last, _ in self._pending.values()
            ):
                self._answered = now  # another peer is answering
            _remember(self._resent, entry_id, now)
        _remember(self._seen, entry_id, now)

    def due(
        self, entry_at: Callable[[int], bytes | None], now: float, limit: int = 2000
    ) -> tuple[list[int], float | None]:
        """The positions to send now, in order (at most :data:`BATCH`), and when to
        look again if some must wait (None: nothing waits). ``entry_at(p)`` is the id
        of the entry at position ``p`` (past the log: the round in progress), None past
        the end. A request whose every entry went by since it was made is dropped."""
        if not self._pending:
            return [], None
        starts = sorted(self._pending)
        seen: list[float] = []
        send: list[int] = []
        wake: float | None = None
        last, gate, lowest, k = NEVER, float("inf"), 1 << 16, 0
        position = starts[0]
        while position < starts[-1] + limit:
            entry_id = entry_at(position)
            if entry_id is None:
                break
            while k < len(starts) and starts[k] <= position:
                first, asked, mine = self._pending[starts[k]]
                last = max(last, asked)
                gate = min(gate, first + mine * self.step)
                lowest = min(lowest, mine)
                k += 1
            # it answers the requests made before it went by, or before it was sent
            # again less than ``resend`` s earlier (it is not sent again before then)
            went = max(
                self._seen.get(entry_id, NEVER), self._resent.get(entry_id, NEVER) + self.resend
            )
            seen.append(went)
            if went >= last:
                position += 1
                continue
            ready = gate
            if lowest > 0:  # a backup: not while another peer's answer goes by
                ready = max(ready, self._answered + self.step)
            if ready <= now and len(send) < BATCH:
                send.append(position)
            elif ready > now:
                wake = ready if wake is None else min(wake, ready)
            position += 1
        # A request is answered when every entry from its position went by after it.
        earliest = float("inf")
        suffix: list[float] = []
        for went in reversed(seen):
            earliest = min(earliest, went)
            suffix.append(earliest)
        suffix.reverse()
        for start in starts:
            index = start - starts[0]
            oldest = suffix[index] if index < len(suffix) else float("inf")
            if oldest >= self._pending[start][1]:
                del self._pending[start]
        return send, wake


def recent_void(replica: Any, limit: int) -> bytes | None:
    """The last ``void`` or ``abandon`` of ``replica``'s log, if it is among the last
    ``limit`` entries: what a replaced seat that wrote at its place needs (7.8)."""
    if not replica.changes:
        return None
    index = replica.changes[-1].entry
    if len(replica.log) - index > limit:
        return None
    return replica.log.entries[index].wire
