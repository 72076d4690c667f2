"""The terminal client: a full-screen prompt-toolkit application for one seat.

It shows the lobby, then the table (:mod:`trutnet.client.view`), and turns keys into
the seat's decisions, which the peer runtime signs and sends. The game's parts of the
screen and its keys come from its front-end (:mod:`trutnet.client.frontend`); this
module names no game. A key that does nothing now says why in one line. Resizing is
handled by prompt-toolkit: the screen is redrawn from the current state at every
size, down to 80x24.

When a round ends, the frame shows what it scored (the front-end's
:class:`~trutnet.client.frontend.RoundOver`) until the person presses a key; that key
only dismisses it, so nobody plays a card they have not seen (where no key can act, on
a spectator's screen or at the game's end, it goes by itself after a moment). A new
round clears the last round's messages.
Quitting mid-game (q or Ctrl-C, then y) prints where the seat's files are and the
command that brings the seat back; a quit that began with Ctrl-C (in the lobby at
once) ends the command as interrupted (status 130).

The table's trouble is on screen as it happens: a lost broker (and then no key sends
a decision), a stalled seat with the offers and votes on it and when this seat votes
to abandon, and an abandoned game's end (also for a seat that comes back after it).
The seat keeps answering the others' syncs while its end screen is up, so that a
seat resumed later learns how the game ended.

The same frame for a spectator is :class:`~trutnet.client.watch_app.WatchApp`; the
lines about the table's health are :mod:`trutnet.client.table_lines`; a seat process
runs beside the screen in :func:`~trutnet.client.playing.play_with_ui`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from trutnet.client.blame_words import blame_said
from trutnet.client.chat_panel import ChatPanel
from trutnet.client.frontend import Cue, Frontend, NoFrontend, frontend_for
from trutnet.client.hint import hint_said
from trutnet.client.leaving import left_mid_game
from trutnet.client.lobby_view import lobby_lines, no_screen_lines
from trutnet.client.rematch import Rematch
from trutnet.client.sign_panel import SignPanel
from trutnet.client.style import STYLE
from trutnet.client.table_lines import clock_said, game_lines, show_clock, show_table
from trutnet.client.view import (
    HINT_KEY,
    TableInfo,
    help_lines,
    my_turn,
    plain,
    verified_counts,
)
from trutnet.crypto.identity import fingerprint
from trutnet.i18n import N_, _
from trutnet.runtime.lobby_watch import WrongGame
from trutnet.runtime.local_seat import LocalSeat
from trutnet.runtime.table_runtime import TableRuntime

# Shown through _() (the language is chosen after import).
REPLACED = N_("a newcomer took your seat (you stalled): you follow the game")  # not an error
OFFLINE = N_("not sent: no connection to the table; play again once the broker is back")
GAME_ENDED = N_("not sent: the others ended this game; there is nothing to play")
QUIT = N_("Quit the game? {yes}/n ({yes} leaves the table, n stays)")
YES = N_("y")  # the key that says yes in the language (y works in every one)
SUMMARY_SECONDS = 5.0  # how long a finished round stays by itself where no key can act


class TableApp:
    """The screen and keys of one human seat at a table of ``game`` (its registry
    name: its front-end draws the table and takes the game's keys)."""

    # How long a finished round stays on screen by itself; None: until a key (but the
    # game's last), since an Enter meant to dismiss it must never play a card once the
    # summary has gone.
    summary_seconds: float | None = None

    def __init__(
        self,
        table_name: str,
        players: int,
        input: Any = None,
        output: Any = None,
        *,
        game: str | None,
        about: str = "",
    ) -> None:
        self.seat = LocalSeat(None, "", None)  # type: ignore[arg-type]  # until attach()
        self.table_name = table_name
        self.players = players  # seats of the host's lobby; 0 for a joiner
        self.game = game  # the game this seat asked for (None: a spectator's, any)
        self.frontend: Frontend | None = frontend_for(game) if game else None
        self.about = about  # the lobby's game line
        self.runtime: TableRuntime | None = None
        self.info = TableInfo(names=[], fingerprints=[], me=0)
        self.help = False
        self._events_seen = 0
        self._summary_until = 0.0
        self.finished = asyncio.Event()
        self.quit_requested = False
        self.interrupted = False  # left with Ctrl-C: the command ends as interrupted (130)
        self._ctrl_c = False  # the quit question was asked by Ctrl-C
        self._resumed_at: int | None = None  # log length when a resumed seat came back
        self.refused: WrongGame | None = None  # the table plays another game: leave it
        self._invitation_until = 0.0  # when a sealed table's code stops letting anyone in
        self.screen_errors: list[str] = []  # tracebacks of a front-end that failed
        self.chat = ChatPanel(self)  # Tab: the table's chat in the log's place
        self.signs = SignPanel(self)  # g: the game's signs in the log's place
        self.rematch = Rematch(self)  # r on the end screen (9.7)
        control = FormattedTextControl(self._fragments, focusable=True, show_cursor=False)
        self.app: Application[None] = Application(
            layout=Layout(HSplit([Window(control, wrap_lines=False)])),
            key_bindings=self._all_keys(),
            full_screen=True,
            style=STYLE,
            refresh_interval=0.25,
            input=input,
            output=output,
            mouse_support=False,
        )

    # ------------------------------------------------------------ state

    def attach(self, runtime: TableRuntime) -> None:
        self.runtime = runtime
        self.seat = runtime.seats[0]  # the person's seat is the process's first seat
        runtime.keep_serving = True  # a seat resumed later still learns how it ended
        replica = runtime.replica
        if replica is not None and replica.state is not None:  # back from its files
            self._resumed_at = len(replica.log)
        previous = runtime.on_event

        def on_event(kind: str, data: dict[str, Any]) -> None:
            previous(kind, data)
            if kind == "rejected" and data.get("blame"):
                blamed, rule = int(data["blamed"]), str(data["rule"])
                self.info.blame = blame_said(blamed, rule, self.info.names, token=False)
            if kind == "you_were_replaced":
                self.info.message = _(REPLACED)
            if kind == "decision_refused":  # the key press reached the table too late
                said = _("{action} was not played: {why}; choose again")
                self.info.message = said.format(action=data["action"], why=_(data["why"]))
            if kind == "chat":
                self.chat.heard(data)
            if kind == "sign":
                self.signs.heard(data)
            if kind == "clock":
                self.info.message = clock_said(data, self.info)
            if kind == "invitation":
                self.info.invitation = str(data["code"])
                self._invitation_until = time.monotonic() + float(data["seconds"])
            self.app.invalidate()

        runtime.on_event = on_event

    def set_lobby(self, roster: list[tuple[int, str, str]]) -> None:
        self.info.lobby = roster
        self.app.invalidate()

    def _state(self) -> Any:
        """The game state of this screen's replica once the table is open, else None."""
        peer = self.seat.peer
        if peer is None or peer.replica.state is None or peer.replica.phase == "open":
            return None
        return peer.replica.state

    def _frontend(self, state: Any) -> Frontend | None:
        """The front-end of the game ``state`` belongs to (None: no screen for it, or
        not the game this seat asked for: its keys would mean something else)."""
        if self.game is not None and state.game.name != self.game:
            self.frontend = None
            said = _("this table plays {game}, not {asked}")
            self.info.message = said.format(game=state.game.name, asked=self.game)
            if self.refused is None:  # the seat leaves rather than stall the table
                peer = self.seat.peer
                table_id = peer.replica.table_id if peer is not None else b""
                self.refused = WrongGame(table_id, state.game.name, self.game)
                self._exit_soon()
        elif self.frontend is None or self.frontend.game != state.game.name:
            try:
                self.frontend = frontend_for(state.game.name)
            except NoFrontend as exc:
                self.frontend = None
                self.info.message = str(exc)
        return self.frontend

    def observation(self) -> Any:
        """What this screen's seat sees now, or None before the game starts."""
        state = self._state()
        frontend = None if state is None else self._frontend(state)
        if frontend is None:
            return None
        return frontend.observation(state, self.seat.peer.seat)  # type: ignore[union-attr]

    def _refresh(self) -> None:
        peer = self.seat.peer
        runtime = self.runtime
        if peer is None:
            return
        replica = peer.replica
        info = self.info
        info.me = peer.seat
        info.names = list(replica.names)
        info.fingerprints = [fingerprint(k) for k in replica.seats]
        if runtime is not None:
            listed, info.watchers_more = runtime.watchers.view()
            info.watchers = [(w.name, w.fingerprint) for w in listed]
            info.me_fp = fingerprint(self.seat.identity.public)
        state = replica.state
        frontend = None if state is None else self._frontend(state)
        if frontend is None:
            return
        info.round_now = state.round_number()  # whose signs the rule shows
        # A resumed seat reads the whole game at once; a spectator, while it catches up.
        catching_up = self._events_seen == 0 or self._behind()
        events = frontend.events(state)
        for event in events[self._events_seen :]:
            info.log.extend(frontend.narrate(event, state, names=info.names))
            cue = frontend.follow(event, state, info)
            if cue is Cue.ROUND_STARTS and info.message != _(REPLACED):
                info.message = ""  # the last round's errors stay with the last round
            elif cue is Cue.ROUND_ENDS and not catching_up:
                info.paused = True
                self._summary_until = time.monotonic() + (self.summary_seconds or SUMMARY_SECONDS)
        self._events_seen = len(events)
        info.log = info.log[-50:]
        (
            info.shuffles_verified,
            info.reveals_verified,
            info.openings_verified,
            info.searches_verified,
        ) = verified_counts(replica)
        since = runtime.last_progress if runtime is not None else time.monotonic()
        info.waiting_seconds = time.monotonic() - since
        # The summary waits for a key while a key could act; the game's last one gives
        # way to the end screen by itself (no key plays any more).
        goes_by = self.summary_seconds is not None or state.is_terminal()
        if info.paused and goes_by and time.monotonic() > self._summary_until:
            info.paused = False
        away_since = None
        if self._resumed_at is not None and self.seat.peer is not None:
            away_since = (self._resumed_at, self.seat.peer.identity.public)
        show_table(info, replica, frontend, runtime, away_since)
        if info.status == "over":
            self.rematch.follow()
            info.rematch = self.rematch.said() if info.me is not None else None
        show_clock(info, runtime, time.monotonic())
        info.invitation_live = time.monotonic() < self._invitation_until  # for spectators

    def _behind(self) -> bool:
        """True while this screen's replica is still reading the table's past."""
        return False

    def lines(self) -> list[Any]:
        self._refresh()
        if self.help and self.frontend is not None:
            return help_lines(self.frontend, spectator=False, hints=self.info.hints)
        obs = self.observation()
        if obs is None:
            if self._state() is not None:  # open, but no screen for its game
                return no_screen_lines(self.info, self.table_name, self.info.message)
            return lobby_lines(self.info, self.table_name, self.players, self._about())
        assert self.frontend is not None
        if self.info.confirm_quit:  # the one quit question, in the message row
            self.info.message = _(QUIT).format(yes=_(YES))
        return game_lines(self.frontend, obs, self.info)[1]

    def _about(self) -> str:
        if self.about or self.frontend is None:
            return self.about
        return self.frontend.long_name

    def screen_text(self) -> str:
        return plain(self.lines())

    def _fragments(self) -> StyleAndTextTuples:
        try:
            lines = self.lines()
        except Exception as exc:  # a front-end's bug: say it, keep the seat playing
            lines = self._failed(exc)
        out: StyleAndTextTuples = []
        for line in lines:
            out.extend(line)
            out.append(("", "\n"))
        return out

    def _failed(self, exc: Exception) -> list[Any]:
        """The screen when drawing it failed: one line for the person, the traceback
        kept for the end (printed once the screen is gone). The seat process is not
        touched: the table goes on, and q still leaves it."""
        text = f"{type(exc).__name__}: {exc}"
        if text not in (e.splitlines()[-1] for e in self.screen_errors):
            self.screen_errors.append("".join(traceback.format_exception(exc)).rstrip())
        failed = (
            _(" The {game} screen failed: {error}").format(game=self.frontend.game, error=text)
            if self.frontend is not None
            else _(" The game screen failed: {error}").format(error=text)
        )
        lines = [
            [("class:red", failed[:80])],
            [("", _(" The game goes on; the error is printed when you leave (q)."))],
            [("", " " + _("q quit"))],
        ]
        if self.info.confirm_quit:
            lines.append([("class:warn", " " + _(QUIT).format(yes=_(YES)))])
        return lines

    # ------------------------------------------------------------- keys

    def _say(self, text: str) -> None:
        self.info.message = text
        self.app.invalidate()

    def submit(self, text: str) -> bool:
        """Send this seat's decision if it is legal now; otherwise say why."""
        obs = self.observation()
        runtime = self.runtime
        frontend = self.frontend
        if obs is None or runtime is None or frontend is None:
            self._say(_("the game has not started yet"))
            return False
        if self.info.offline:  # never queued as if it were sent
            self._say(_(OFFLINE if self.info.alert.startswith("✗") else GAME_ENDED))
            return False
        if self.info.step:
            self._say(_("not your turn: {step}…").format(step=self.info.step))
            return False
        if obs.to_act != obs.seat:
            if obs.to_act is None or obs.to_act < 0:
                self._say(_("not your turn: {why}").format(why=_(frontend.chance_wait)))
            else:
                who = self.info.names[obs.to_act]
                self._say(_("not your turn: waiting for {who}").format(who=who))
            return False
        if not my_turn(frontend, obs, self.info):
            self._say(_("not your turn: {why}").format(why=_(frontend.not_ready)))
            return False
        legal = {str(a) for a in obs.legal}
        if text not in legal:
            self._say(frontend.why_not(text, obs))
            return False
        self.seat.pending = text
        runtime.wake()
        self._say("")
        frontend.sent(text)
        return True

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        self._quit_keys(kb)
        self._view_keys(kb)
        for key in self.frontend.keys if self.frontend is not None else ():
            if key != "enter":
                kb.add(key)(self._game_key_handler(key))
        if self.frontend is not None and self.frontend.sign_key:  # the game's signs
            kb.add(self.frontend.sign_key)(lambda event: self.signs.open())
        asked = Condition(lambda: self.info.confirm_quit)  # the language's yes, over a game's
        kb.add(_(YES)[:1] or "y", filter=asked)(self._yes)

        game_r = self._game_key_handler("r")

        @kb.add("r")  # on the end screen, a rematch; else the game's key, if it has one
        def _rematch(event: KeyPressEvent) -> None:
            if self.info.status == "over" and self.seat.peer is not None:
                self.rematch.key()
            elif self.frontend is not None and "r" in self.frontend.keys:
                game_r(event)
            else:
                self._say(_("'{key}' does nothing here (? shows the keys)").format(key="r"))

        @kb.add(Keys.Any)  # any key bound above wins over this one
        def _other(event: KeyPressEvent) -> None:
            typed = event.data
            if self.info.confirm_quit:  # the question stays until y or n
                self._say(_(QUIT).format(yes=_(YES)))
            elif len(typed) == 1 and typed.isprintable() and not typed.isspace():
                self._say(_("'{key}' does nothing here (? shows the keys)").format(key=typed))

        return kb

    def _all_keys(self) -> KeyBindings:
        """The screen's keys, the chat's while a line is being typed, the signs' while
        their menu is up."""
        typing = Condition(lambda: self.info.typing is not None)
        signing = Condition(lambda: bool(self.info.sign_menu))
        return merge_key_bindings(  # type: ignore[return-value]
            [
                ConditionalKeyBindings(self._keys(), ~typing & ~signing),
                ConditionalKeyBindings(self.chat.keys(), typing),
                ConditionalKeyBindings(self.signs.keys(), signing & ~typing),
            ]
        )

    def interrupt(self) -> None:
        """Ctrl-C: leave, asking first mid-game (twice: at once)."""
        self._quit_key(ctrl_c=True)

    def _quit_key(self, ctrl_c: bool) -> None:
        if self.info.confirm_quit and ctrl_c:
            self._exit(interrupted=True)  # Ctrl-C twice: the person means it
            return
        if self.info.status == "over" or self.halted():
            self._exit(interrupted=ctrl_c)  # nothing more will be played: no question
            return
        if self.observation() is None and self.seat.peer is None:
            self._exit(interrupted=ctrl_c)
            return
        if self.info.confirm_quit:  # asked already: one question at a time
            return
        self.info.confirm_quit = True
        self._ctrl_c = ctrl_c
        self._say(_(QUIT).format(yes=_(YES)))

    def _quit_keys(self, kb: KeyBindings) -> None:
        """q and Ctrl-C ask first (mid-game), y and n answer."""

        @kb.add("q")
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            self._quit_key(ctrl_c=event.key_sequence[0].key == "c-c")

        kb.add("y")(self._yes)

        @kb.add("n")
        def _no(event: KeyPressEvent) -> None:
            if self.info.confirm_quit:
                self.info.confirm_quit = False
                self._say("")

    def _yes(self, event: KeyPressEvent) -> None:
        if self.info.confirm_quit:
            self._exit(interrupted=self._ctrl_c)

    def _frame_keys(self, kb: KeyBindings) -> None:
        """Help, and scrolling the end screen: a seat's keys and a spectator's."""

        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            self.help = not self.help
            self.app.invalidate()

        @kb.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            self.help = False
            self.chat.close()
            self.signs.close()
            self.app.invalidate()

        @kb.add("tab")
        def _chat(event: KeyPressEvent) -> None:
            self.help = False
            self.signs.close()
            self.chat.open()

        @kb.add("up")
        @kb.add("pageup")
        @kb.add("down")
        @kb.add("pagedown")
        def _scroll(event: KeyPressEvent) -> None:  # the end screen's rounds
            key = event.key_sequence[0].key
            step = (10 if key.startswith("page") else 1) * (1 if key in ("up", "pageup") else -1)
            self.info.end_scroll = max(0, self.info.end_scroll + step)  # clamped when drawn
            self.app.invalidate()

    def _view_keys(self, kb: KeyBindings) -> None:
        """The lobby's bot, dismissing a round's summary, Enter and the hint."""
        self._frame_keys(kb)

        @kb.add("b")
        def _bot(event: KeyPressEvent) -> None:
            if self.seat.peer is not None:  # a game's key, not the lobby's, once it is on
                self._say(_("'b' does nothing now (the keys you may use are shown)"))
                return
            if self.lobby_commands is None:
                self._say(_("bots can be seated only in the host's lobby"))
                return
            self.lobby_commands.put_nowait("bot")

        @kb.add(" ")
        def _space(event: KeyPressEvent) -> None:
            self.dismiss()

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            frontend = self.frontend
            if self.dismiss() or frontend is None or "enter" not in frontend.keys:
                return
            if self.observation() is not None:  # in the lobby, Enter does nothing
                self.game_key("enter")

        @kb.add(HINT_KEY)  # a game's own key of that name, added below, wins
        def _hint(event: KeyPressEvent) -> None:
            self.hint()

    lobby_commands: asyncio.Queue[str] | None = None
    resume_alone = False  # no other seat is left mid-game: ``join --resume`` finds this one

    def dismiss(self) -> bool:
        """Leave the last round's summary; True if the key is spent on it: it was on
        screen and goes (the key only shows the new round), or a round ended since the
        screen was drawn and the key only shows its summary. Either way nobody plays a
        card they have not seen."""
        shown = self.info.paused
        with contextlib.suppress(Exception):  # a front-end's bug: the next drawing says it
            self._refresh()  # a round that ended since the last drawing counts
        if not self.info.paused:
            return False
        if shown:
            self.info.paused = False
        self.app.invalidate()
        return True

    def _game_key_handler(self, key: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            try:
                if not self.dismiss():
                    self.game_key(key)
            except Exception as exc:  # a front-end's bug: shown, the seat goes on
                self._failed(exc)
                failed = _("that key failed: {error}")
                self._say(failed.format(error=f"{type(exc).__name__}: {exc}"))

        return handler

    def game_key(self, key: str) -> None:
        """A key of the game's: what its front-end makes of it now."""
        obs = self.observation()
        if obs is None or self.frontend is None:
            if self._state() is None:  # else the screen says why there is no game here
                self._say(_("the game has not started yet"))
            return
        if self.info.offline:  # nothing can be sent: no key means a move now
            self._say(_(OFFLINE if self.info.alert.startswith("✗") else GAME_ENDED))
            return
        press = self.frontend.press(key, obs, self.info)
        if press.action is not None:
            self.submit(press.action)
        elif press.say is not None:
            self._say(press.say)
        else:
            self.app.invalidate()

    def hint(self) -> None:
        """Say what the search bot would play for this seat now, and why (one line)."""
        self._say(hint_said(self.info, self.frontend, self.observation(), self.seat.peer))

    def halted(self) -> bool:
        """Has the table stopped on a blame (7.5)? Then leaving loses nothing."""
        replica = self.runtime.replica if self.runtime is not None else None
        return replica is not None and replica.halted is not None

    def left_message(self) -> str:
        """What to print when the person leaves mid-game (:func:`left_mid_game`)."""
        return left_mid_game(self.seat, self.runtime, self.resume_alone)

    def _exit(self, interrupted: bool = False) -> None:
        self.interrupted = self.interrupted or interrupted
        self.quit_requested = True
        self.finished.set()
        if self.app.is_running:
            self.app.exit()

    def _exit_soon(self) -> None:
        """Leave after the current redraw (this may be called while drawing)."""
        self.quit_requested = True
        self.finished.set()
        if self.app.is_running:
            asyncio.get_running_loop().call_soon(self._exit)
