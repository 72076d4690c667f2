"""A spectator's screen (``trutnet watch``, :class:`WatchApp`): the same frame as a
seat's, the table as everyone sees it (hidden cards face down), no keys for actions,
and q or Ctrl-C (interrupted: 130) leaves at once (there is no seat to abandon). Its
front-end is the one of the game the table turns out to play. The players' screens
list the spectators.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from trutnet.client.app import SUMMARY_SECONDS, TableApp
from trutnet.client.lobby_view import no_screen_lines, watch_wait_lines
from trutnet.client.view import (
    abandoned_lines,
    end_lines,
    help_lines,
    table_lines,
)
from trutnet.i18n import _


class WatchApp(TableApp):
    """The screen of a spectator: the public view, no keys for actions; q or Ctrl-C
    stops watching at once. The game is the one the table's ``open`` names. A finished
    round goes by itself after a moment (a spectator's keys take no action)."""

    summary_seconds = SUMMARY_SECONDS
    _catching_up = ""  # the last "Catching up…" said in the message row (cleared after)

    def __init__(self, table_name: str, input: Any = None, output: Any = None) -> None:
        super().__init__(table_name, 0, input, output, game=None)  # known once open

    def observation(self) -> Any:
        state = self._state()
        frontend = None if state is None else self._frontend(state)
        return None if frontend is None else frontend.spectator_observation(state)

    def _behind(self) -> bool:
        runtime = self.runtime
        return runtime is not None and not getattr(runtime, "caught_up", True)

    def _refresh(self) -> None:
        super()._refresh()
        peer = self.seat.peer
        reading = self._behind() and not self.info.offline  # no broker: nothing to read
        if peer is not None and reading and peer.replica.state is not None:
            entries = len(peer.replica.log)
            said = _("Catching up with the table's log: {entries} entries read…")
            self.info.message = self._catching_up = said.format(entries=entries)
        elif self._catching_up and self.info.message == self._catching_up:
            self.info.message = ""

    def lines(self) -> list[Any]:
        if self.help and self.frontend is not None:
            return help_lines(self.frontend, spectator=True)
        self._refresh()
        obs = self.observation()
        if obs is None:
            if self._state() is not None:
                return no_screen_lines(self.info, self.table_name, self.info.message)
            return watch_wait_lines(self.info, self.table_name)
        assert self.frontend is not None
        if self.info.abandoned:
            return abandoned_lines(self.frontend, obs, self.info)
        if obs.to_act is None and not self.info.paused:
            return end_lines(self.frontend, obs, self.info)
        return table_lines(self.frontend, obs, self.info)

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            self._exit(interrupted=event.key_sequence[0].key == "c-c")

        self._frame_keys(kb)

        @kb.add("enter")
        @kb.add(" ")
        def _continue(event: KeyPressEvent) -> None:
            self.dismiss()

        @kb.add(Keys.Any)
        def _other(event: KeyPressEvent) -> None:
            typed = event.data
            if len(typed) == 1 and typed.isprintable() and not typed.isspace():
                said = _("'{key}' does nothing here: you are watching (q leaves)")
                self._say(said.format(key=typed))

        return kb

    def interrupt(self) -> None:
        """Ctrl-C: stop watching at once (there is no seat to abandon)."""
        self._exit(interrupted=True)

    def left_message(self) -> str:
        return _("You stopped watching; the game goes on without you.")
