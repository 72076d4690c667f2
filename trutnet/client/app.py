"""The terminal client: a full-screen prompt-toolkit application for one seat.

It shows the lobby, then the table (:mod:`trutnet.client.view`), and turns keys into
the seat's decisions, which the peer runtime signs and sends. A key that does
nothing now says why in one line. Resizing is handled by prompt-toolkit: the screen
is redrawn from the current state at every size, down to 80x24.

Between hands the last hand's tricks and result stay on screen until the person
presses Enter (or for a few seconds); a new hand clears the last hand's messages.
Quitting mid-game (q or Ctrl-C, then y) prints where the seat's files are and the
command that brings the seat back.

:class:`WatchApp` is the same frame for a spectator (``trutnet watch``): the table as
everyone sees it, no keys for actions, and q or Ctrl-C leaves at once (there is no
seat to abandon). The players' screens list the spectators.
"""

from __future__ import annotations

import asyncio
import dataclasses
import shlex
import sys
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

from trutnet.client.narration import Speaker, hand_result, narrate, plural
from trutnet.client.view import (
    HELP,
    WATCH_HELP,
    HandSummary,
    TableInfo,
    end_lines,
    lobby_lines,
    my_turn,
    plain,
    table_lines,
    watch_wait_lines,
)
from trutnet.crypto.identity import fingerprint
from trutnet.engine.cards import parse_card
from trutnet.engine.games.trut.actions import Deal, SingCount
from trutnet.engine.games.trut.observation import TrutObservation
from trutnet.net.tasks import stop_tasks
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

REPLACED = "a newcomer took your seat (you stalled): you follow the game"  # not an error
SUMMARY_SECONDS = 5.0  # how long a finished hand stays on screen unless Enter is pressed

# Automatic steps (nobody decides: each seat's program writes them), as people say them.
STEPS = {
    "open": "Opening the table",
    "keys": "Exchanging keys",
    "commit": "Drawing for Donneur",
    "reveal": "Drawing for Donneur",
    "shuffle": "Shuffling",
    "checkpoint": "Closing the hand",
    "result": "Signing the result",
}


def share_step(state: Any) -> str:
    """Which of Trut's share rounds the table runs, from the action before it: the deal
    (T4), la Chanson's cards (T19), or the Fortial opponents' cards (T15)."""
    history = state.history() if state is not None else []
    last = history[-1] if history else None
    if last is None or isinstance(last, Deal):
        return "Dealing"
    if isinstance(last, SingCount):
        return "Dealing la Chanson's cards"
    return "Dealing the cards held back for the Fortial"


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
        self._tricks: list[tuple[list[tuple[int, Any]], str]] = []  # this hand's, so far
        self._score: tuple[list[int], list[int]] | None = None  # tokens before this hand
        self._summary_until = 0.0
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
                self.info.message = REPLACED
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
        if peer is None:
            return
        replica = peer.replica
        info = self.info
        info.me = peer.seat
        info.names = list(replica.names)
        info.fingerprints = [fingerprint(k) for k in replica.seats]
        if runtime is not None:
            info.watchers = [(w.name, w.fingerprint) for w in runtime.watchers.listed()]
            info.me_fp = fingerprint(self.seat.identity.public)
        state = replica.state
        if state is None:
            return
        # A resumed seat reads the whole game at once; a spectator, while it catches up.
        catching_up = self._events_seen == 0 or self._behind()
        for event in state.events[self._events_seen :]:
            info.log.extend(narrate(event, state, show_hands=False, names=info.names))
            self._follow(event, state, catching_up)
        self._events_seen = len(state.events)
        info.log = info.log[-50:]
        counts = [e.type for e in replica.log.entries]
        info.shuffles_verified = counts.count("shuffle")
        info.reveals_verified = sum(  # plays: decisions that carry the player's share
            e.type == "act" and "shares" in e.body for e in replica.log.entries
        )
        if replica.halted is not None:
            info.blame = str(replica.halted)
        since = runtime._last_progress if runtime is not None else time.monotonic()
        info.waiting_seconds = time.monotonic() - since
        info.step = automatic_step(replica, info.me, info.names)
        if info.last_hand is not None and time.monotonic() > self._summary_until:
            info.last_hand = None
        if replica.phase == "done":
            info.status = "over"

    def _behind(self) -> bool:
        """True while this screen's replica is still reading the table's past."""
        return False

    def _follow(self, event: dict[str, Any], state: Any, catching_up: bool) -> None:
        """Keep what the screen shows between events: this hand's tricks, the last
        hand's result, the score table."""
        info = self.info
        kind = event["event"]
        if kind == "deal":
            self._tricks = []
            if info.message != REPLACED:  # the last hand's errors stay with the last hand
                info.message = ""
            info.keep = set()
            info.selected = 0
            if self._score is None:
                self._score = ([0] * len(state.teams), [0] * len(state.teams))
        elif kind == "trick":
            if event["patte"]:
                taker = "patté"
            elif event["by_sum"]:
                taker = self._team(state.teams[event["team"]]) + " (on the sum)"
            else:
                taker = "you" if event["winner"] == info.me else info.names[event["winner"]]
            cards = [(seat, parse_card(card)) for seat, card in event["cards"]]
            self._tricks.append((cards, taker))
        elif kind == "hand_end":
            before = self._score or ([0] * len(state.teams), [0] * len(state.teams))
            self._score = (list(event["longs"]), list(event["petits"]))
            outcome = self._outcome(event, state)
            scores = (list(event["longs"]), list(event["petits"]))
            gain = self._gain(before, event, state)
            info.history.append((event["hand"], self._short(event, state), *scores))
            if not catching_up:
                info.last_hand = HandSummary(event["hand"], self._tricks, outcome, gain)
                self._summary_until = time.monotonic() + SUMMARY_SECONDS
            self._tricks = []

    def _team(self, seats: Any) -> str:
        return " & ".join("You" if s == self.info.me else self.info.names[s] for s in seats)

    def _outcome(self, event: dict[str, Any], state: Any) -> str:
        """How the hand ended, with "You" for this seat: ``You & Bot 2 win by fold``."""
        text = hand_result(event, Speaker(state, self.info.names, me=self.info.me))
        return text.split(" [")[0] if event["result"] in ("fold", "won") else text

    def _short(self, event: dict[str, Any], state: Any) -> str:
        """How the hand ended, for the end screen's table: the how first, then who
        (a long name is cut, never the how)."""
        team = event["team"]
        who = "" if team is None else self._team(state.teams[team])
        return {
            "won": f"won by {who}",
            "fold": f"won by fold: {who}",
            "pourrie": "pourrie: nobody scores",
            "void": "void: nobody scores",
            "fortial_pass": "Fortial passed: opponents score",
        }.get(event["result"], event["result"])

    def _gain(self, before: tuple[list[int], list[int]], event: dict[str, Any], state: Any) -> str:
        """What the hand scored: ``+1 Long``, ``Bot 1 +1 Petit`` (another team)."""
        gains = []
        for team in range(len(state.teams)):
            longs = event["longs"][team] - before[0][team]
            petits = event["petits"][team] - before[1][team]
            if longs > 0:
                won = "+" + plural(longs, "Long")
            elif petits > 0 and not any(
                event["longs"][t] > before[0][t] for t in range(len(state.teams))
            ):
                won = "+" + plural(petits, "Petit")
            else:
                continue
            same = event["team"] == team
            gains.append(won if same else f"{self._team(state.teams[team])} {won}")
        return ", ".join(gains)

    def lines(self) -> list[Any]:
        self._refresh()
        if self.help:
            return [[("", line)] for line in HELP.splitlines()]
        obs = self.observation()
        if obs is None:
            return lobby_lines(self.info, self.table_name, self.players)
        if obs.phase == "over" and self.info.last_hand is None:
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
        if self.info.step:
            self._say(f"not your turn: {self.info.step}…")
            return False
        if obs.to_act != obs.seat:
            if obs.to_act is None or obs.to_act < 0:
                self._say("not your turn: the cards are being dealt")
            else:
                self._say(f"not your turn: waiting for {self.info.names[obs.to_act]}")
            return False
        if not my_turn(obs, self.info):
            self._say("not your turn: your cards are being dealt")
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
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            if self.info.confirm_quit and event.key_sequence[0].key == "c-c":
                self._exit()  # Ctrl-C twice: the person means it
                return
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

        @kb.add("up")
        @kb.add("pageup")
        def _up(event: KeyPressEvent) -> None:
            step = 10 if event.key_sequence[0].key == "pageup" else 1
            self.info.end_scroll += step  # the end screen's hands (clamped when drawn)
            self.app.invalidate()

        @kb.add("down")
        @kb.add("pagedown")
        def _down(event: KeyPressEvent) -> None:
            step = 10 if event.key_sequence[0].key == "pagedown" else 1
            self.info.end_scroll = max(0, self.info.end_scroll - step)
            self.app.invalidate()

        @kb.add(" ")
        def _space(event: KeyPressEvent) -> None:
            self.dismiss()

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
            if self.dismiss():
                return
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

    def dismiss(self) -> bool:
        """Leave the last hand's result (True if it was on screen): a key pressed then
        only shows the new hand, so nobody plays a card they have not seen."""
        if self.info.last_hand is None:
            return False
        self.info.last_hand = None
        self.app.invalidate()
        return True

    def _number(self, number: int) -> Any:
        def handler(event: KeyPressEvent) -> None:
            if self.dismiss():
                return
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
            self._say(f"you have {plural(len(obs.hand), 'card')}")
            return
        card = obs.hand[index][1]
        if card is None:
            self._say("you cannot see that card yet (Fortial)")
            return
        self.info.selected = 0
        self.submit(f"play {card}")

    def _word(self, key: str, word: str | None) -> Any:
        def handler(event: KeyPressEvent) -> None:
            if self.dismiss():
                return
            obs = self.observation()
            text = word
            if obs is not None and key == "j":
                text = "agree" if obs.phase == "sing_agree" else "accept"
            if obs is not None and key == "c":
                text = "refuse" if obs.phase == "sing_agree" else "fold"
            self.submit(text or "")

        return handler

    def seat_folder(self) -> Path | None:
        """Where this seat's files are (its identity, secrets and log), if it has any."""
        store = self.seat.store
        return None if store is None else Path(store.directory).resolve()

    def left_message(self) -> str:
        """What to print when the person leaves mid-game: where the seat is, and how to
        come back to it."""
        folder = self.seat_folder()
        peer = self.seat.peer
        if peer is None or peer.replica.phase == "open" or folder is None:
            return "You left before the game started."
        lines = ["You left the table mid-game. Your seat's files are in:", f"  {folder}"]
        runtime = self.runtime
        bots = [s for s in runtime.seats[1:] if s.bot is not None] if runtime else []
        lines += [
            "To come back to this game (as long as the others are still playing):",
            f"  trutnet join --resume --store {shlex.quote(str(folder))}",
        ]
        if bots:
            them = "it" if len(bots) == 1 else "them"
            lines.append(
                f"{'The bot' if len(bots) == 1 else f'The {len(bots)} bots'} seated by this"
                f" program ({', '.join(s.name for s in bots)}) stopped with it (a bot's key"
                f" is not kept): the others wait for {them}, then a newcomer they accept"
                f" takes the seat or the game is abandoned (docs/protocol.md 7.7)."
            )
        return "\n".join(lines)

    def _exit(self) -> None:
        self.quit_requested = True
        self.finished.set()
        if self.app.is_running:
            self.app.exit()


def public_observation(state: Any) -> TrutObservation:
    """What everyone at the table sees: a seat's observation without the seat, its hand
    or its choices (a spectator's replica knows no card in any hand anyway)."""
    return dataclasses.replace(state.observation(0), seat=-1, team=-1, hand=(), legal=())


class WatchApp(TrutApp):
    """The screen of a spectator: the public view, no keys for actions; q or Ctrl-C
    stops watching at once."""

    def __init__(self, table_name: str, input: Any = None, output: Any = None) -> None:
        super().__init__(table_name, 0, input, output)

    def observation(self) -> TrutObservation | None:
        peer = self.seat.peer
        if peer is None or peer.replica.state is None or peer.replica.phase == "open":
            return None
        return public_observation(peer.replica.state)

    def _behind(self) -> bool:
        runtime = self.runtime
        return runtime is not None and not getattr(runtime, "caught_up", True)

    def _refresh(self) -> None:
        super()._refresh()
        peer = self.seat.peer
        if peer is not None and self._behind() and peer.replica.state is not None:
            entries = len(peer.replica.log)
            self.info.message = f"Catching up with the table's log: {entries} entries read…"
        elif self.info.message.startswith("Catching up"):
            self.info.message = ""

    def lines(self) -> list[Any]:
        if self.help:
            return [[("", line)] for line in WATCH_HELP.splitlines()]
        self._refresh()
        obs = self.observation()
        if obs is None:
            return watch_wait_lines(self.info, self.table_name)
        if obs.phase == "over" and self.info.last_hand is None:
            return end_lines(obs, self.info)
        return table_lines(obs, self.info)

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("c-c")
        def _quit(event: KeyPressEvent) -> None:
            self._exit()

        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            self.help = not self.help
            self.app.invalidate()

        @kb.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            self.help = False
            self.app.invalidate()

        @kb.add("enter")
        @kb.add(" ")
        def _continue(event: KeyPressEvent) -> None:
            self.dismiss()

        @kb.add("up")
        @kb.add("pageup")
        def _up(event: KeyPressEvent) -> None:
            self.info.end_scroll += 10 if event.key_sequence[0].key == "pageup" else 1
            self.app.invalidate()

        @kb.add("down")
        @kb.add("pagedown")
        def _down(event: KeyPressEvent) -> None:
            step = 10 if event.key_sequence[0].key == "pagedown" else 1
            self.info.end_scroll = max(0, self.info.end_scroll - step)
            self.app.invalidate()

        return kb

    def left_message(self) -> str:
        return "You stopped watching; the game goes on without you."


def automatic_step(replica: Any, me: int | None, names: list[str]) -> str:
    """The automatic step the table waits for, and whose program writes it:
    ``Shuffling (Bot 1)``; empty when a seat has a decision to make (or at the end)."""
    try:
        expected = replica.expected()
    except AssertionError:  # a state the replica cannot name a writer for
        return ""
    if expected is None or expected[1][0] == "act":
        return ""
    seat, (kind, *_) = expected
    if kind == "shares" and replica.shares is not None:
        label = share_step(replica.state)
    elif kind == "checkpoint" and replica.state is not None and replica.state.phase == "over":
        label = "Closing the game"
    else:
        label = STEPS.get(kind, "Waiting")
    who = "you" if seat == me else (names[seat] if 0 <= seat < len(names) else f"seat {seat}")
    return f"{label} ({who})"


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
        await stop_tasks(game)
        print(ui.left_message(), file=sys.stderr)
        return None
    result = game.result()
    ui.info.status = "over"
    ui.app.invalidate()
    await screen
    return result
