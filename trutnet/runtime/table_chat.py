"""The ``chat`` topic of one process's table runtime (``docs/protocol.md`` 9.6): the
person's messages signed and sent within their rate, the others' read
(:class:`~trutnet.protocol.chat.ChatRoom` decides what counts), each shown as a
``chat`` event, and who is muted here.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

from trutnet.crypto.identity import fingerprint
from trutnet.i18n import N_, _, ngettext
from trutnet.net import topics
from trutnet.protocol.chat import ChatError, ChatLine, ChatRoom
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.events import ChatSaid

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime

# shown through _() (the language is chosen after import)
OFFLINE = N_("not sent: no connection to the table; say it again once the broker is back")
# why the chat refuses a message (:class:`ChatError`'s ``what``), for the person
CHAT_REFUSALS = {
    "empty": N_("a message says something (it is empty)"),
    "long": N_("a message is at most {limit} characters (this one has {length})"),
    "line": N_("a message is one line of printable characters"),
    "marks": N_("a message has at most {limit} combining marks"),
    "bytes": N_("a message is at most {limit} bytes once signed"),
    "fast": N_("too fast: at most {burst} messages at once; wait {wait} s"),
}


class TableChat:
    """The chat one table runtime's process reads and writes; the person speaks for
    the process's first seat (a seat, or a spectator's key when it watches)."""

    def __init__(self, table: TableRuntime) -> None:
        self.table = table
        self.room = ChatRoom(table.table_id, time.monotonic())

    def _speakers(self) -> tuple[list[bytes], list[str], dict[str, str]]:
        """Who may speak: the seats' keys and names, and the listed spectators."""
        replica = self.table.replica
        seats = list(replica.seats) if replica is not None else []
        names = list(replica.names) if replica is not None else []
        listed = {w.fingerprint: w.name for w in self.table.watchers.listed()}
        return seats, names, listed

    def read(self, payload: bytes) -> ChatLine | None:
        """A message from the network: a ``chat`` event if it adds a line;
        :class:`UntrustedInput` (the pump drops it) for one that is not a message."""
        replica = self.table.replica
        if replica is None or replica.state is None:
            raise UntrustedInput("a chat message before the table opened")
        line = self.room.receive(payload, time.monotonic(), *self._speakers())
        if line is not None:
            muted = line.author in self.room.muted
            self.table.emit(ChatSaid(line.author, line.seat, line.name, line.text, muted))
        return line

    async def say(self, text: str) -> str | None:
        """Sign and send the person's ``text``; None once it is sent, else why not (one
        line for the screen)."""
        table = self.table
        replica = table.replica
        if replica is None or replica.state is None:
            return _("not sent: the chat opens with the table")
        me = table.seats[0]
        peer = me.peer
        seat = peer.seat if peer is not None and peer.seated() else None
        if seat is None and not table.spectating:
            return _("not sent: only the seats and the spectators speak at a table")
        try:
            wire = self.room.say(me.identity, seat, table.head(), text, time.monotonic())
        except ChatError as exc:
            why = _(CHAT_REFUSALS[exc.what]).format(**exc.values)
            return _("not sent: {why}").format(why=why)
        if not await table.link.publish(topics.chat(table.table_id), wire, wait=5):
            return _(OFFLINE)
        # shown at once (the broker's echo is the same message: read once); a spectator
        # not listed here yet is shown once it is
        with contextlib.suppress(UntrustedInput):
            self.read(wire)
        return None

    def mute(self, name: str, muted: bool = True) -> str:
        """Mute (or hear again) the author the chat shows as ``name`` (a seat's name,
        a spectator's ``Eve (watching)``, or a spectator's bare name when no seat has
        it): by their key, so another author who takes the same name is not muted. One
        line saying what happened."""
        seats, names, listed = self._speakers()
        by_label: dict[str, set[str]] = {}
        for key, n in zip(seats, names, strict=False):
            by_label.setdefault(n, set()).add(fingerprint(key))
        spoken = [(line.author, line.seat, line.name) for line in self.room.lines]
        spoken += [(fp, None, n) for fp, n in listed.items()]
        for fp, seat, n in spoken:
            by_label.setdefault(label(n, seat), set()).add(fp)
            if seat is None and n not in names:
                by_label.setdefault(n, set()).add(fp)
        found = set(by_label.get(name, ()))
        if not found:
            return _("nobody called {name} at this table").format(name=repr(name))
        if len(found) > 1:
            return ngettext(
                "{count} author is called {name}: not muted",
                "{count} authors are called {name}: not muted",
                len(found),
            ).format(count=len(found), name=repr(name))
        self.room.mute(found.pop(), muted)
        if muted:
            return _("{name} muted: their messages are hidden").format(name=name)
        return _("{name} is heard again").format(name=name)


def label(name: str, seat: int | None) -> str:
    """How the chat shows an author: a seat by its name, a spectator as ``Eve
    (watching)``."""
    return name if seat is not None else _("{name} (watching)").format(name=name)
