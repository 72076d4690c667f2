"""What a table's runtime reports as it goes: one small frozen class per event, its
fields those of the event's line (``--json``: one JSON object per line, with
``event`` the event's name and ``who`` the process) and of the client's hook
(``on_event(name, fields)``). ``docs/events.md`` lists every event, field by field.

A field whose name is a Python keyword is spelt with a trailing underscore here
(``for_``, ``from_``) and without it on the line. A process that starts a host reads
its table's id from the host's first ``table`` line (:func:`announced_table`).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from trutnet.i18n import _


@dataclass(frozen=True)
class Event:
    """An event: its :meth:`label` (the line's ``event``) and :meth:`data` are what
    the line says."""

    kind: ClassVar[str] = ""

    def label(self) -> str:
        return self.kind

    def data(self) -> dict[str, Any]:
        return {f.name.rstrip("_"): getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Connected(Event):
    """The process reached the table's broker (again)."""

    kind: ClassVar[str] = "connected"
    broker: str | None


@dataclass(frozen=True)
class Disconnected(Event):
    """The broker is lost during the game; ``ever``: it had been reached before."""

    kind: ClassVar[str] = "disconnected"
    broker: str
    ever: bool


@dataclass(frozen=True)
class Following(Event):
    """A process that holds no seat (a newcomer) follows the table's game."""

    kind: ClassVar[str] = "following"
    players: int


@dataclass(frozen=True)
class CaughtUp(Event):
    """A spectator has read the log as far as the table is."""

    kind: ClassVar[str] = "caught_up"
    entries: int
    hand: int


@dataclass(frozen=True)
class EntryRejected(Event):
    """An entry this seat refused, and the seat it blames (docs/protocol.md 7.5)."""

    kind: ClassVar[str] = "rejected"
    seat: int | None
    error: str
    blame: str
    blamed: int  # the seat blamed
    rule: str  # the rule it broke (a protocol token, or a ruling id of the game)

    @classmethod
    def of(cls, seat: int | None, refused: Any) -> EntryRejected:
        """``seat``'s refusal (:class:`~trutnet.protocol.schema.Rejected`) with a blame."""
        blame = refused.blame
        return cls(seat, str(refused), str(blame), blame.seat, blame.rule)


@dataclass(frozen=True)
class Watching(Event):
    """The spectators listed by their signed presence, how many more, and the log's
    length when they were counted."""

    kind: ClassVar[str] = "watchers"
    watchers: list[dict[str, Any]]
    more: int
    entries: int


@dataclass(frozen=True)
class StallReported(Event):
    """The table has waited ``seconds`` for ``seat`` (7.7), since entry ``since_entry``,
    for an entry of a type in ``waiting_for``."""

    kind: ClassVar[str] = "stall"
    seat: int
    waiting_for: list[str]
    since_entry: int
    seconds: int


@dataclass(frozen=True)
class NoticeRead(Event):
    """A seat's signed notice (a stall report, or that its player left)."""

    kind: ClassVar[str] = "notice"
    from_: int
    notice: dict[str, Any]


@dataclass(frozen=True)
class ClockRanOut(Event):
    """``seat``'s time for its decision ran out, on this process's reading of the
    table's clock (docs/protocol.md 7.11); ``bot``: this process's person let a bot
    decide for them, and it does."""

    kind: ClassVar[str] = "clock"
    seat: int
    bot: bool


@dataclass(frozen=True)
class ChatSaid(Event):
    """A chat message this process accepted (docs/protocol.md 9.6): its author's key
    fingerprint, seat (None: a spectator) and name, the text, and whether this process
    mutes that author."""

    kind: ClassVar[str] = "chat"
    author: str
    seat: int | None
    name: str
    text: str
    muted: bool


@dataclass(frozen=True)
class SignSeen(Event):
    """News of a sign (docs/protocol.md 9.8): ``seat`` made its sign ``number`` in the
    game's ``period`` (Truco's hand; ``what`` ``made``), watcher ``by`` drew on it
    (``caught`` or ``missed``), or it was shown to ``by`` (``shown``); ``card``: the
    sign, when this process's person may know it (its own, or shown to its seat), else
    None."""

    kind: ClassVar[str] = "sign"
    seat: int
    number: int
    period: int
    what: str
    by: int | None
    card: str | None


@dataclass(frozen=True)
class Offer(Event):
    """This process's newcomer offers to take the stalled ``seat`` (7.7)."""

    kind: ClassVar[str] = "offer"
    seat: int
    name: str


@dataclass(frozen=True)
class Vote(Event):
    """A local seat votes on the stalled ``seat``: ``for_`` is ``abandon`` or
    ``newcomer`` (7.7)."""

    kind: ClassVar[str] = "vote"
    seat: int
    voter: int
    for_: str


@dataclass(frozen=True)
class SeatChanged(Event):
    """This process coordinated a ``void`` or ``abandon`` (7.7): ``change`` is
    ``replaced``, ``abandoned`` or ``closed``, the event's label."""

    change: str
    seat: int
    voters: list[int]
    coordinator: int
    by: str

    def label(self) -> str:
        return self.change

    def data(self) -> dict[str, Any]:
        data = super().data()
        del data["change"]
        return data


@dataclass(frozen=True)
class YouWereReplaced(Event):
    """A newcomer took this process's stalled ``seat``: it follows the game now."""

    kind: ClassVar[str] = "you_were_replaced"
    seat: int


@dataclass(frozen=True)
class TookSeat(Event):
    """This process's newcomer took ``seat``."""

    kind: ClassVar[str] = "took_seat"
    seat: int


@dataclass(frozen=True)
class VoteReleased(Event):
    """A local seat that voted, then saw the stalled seat's late entry, follows it
    after all (7.8)."""

    kind: ClassVar[str] = "vote_released"
    seat: int


@dataclass(frozen=True)
class DecisionRefused(Event):
    """The person's queued decision was not sent, and why (the table moved on)."""

    kind: ClassVar[str] = "decision_refused"
    seat: int | None
    action: str | None
    why: str


@dataclass(frozen=True)
class Rehosted(Event):
    """This process started its fallback broker for ``seat`` (9.3)."""

    kind: ClassVar[str] = "rehosted"
    seat: int
    broker: str


@dataclass(frozen=True)
class RehostYielded(Event):
    """This process stopped its fallback broker: an earlier one is back (9.3)."""

    kind: ClassVar[str] = "rehost_yielded"
    seat: int
    to: str


@dataclass(frozen=True)
class RehostFailed(Event):
    """Starting the fallback broker failed (the port is taken, say); tried again."""

    kind: ClassVar[str] = "rehost_failed"
    error: str


@dataclass(frozen=True)
class GaveUp(Event):
    """No progress for ``seconds``: the process stops (``why``: none for a timeout)."""

    kind: ClassVar[str] = "gave_up"
    seconds: int
    why: str | None


@dataclass(frozen=True)
class Finished(Event):
    """The process leaves the table after the game; ``waited_for``: the seats not
    known to have the whole log by then (9.2)."""

    kind: ClassVar[str] = "finished"
    waited_for: list[int]


@dataclass(frozen=True)
class Joined(Event):
    """The host seated someone: a joiner, or a bot."""

    kind: ClassVar[str] = "joined"
    seat: int
    name: str


@dataclass(frozen=True)
class JoinRefused(Event):
    """The host refused a join request, and why."""

    kind: ClassVar[str] = "join_refused"
    error: str


@dataclass(frozen=True)
class Invited(Event):
    """The host's table is sealed, and this code lets a friend in (9.9) until it
    expires (``seconds`` from now), burns, or the table is full."""

    kind: ClassVar[str] = "invitation"
    code: str
    seconds: int


EVENTS: tuple[type[Event], ...] = (
    Connected,
    Disconnected,
    Following,
    CaughtUp,
    EntryRejected,
    Watching,
    StallReported,
    NoticeRead,
    ChatSaid,
    SignSeen,
    ClockRanOut,
    Offer,
    Vote,
    SeatChanged,
    YouWereReplaced,
    TookSeat,
    VoteReleased,
    DecisionRefused,
    Rehosted,
    RehostYielded,
    RehostFailed,
    GaveUp,
    Finished,
    Joined,
    JoinRefused,
    Invited,
)


def announced_table(proc: subprocess.Popen[str], timeout: float = 60.0) -> tuple[str, list[str]]:
    """The table id that a ``trutnet host --json`` process announces (its first
    ``table`` event; the id is bound to the host's key, 7.10, so only the host knows it
    in advance), and the lines it printed until then."""
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("event") == "table" and isinstance(event.get("table"), str):
                    return event["table"], lines
    raise RuntimeError(_("the host did not announce its table"))
