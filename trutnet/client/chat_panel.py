"""The chat on a table's screen (:class:`ChatPanel`): Tab shows it in the log's place
and starts a line to type; Enter sends it, Esc goes back to the game's log (the game's
keys act again). While the panel is closed, the rule above the log counts the messages
that came. ``/mute NAME`` hides an author's messages on this screen (by their key:
another author who takes the name is not hidden), ``/unmute NAME`` shows them again.
What may be said and how fast is the table's rule (:mod:`trutnet.protocol.chat`); a
message that cannot go says why in the panel.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from trutnet.i18n import _
from trutnet.protocol.chat import MAX_TEXT
from trutnet.runtime.table_chat import label

if TYPE_CHECKING:
    from trutnet.client.app import TableApp


class ChatPanel:
    """The chat of one screen: the lines it shows and the line being typed (both in
    the screen's :class:`~trutnet.client.view.TableInfo`)."""

    def __init__(self, screen: TableApp) -> None:
        self.screen = screen
        self._sending: set[asyncio.Task[None]] = set()

    @property
    def info(self) -> Any:
        return self.screen.info

    def open(self) -> None:
        self.info.chat_open = True
        self.info.typing = ""
        self.info.chat_unread = 0
        self.info.chat_note = ""
        self.refresh()

    def close(self) -> None:
        self.info.chat_open = False
        self.info.typing = None
        self.info.chat_note = ""

    def refresh(self) -> None:
        """The lines shown: the runtime's, muted authors left out."""
        runtime = self.screen.runtime
        chat = getattr(runtime, "chat", None)
        if chat is not None:
            self.info.chat = [
                (label(line.name, line.seat), line.text) for line in chat.room.shown()
            ]

    def heard(self, data: dict[str, Any]) -> None:
        """A ``chat`` event: the line is shown, or counted while the panel is closed."""
        self.refresh()
        mine = data.get("author") == self.info.me_fp
        if not self.info.chat_open and not data.get("muted") and not mine:
            self.info.chat_unread += 1

    def send(self) -> None:
        """Enter: a command (``/mute NAME``, ``/unmute NAME``) or a message."""
        text = (self.info.typing or "").strip()
        if not text:
            return
        runtime = self.screen.runtime
        if runtime is None:
            self.info.chat_note = _("not sent: the chat opens with the table")
            return
        command, _space, name = text.partition(" ")
        if command in ("/mute", "/unmute"):
            if not name.strip():
                said = _("{command} NAME: whose messages ({command} Bob)")
                self.info.chat_note = said.format(command=command)
            else:
                self.info.chat_note = runtime.chat.mute(name.strip(), command == "/mute")
            self.info.typing = ""
            self.refresh()
            return
        task = asyncio.get_running_loop().create_task(self._say(runtime, text))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _say(self, runtime: Any, text: str) -> None:
        self.info.chat_note = _("sending…")
        self.info.typing = ""
        why = await runtime.chat.say(text)
        self.info.chat_note = why or ""
        if why is not None and not self.info.typing:  # the text comes back to fix it
            self.info.typing = text
        self.refresh()
        self.screen.app.invalidate()

    def keys(self) -> KeyBindings:
        """The keys while typing: text, Backspace, Enter, Esc; Ctrl-C leaves the chat
        and means what it means on the screen."""
        kb = KeyBindings()

        @kb.add(Keys.Any)
        @kb.add(Keys.BracketedPaste)
        def _type(event: KeyPressEvent) -> None:
            typed = "".join(ch for ch in event.data if ch.isprintable())
            if typed:
                self.info.typing = ((self.info.typing or "") + typed)[:MAX_TEXT]
                self.info.chat_note = ""

        @kb.add("backspace")
        def _erase(event: KeyPressEvent) -> None:
            self.info.typing = (self.info.typing or "")[:-1]

        @kb.add("enter")
        def _send(event: KeyPressEvent) -> None:
            self.send()

        @kb.add("escape")
        def _back(event: KeyPressEvent) -> None:
            self.close()

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            self.close()
            self.screen.interrupt()

        return kb
