"""The table's chat (``docs/protocol.md`` 9.6), sans-I/O: a message, who may say one,
how fast, and what a peer keeps of them.

A chat message is entry-shaped (7.1) and published on the table's ``chat`` topic; it
is never part of the log and changes nothing in the game. Type ``chat``, ``seat`` the
author's seat (0 for a spectator), ``seq`` the author's own count of messages, ``prev``
the head of the log the author had, body ``{"text": str}``: 1 to
:data:`MAX_TEXT` printable characters (no control, format or line-separator
character, so a message can neither move the cursor of a terminal nor reverse the
text around it), at most :data:`MAX_MARKS` combining marks, at most
:data:`MAX_CHAT_BYTES` bytes in all.

Who may speak: a seat, signed by the key the log gives that seat (a forged name
gets nowhere: the author is its key), or a spectator the peer lists (its signed
presence is live and among the first listed, :class:`~trutnet.protocol.spectator.
Watchers`), with ``seat`` 0. Any other key is refused.

How fast: each author has a bucket of :data:`BURST` messages that refills one
message every :data:`REFILL_SECONDS` seconds (a reader allows twice that burst: messages
that left in time may arrive bunched); the spectators share one more bucket
(:data:`CROWD_BURST`, one every :data:`CROWD_REFILL_SECONDS`), so a crowd of keys
cannot flood a screen, and the seats never share theirs with anyone. A message over
the rate is dropped and counted; the sender's own peer keeps the same rate before it
sends, so an honest message is never dropped for it. The same message twice (the
broker may deliver a message twice) is read once; a message naming a head that this
peer's log passed long ago (:data:`FRESH_HEADS`) is a replay and is dropped.

Muting is per key, never per name: a muted author's messages are still checked and
kept (the transcript keeps what the table said), and not shown.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

from trutnet.crypto.identity import Identity, fingerprint
from trutnet.protocol.envelope import GENESIS, MessageError, parse_entry, sign_entry
from trutnet.protocol.untrusted import UntrustedInput

CHAT_TYPE = "chat"
MAX_TEXT = 200  # characters of one message
MAX_MARKS = 16  # combining marks in one message (no wall of stacked accents)
MAX_CHAT_BYTES = 1024  # a whole signed message on the wire
BURST = 5  # messages an author may send at once
REFILL_SECONDS = 3.0  # then one more every this many seconds (20 a minute)
CROWD_BURST = 10  # the spectators' shared bucket
CROWD_REFILL_SECONDS = 1.0
FRESH_HEADS = 256  # a message naming a head older than this many of ours is a replay
MAX_HEADS = 1 << 16  # heads remembered (a game's log is far shorter)
MAX_KEPT = 1000  # messages kept (the newest), for the screen and the transcript
SEEN_IDS = 4096  # message ids remembered, to read a message delivered twice once
MAX_AUTHORS = 256  # authors whose rate is remembered


class ChatError(ValueError):
    """A message this peer will not send; the text says why, and ``what`` which rule
    with its ``values`` (for a screen to say it in the person's language): ``empty``,
    ``long`` (``limit``, ``length``), ``line``, ``marks`` (``limit``), ``bytes``
    (``limit``), ``fast`` (``burst``, ``wait``)."""

    def __init__(self, message: str, what: str, **values: int) -> None:
        super().__init__(message)
        self.what, self.values = what, values


def check_text(text: Any) -> str:
    """``text`` if it may be a chat message's text; :class:`ChatError` saying why not."""
    if not isinstance(text, str) or not text.strip():
        raise ChatError("a message says something (it is empty)", "empty")
    if len(text) > MAX_TEXT:
        raise ChatError(
            f"a message is at most {MAX_TEXT} characters (this one has {len(text)})",
            "long",
            limit=MAX_TEXT,
            length=len(text),
        )
    if not text.isprintable():
        raise ChatError("a message is one line of printable characters", "line")
    if sum(1 for ch in text if unicodedata.combining(ch)) > MAX_MARKS:
        raise ChatError(
            f"a message has at most {MAX_MARKS} combining marks", "marks", limit=MAX_MARKS
        )
    return text


def chat_message(
    identity: Identity, table_id: bytes, seat: int, count: int, head: bytes, text: str
) -> bytes:
    """The signed wire of a chat message: ``identity`` speaks at ``table_id`` from
    ``seat`` (0 for a spectator), its ``count``-th message, having read the log up to
    ``head``. :class:`ChatError` for a text that may not be sent."""
    entry = sign_entry(
        identity,
        table=table_id,
        seat=seat,
        seq=count,
        prev=head,
        type=CHAT_TYPE,
        body={"text": check_text(text)},
    )
    if len(entry.wire) > MAX_CHAT_BYTES:
        said = f"a message is at most {MAX_CHAT_BYTES} bytes once signed"
        raise ChatError(said, "bytes", limit=MAX_CHAT_BYTES)
    return entry.wire


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One message as a peer read it: its author (key fingerprint; the seat, None for
    a spectator; the name the table knows the author by), the text, the wire."""

    author: str
    seat: int | None
    name: str
    text: str
    wire: bytes

    def to_dict(self) -> dict[str, Any]:
        return {"author": self.author, "seat": self.seat, "name": self.name, "text": self.text}


def read_chat(
    wire: Any,
    table_id: bytes,
    seats: list[bytes],
    names: list[str],
    spectators: dict[str, str] | None,
) -> ChatLine:
    """The message ``wire`` says, if its author may speak: a seat (``seats``: each
    seat's key, ``names`` their names) or a listed spectator (``spectators``: key
    fingerprint -> name; None: any other key, named by its fingerprint, as an offline
    check of a transcript has it). :class:`UntrustedInput` for anything else."""
    if not isinstance(wire, bytes) or len(wire) > MAX_CHAT_BYTES:
        raise UntrustedInput(f"a chat message is at most {MAX_CHAT_BYTES} bytes")
    try:
        entry = parse_entry(wire, table_id)
    except MessageError as exc:
        raise UntrustedInput(f"not a signed chat message: {exc}") from exc
    if entry.type != CHAT_TYPE or set(entry.body) != {"text"}:
        raise UntrustedInput("a chat message is a chat entry with a text only")
    try:
        text = check_text(entry.body["text"])
    except ChatError as exc:
        raise UntrustedInput(f"a chat message's text: {exc}") from exc
    fp = fingerprint(entry.author)
    if entry.author in seats:
        seat = seats.index(entry.author)
        if entry.seat != seat:
            raise UntrustedInput("a seat's chat message names another seat")
        name = names[seat] if seat < len(names) else f"seat {seat}"
        return ChatLine(fp, seat, name, text, entry.wire)
    if spectators is None and entry.seat == 0:
        return ChatLine(fp, None, f"key {fp}", text, entry.wire)
    if spectators is not None and fp in spectators and entry.seat == 0:
        return ChatLine(fp, None, spectators[fp], text, entry.wire)
    raise UntrustedInput("a chat message from a key that is neither a seat nor a spectator")


def audit_chat(
    table_id: bytes, wires: list[bytes], seatings: list[list[tuple[str, bytes]]]
) -> tuple[list[ChatLine], str | None]:
    """Check a transcript's chat offline: each message signed by its author, for this
    table, by a key that held the seat it names (``seatings``: each seat's (name, key)
    at the open and at the end) or by a spectator (seat 0, any other key). The lines,
    and what is wrong with the first message that fails (None: none does)."""
    lines: list[ChatLine] = []
    for number, wire in enumerate(wires):
        seats: list[bytes] = []
        names: list[str] = []
        try:
            entry = parse_entry(wire, table_id)
            for seating in seatings:  # the seating where its author held a seat
                keys = [key for _, key in seating]
                if entry.author in keys and (not seats or keys.index(entry.author) == entry.seat):
                    seats, names = keys, [name for name, _ in seating]
            lines.append(read_chat(wire, table_id, seats, names, None))
        except (MessageError, UntrustedInput) as exc:
            return lines, f"chat message {number}: {exc}"
    return lines, None


class Bucket:
    """A token bucket on a clock the caller passes in (seconds): ``burst`` at once,
    then one every ``refill`` seconds."""

    def __init__(self, burst: int, refill: float, now: float) -> None:
        self.burst = burst
        self.refill = refill
        self.tokens = float(burst)
        self.at = now

    def _fill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + max(0.0, now - self.at) / self.refill)
        self.at = max(self.at, now)

    def ready(self, now: float) -> bool:
        self._fill(now)
        return self.tokens >= 1

    def take(self, now: float) -> bool:
        """Take one message's token; False (and nothing taken) when there is none."""
        if not self.ready(now):
            return False
        self.tokens -= 1
        return True

    def wait(self, now: float) -> float:
        """Seconds until a message may go."""
        self._fill(now)
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) * self.refill


class RecentHeads:
    """The heads of this peer's log in the order it reached them (the last
    :data:`MAX_HEADS`), to tell a message naming a head passed long ago (a replay)
    from a fresh one. A head it never had may be one it has not reached yet (the
    author can be ahead): that is not a replay."""

    def __init__(self, window: int = FRESH_HEADS) -> None:
        self.window = window
        self._noted: OrderedDict[bytes, int] = OrderedDict({GENESIS: 1})
        self._count = 1

    def note(self, head: bytes) -> None:
        if head in self._noted:
            return
        self._count += 1
        self._noted[head] = self._count
        while len(self._noted) > MAX_HEADS:  # long expired, all of them
            self._noted.popitem(last=False)

    def passed_long_ago(self, head: bytes) -> bool:
        """True for a head this log had more than ``window`` heads ago."""
        noted = self._noted.get(head)
        return noted is not None and noted <= self._count - self.window


class ChatRoom:
    """What one peer makes of a table's chat: the messages it accepted (the newest
    :data:`MAX_KEPT`, in the order they came), the rate of each author, the muted
    keys, and its own messages' count and rate. Pure: the clock is an argument."""

    def __init__(self, table_id: bytes, now: float = 0.0) -> None:
        self.table_id = table_id
        self.lines: deque[ChatLine] = deque(maxlen=MAX_KEPT)
        self.muted: set[str] = set()  # key fingerprints
        self.dropped: dict[str, int] = {}  # author -> messages dropped for their rate
        self.heads = RecentHeads()
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._crowd = Bucket(CROWD_BURST, CROWD_REFILL_SECONDS, now)
        self._seen: OrderedDict[bytes, None] = OrderedDict()
        self._mine = Bucket(BURST, REFILL_SECONDS, now)
        self.sent = 0  # messages this peer signed (its next message's ``seq``)

    def receive(
        self,
        wire: Any,
        now: float,
        seats: list[bytes],
        names: list[str],
        spectators: dict[str, str],
    ) -> ChatLine | None:
        """Take one message from the network: the line it adds, or None when it adds
        none (read already, or over its author's rate: counted in :attr:`dropped`);
        :class:`UntrustedInput` for a message that is not one (nothing changes)."""
        line = read_chat(wire, self.table_id, seats, names, spectators)
        digest = hashlib.sha256(line.wire).digest()
        if digest in self._seen:
            return None
        if self.heads.passed_long_ago(parse_entry(line.wire).prev):
            raise UntrustedInput("a chat message naming a head passed long ago (a replay)")
        self._remember(digest)
        bucket = self._buckets.get(line.author)
        if bucket is None:  # only seats and listed spectators get here; bounded anyway
            if len(self._buckets) >= MAX_AUTHORS:
                self._buckets.popitem(last=False)
            bucket = self._buckets[line.author] = Bucket(2 * BURST, REFILL_SECONDS, now)
        crowd_ok = line.seat is not None or self._crowd.ready(now)
        if not crowd_ok or not bucket.take(now):
            self.dropped[line.author] = self.dropped.get(line.author, 0) + 1
            return None
        if line.seat is None:
            self._crowd.take(now)
        self.lines.append(line)
        return line

    def _remember(self, digest: bytes) -> None:
        self._seen[digest] = None
        while len(self._seen) > SEEN_IDS:
            self._seen.popitem(last=False)

    def say(
        self, identity: Identity, seat: int | None, head: bytes, text: str, now: float
    ) -> bytes:
        """Sign this peer's message (``seat`` None: as a spectator), within its own
        rate; :class:`ChatError` saying why it cannot go now. The caller publishes the
        wire and takes it back in with :meth:`receive` like any other."""
        check_text(text)
        if not self._mine.ready(now):
            wait = max(1, round(self._mine.wait(now)))
            raise ChatError(
                f"too fast: at most {BURST} messages at once; wait {wait} s",
                "fast",
                burst=BURST,
                wait=wait,
            )
        wire = chat_message(
            identity, self.table_id, 0 if seat is None else seat, self.sent, head, text
        )
        self._mine.take(now)
        self.sent += 1
        return wire

    def shown(self) -> list[ChatLine]:
        """The lines a screen shows: the kept ones, muted authors left out."""
        return [line for line in self.lines if line.author not in self.muted]

    def wires(self) -> list[bytes]:
        """The kept messages' wires, in the order they came (for the transcript)."""
        return [line.wire for line in self.lines]

    def mute(self, author: str, muted: bool = True) -> None:
        (self.muted.add if muted else self.muted.discard)(author)
