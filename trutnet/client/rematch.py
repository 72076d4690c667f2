"""A rematch from the end screen (``docs/protocol.md`` 9.7): ``r`` says this seat wants
one (the bots its program seated follow it); the end screen says who wants one and
who is awaited. Once every seat does, the host's screen opens the next table (a fresh
id, the same game, options and seats) and names it to the others, whose screens then
leave for it. :attr:`Rematch.to` is what the command does next: host the table of
that nonce, or join that table at that broker; a sealed (or private) table's next one
is sealed with the key the host names with it (:attr:`Rematch.next_key`), so that
nobody types a code or a password again.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

from trutnet.crypto.channel import KEY_BYTES
from trutnet.i18n import _, ngettext
from trutnet.protocol.lobby import table_id_for

if TYPE_CHECKING:
    from trutnet.client.app import TableApp


class Rematch:
    """One seat's screen's rematch. ``host_url``: this process hosts the table, on
    that broker (``trutnet play``); None: it joined it."""

    def __init__(self, screen: TableApp) -> None:
        self.screen = screen
        self.host_url: str | None = None
        # a nonce (host), or (table, url, a sealed table's key)
        self.to: bytes | tuple[bytes, str, bytes | None] | None = None
        self.next_key: bytes | None = None  # the host's: its next table's key, if sealed
        self._tasks: set[asyncio.Task[Any]] = set()
        self._opening = False

    def _notices(self) -> Any:
        return getattr(self.screen.runtime, "notices", None)  # (a stand-in has none)

    def key(self) -> None:
        """``r`` on the end screen: this seat wants a rematch."""
        notices = self._notices()
        if notices is None:
            return
        self._spawn(notices.want_rematch())

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def said(self) -> str:
        """The end screen's line about a rematch (empty: nobody asked for one)."""
        notices = self._notices()
        if notices is None or not notices.rematch or self.screen.info.me is None:
            return ""
        info = self.screen.info
        names = info.names
        wanting = sorted(notices.rematch)
        awaited = [s for s in range(len(names)) if s not in notices.rematch]
        if not awaited:
            return _("Rematch agreed: on to the next table…")
        if info.me in notices.rematch:
            them = ", ".join(names[s] for s in awaited if s < len(names))
            return _("Rematch: you want one; waiting for {names}").format(names=them)
        who = ""
        for name in (names[s] for s in wanting if s < len(names)):
            who = _("{names} and {last}").format(names=who, last=name) if who else name
        said = ngettext(
            "{names} wants a rematch: r accepts", "{names} want a rematch: r accepts", len(wanting)
        )
        return said.format(names=who)

    def follow(self) -> None:
        """On each redraw of the end screen: the host opens the next table once every
        seat wants it; a joiner leaves for the table the host named."""
        notices = self._notices()
        if notices is None or self.to is not None:
            return
        if self.host_url is None:
            if notices.rematch_at is not None:
                self.to = notices.rematch_at
                self.screen._exit_soon()
            return
        if notices.rematch_agreed() and not self._opening:
            self._opening = True
            self._spawn(self._open())

    async def _open(self) -> None:
        """Name the next table to the others, then leave for it."""
        runtime = self.screen.runtime
        assert runtime is not None and self.host_url is not None
        nonce = os.urandom(16)
        table_id = table_id_for(runtime.seats[0].identity.public, nonce)
        sealed = getattr(runtime.link, "seal", None) is not None
        self.next_key = os.urandom(KEY_BYTES) if sealed else None
        await runtime.notices.announce_rematch(table_id, self.host_url, self.next_key)
        self.to = nonce
        self.screen._exit_soon()
