"""The terminal client: a full-screen prompt-toolkit application for one seat.

It shows the lobby, then the table (:mod:`trutnet.client.view`), and turns keys into
the seat's decisions, which the peer runtime signs and sends. A key that does
nothing now says why in one line. Resizing is handled by prompt-toolkit: the screen
is redrawn from the current state at every size, down to 80x24.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style

from trutnet.client.narration import narrate
from trutnet.client.view import (
    HELP,
    TableInfo,
    end_lines,
    lobby_lines,
    plain,
    table_lines,
)
from trutnet.crypto.identity import fingerprint
from trutnet.engine.games.trut.observation import TrutObservation
from trutnet.runtime.seat_process import Hooks, SeatResult
from trutnet.runtime.table_runtime import LocalSeat, TableRuntime

STYLE = Style.from_dict(
    {
        "title": "bold",
        "bold": "bold",
        "dim": "#888888",
        "red": "#ff4444 bold",
        "black": "bold",
        "me": "bold #44aaff",
        "warn": "#ffaa00",
        "turn": "bold #44ff44",
        "selected": "reverse",
        "message": "#ffaa00",
        "ok": "#44cc44",
        "blame": "bold #ff2222",
    }
)


class TrutApp:
    """The screen and keys of one human seat."""

    def __init__(
        self, table_name: str, players: int, input: Any = None, output: Any = None
    ) -> None:
        self.seat = LocalSeat(None, "", None)  # type: ignore[arg-type]  # until attach()
        self.table_name = table_name
        self.players = players
        self.runtime: TableRuntime | None = None
        self.info = TableInfo(names=[], fingerprints=[], me=0)
        self.help = False
        self._events_seen = 0
        self.finished = asyncio.Event()
        self.quit_requested = False
        control = FormattedTextControl(self._fragments, focusable=True, show_cursor=False)
        self.app: Application[None] = Application(
            layout=Layout(HSplit([Window(control, wrap_lines=False)])),
            key_bindings=self._keys(),
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
        previous = runtime.on_event

        def on_event(kind: str, data: dict[str, Any]) -> None:
            previous(kind, data)
            if kind == "rejected" and data.get("blame"):
                self.info.blame = str(data["blame"])
            if kind == "you_were_replaced":
                self.info.message = "a newcomer took your seat (you stalled): you follow the game"
            self.app.invalidate()

        runtime.on_event = on_event

    def set_lobby(self, roster: list[tuple[int, str, str]]) -> None:
        self.info.lobby = roster
        self.app.invalidate()

    def observation(self) -> TrutObservation | None:
        peer = self.seat.peer
        if peer is None or peer.replica.state is None or peer.replica.phase == "open":
            return None
        return peer.replica.state.observation(peer.seat)

    def _refresh(self) -> None:
        peer = self.seat.peer
        runtime = self.runtime
        if peer is None or runtime is None:
            return
        replica = peer.replica
        info = self.info
        info.me = peer.seat
        info.names = list(replica.names)
        info.fingerprints = [fingerprint(k) for k in replica.seats]
        state = replica.state
        if state is None:
            return
        for event in state.events[self._events_seen :]:
            lines = narrate(event, state, show_hands=False)
            info.log.extend(_with_names(line, info.names) for line in lines)
            if event["event"] == "hand_end":
                team = event["team"]
                result = (
                    event["result"]
                    if team is None
                    else (
                        f"{event['result']}: "
                        + ",".join(info.names[s][:6] for s in state.teams[team])
                    )
                )
                info.history.append((event["hand"], result, event["longs"], event["petits"]))
        self._events_seen = len(state.events)
        info.log = info.log[-50:]
        counts = [e.type for e in replica.log.entries]
        info.shuffles_verified = counts.count("shuffle")
        info.reveals_verified = counts.count("play")
        if replica.halted is not None:
            info.blame = str(replica.halted)
        info.waiting_seconds = time.monotonic() - runtime._last_progress
        if replica.phase == "done":
            info.status = "over"

    def lines(self) -> list[Any]:
        self._refresh()
        if self.help:
            return [[("", line)] for line in HELP.splitlines()]
        obs = self.observation()
        if obs is None:
            return lobby_lines(self.info, self.table_name, self.players)
        if obs.phase == "over":
            return end_lines(obs, self.info)
        lines = table_lines(obs, self.info)
        if self.info.confirm_quit:
            lines.append([("class:warn", " Quit the game? y/n")])
        return lines

    def screen_text(self) -> str:
        return plain(self.lines())

    def _fragments(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for line in self.lines():
            out.extend(line)
            out.append(("", "\n"))
        return out

    # ------------------------------------------------------------- keys

    def _say(self, text: str) -> None:
        self.info.message = text
        self.app.invalidate()

    def submit(self, text: str) -> bool:
        """Send this seat's decision if it is legal now; otherwise say why."""
        obs = self.observation()
        runtime = self.runtime
        if obs is None or runtime is None:
            self._say("the game has not started yet")
            return False
        if obs.to_act != obs.seat:
            who = "nobody" if obs.to_act is None else self.info.names[obs.to_act]
            self._say(f"not your turn: waiting for {who}")
            return False
        legal = {str(a) for a in obs.legal}
        if text not in legal:
            self._say(_why_not(text, obs))
            return False
        self.seat.pending = text
        runtime.wake()
        self._say("")
        self.info.keep = set()
        return True

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        def _quit(event: KeyPressEvent) -> None:
            if self.info.status == "over" or (
                self.observation() is None and self.seat.peer is None
            ):
                self._exit()
                return
            self.info.confirm_quit = True
            self._say("quit? press y to leave the table, n to stay")

        @kb.add("y")
        def _yes(event: KeyPressEvent) -> None:
            if self.info.confirm_quit:
                self._exit()

        @kb.add("n")
        def _no(event: KeyPressEvent) -> None:
            self.info.confirm_quit = False
            self._say("")

        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            self.help = not self.help
            self.app.invalidate()

        @kb.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            self.help = False
            self.app.invalidate()

        @kb.add("b")
        def _bot(event: KeyPressEvent) -> None:
            if self.lobby_commands is None or self.seat.peer is not None:
                self._say("bots can be seated only in the host's lobby")
                return
            self.lobby_commands.put_nowait("bot")

        for key in "123456789":
            kb.add(key)(self._number(int(key)))

        @kb.add("left")
        def _left(event: KeyPressEvent) -> None:
            obs = self.observation()
            if obs is not None and obs.hand:
                self.info.selected = (self.info.selected - 1) % len(obs.hand)
                self.app.invalidate()

        @kb.add("right")
        def _right(event: KeyPressEvent) -> None:
            obs = self.observation()
            if obs is not None and obs.hand:
                self.info.selected = (self.info.selected + 1) % len(obs.hand)
                self.app.invalidate()

        @kb.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            obs = self.observation()
            if obs is None:
                return
            if obs.phase == "keep":
                cards = [obs.hand[i][1] for i in sorted(self.info.keep) if i < len(obs.hand)]
                if len(cards) != 3:
                    self._say("choose exactly 3 cards to keep (toggle with 1-9)")
                    return
                self.submit("keep " + " ".join(str(c) for c in cards if c is not None))
                return
            self._play(self.info.selected)

        for key, word in (("t", "trut"), ("j", None), ("c", None), ("p", "pass"), ("s", "sing")):
            kb.add(key)(self._word(key, word))
        return kb

    lobby_commands: asyncio.Queue[str] | None = None

    def _number(self, number: int) -> Any:
        def handler(event: KeyPressEvent) -> None:
            obs = self.observation()
            if obs is None:
                self._say("the game has not started yet")
                return
            if obs.phase == "sing_count" and obs.to_act == obs.seat:
                self.submit(f"sing {number}")
            elif obs.phase == "keep" and obs.to_act == obs.seat:
                self.info.keep ^= {number - 1}
                self.app.invalidate()
            else:
                self._play(number - 1)

        return handler

    def _play(self, index: int) -> None:
        obs = self.observation()
        if obs is None:
            return
        if index >= len(obs.hand):
            self._say(f"you have {len(obs.hand)} cards")
            return
        card = obs.hand[index][1]
        if card is None:
            self._say("you cannot see that card yet (Fortial)")
            return
        self.info.selected = 0
        self.submit(f"play {card}")

    def _word(self, key: str, word: str | None) -> Any:
        def handler(event: KeyPressEvent) -> None:
            obs = self.observation()
            text = word
            if obs is not None and key == "j":
                text = "agree" if obs.phase == "sing_agree" else "accept"
            if obs is not None and key == "c":
                text = "refuse" if obs.phase == "sing_agree" else "fold"
            self.submit(text or "")

        return handler

    def _exit(self) -> None:
        self.quit_requested = True
        self.finished.set()
        if self.app.is_running:
            self.app.exit()


def _why_not(text: str, obs: TrutObservation) -> str:
    """One line saying why an action is not possible now."""
    if text == "trut":
        if obs.trut is not None:
            return "you cannot Trut: there is already a Trut this hand (T9)"
        return "you can Trut only on your turn to play, before your card (T9)"
    if text in ("accept", "fold"):
        if obs.trut is not None and obs.trut.kind == "chanson":
            return "no fold under la Chanson: the hand is an accepted Trut (T19)"
        return "there is no Trut to answer now"
    if text.startswith("play"):
        return f"you cannot play now ({obs.phase}): " + {
            "answer": "answer the Trut with j or c",
            "fortial": "t to Trut or p to pass",
            "sing_ask": "s to sing or p to pass",
            "sing_agree": "j to agree or c to refuse",
        }.get(obs.phase, "wait")
    if text == "pass":
        return "nothing to pass now"
    if text.startswith("sing"):
        return "there is no Chanson to sing now"
    return f"'{text}' is not possible now"


async def play_with_ui(
    start: Callable[[Hooks], Awaitable[SeatResult]],
    ui: TrutApp,
    transcript: Path | None = None,
) -> SeatResult | None:
    """Run a seat process (``host`` or ``join``) with the screen; None if the person quit."""
    commands: asyncio.Queue[Any] = asyncio.Queue()
    ui.lobby_commands = commands

    def saved(path: Path) -> None:
        ui.info.transcript = str(path)
        ui.app.invalidate()

    hooks = Hooks(
        on_runtime=ui.attach,
        on_lobby=ui.set_lobby,
        commands=commands,
        transcript=transcript,
        on_saved=saved,
    )
    game = asyncio.create_task(start(hooks))
    screen = asyncio.create_task(ui.app.run_async())
    done, _ = await asyncio.wait([game, screen], return_when=asyncio.FIRST_COMPLETED)
    if game not in done and ui.info.status == "over":
        if ui.runtime is not None:  # quit on the end screen: stop helping the others
            ui.runtime.stop_lingering()
        return await game
    if game not in done:  # the person quit during the game
        game.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await game
        return None
    result = game.result()
    ui.info.status = "over"
    ui.app.invalidate()
    await screen
    return result


def _with_names(line: str, names: list[str]) -> str:
    """Narration says "seat 2"; the screen says the player's name."""

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) else match.group(0)

    return re.sub(r"\bseat (\d+)\b(?![+\d])", name, line)
