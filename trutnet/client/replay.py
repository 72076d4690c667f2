"""``trutnet replay FILE``: a saved game, move by move, on a spectator's screen or on
the screen of the seat that played it here.

:func:`load_replay` reads a transcript as a spectator does (every signature, proof
and move checked, entry by entry) and keeps a :class:`Frame` after each event of the
game: the game's state then (a clone), the narration so far, what was verified so
far, and whether a round had just ended (its summary is a frame of its own). A
transcript that fails a check is replayed up to that entry, and every frame after it
is missing: the screen says where and why. As a spectator, nothing is shown that a
spectator could not see: the frames hold a replica with no key to any hand. With a
seat's view (:mod:`trutnet.seat_views`, kept when the game ended on this machine),
the frames hold that seat's replica (:class:`SeatReader`): its cards, and nothing more.

:class:`ReplayScreen` draws a frame in the client's own frame (the table, the log,
the verification line) with the replay's key bar at the bottom: ←/→ a move, ↑/↓ a
round, Home/End, ? the game's help, q leaves. :func:`frame_text` is one frame as
plain text, for ``--print``.
"""

from __future__ import annotations

import contextlib
import copy
import os
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from trutnet.client.blame_words import blame_said
from trutnet.client.frontend import Cue, Frontend, NoFrontend, frontend_for
from trutnet.client.sign_panel import sign_line
from trutnet.client.view import (
    Line,
    TableInfo,
    end_lines,
    fit,
    plain,
    table_lines,
    verified_counts,
)
from trutnet.crypto.identity import fingerprint
from trutnet.i18n import N_, _
from trutnet.protocol.envelope import MessageError
from trutnet.protocol.peer import TablePeer
from trutnet.protocol.signs import SignFeed
from trutnet.protocol.spectator import Spectator
from trutnet.protocol.table import Rejected
from trutnet.seat_views import SeatView

KEYS = N_(" ←/→ move  ↑/↓ {round}  Home/End  ? help  q quit")  # the game's word for a round
REPLAY_HELP = N_(
    " A saved game, checked again as it goes: {view}.\n"
    "\n"
    "   ← / →        the move before / after (also h / l, Space)\n"
    "   ↑ / ↓        the {round} before / after (also p / n)\n"
    "   Home / End   the first / the last move (also g / G)\n"
    "   ? or Esc     back from this help\n"
    "   q, Ctrl-C    leave the replay"
)
SEAT_VIEW = N_("as your seat saw it, with its cards and what it was shown")
SPECTATOR_VIEW = N_("as a spectator saw it: no hidden card")


@dataclass(frozen=True)
class Frame:
    """The game after one of its events, as a spectator saw it then."""

    state: Any  # a clone of the game's state
    log: int  # narration lines so far (of :attr:`Replay.log`)
    round: int  # the round it belongs to (0: the first)
    round_ends: bool  # the round had just ended: its summary
    verified: tuple[int, int, int, int]  # shuffles, reveals, openings, card searches
    # the front-end as it stood then: what it keeps of the events it followed (this
    # round's tricks, the last round's result, the score) is that frame's, not the end's
    frontend: Any = None


@dataclass
class Replay:
    """Every frame of a saved game, the narration, the players, and the first entry
    that failed a check (if any)."""

    frontend: Frontend
    names: list[str]
    fingerprints: list[str]
    frames: list[Frame] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    failure: str | None = None  # "entry 123: why", when the transcript does not verify
    entries: int = 0
    seat: int | None = None  # the seat whose view it is (None: a spectator's)

    def round_start(self, index: int, step: int) -> int:
        """The first frame of the round after (``step`` 1) or before (-1) the one of
        frame ``index`` (of its own round, going back from inside it)."""
        here = self.frames[index].round
        if step > 0:
            later = [i for i, f in enumerate(self.frames) if f.round > here]
            return later[0] if later else len(self.frames) - 1
        first = next(i for i, f in enumerate(self.frames) if f.round == here)
        if first < index:
            return first
        earlier = [i for i, f in enumerate(self.frames) if f.round == here - 1]
        return earlier[0] if earlier else 0


class SeatReader:
    """Reads a log as the seat of ``view`` saw it: a spectator until the ``open`` entry
    names the seat's key, then that seat's peer with the view's secrets (it shows the
    seat's cards as the log deals them, and signs nothing). A view whose ElGamal key is
    not the one the log gives the seat: :class:`ValueError`."""

    def __init__(self, table_id: bytes, view: SeatView) -> None:
        self.view = view
        self.opening = Spectator(table_id)
        self.peer: TablePeer | None = None

    @property
    def replica(self) -> Any:
        return self.peer.replica if self.peer is not None else self.opening.replica

    def receive(self, wire: bytes) -> None:
        view = self.view
        if self.peer is not None:
            self.peer.receive(wire)
        else:
            self.opening.receive(wire)
            seats = self.opening.replica.seats
            if not seats:
                return
            if view.seat >= len(seats):
                raise ValueError(_("the seat's view is of seat {seat}, which this table has not")
                                 .format(seat=view.seat))  # fmt: skip
            self.peer = TablePeer.reader(
                seats[view.seat], view.seat, view.table_id, view.secrets, os.urandom
            )
            for entry in self.opening.replica.log.entries:
                self.peer.receive(entry.wire)
        keys = self.peer.replica.elgamal
        if len(keys) > view.seat and bytes(keys[view.seat]) != bytes(self.peer.elgamal.public):
            raise ValueError(
                _("the seat's view does not belong to seat {seat} of this game (its key differs)")
                .format(seat=view.seat)
            )  # fmt: skip


def load_replay(
    table_id: bytes,
    wires: list[bytes],
    view: SeatView | None = None,
    signs: list[bytes] | None = None,
) -> Replay:
    """Read ``wires`` as a spectator, or as the seat of ``view`` (with its cards),
    keeping a frame after each event; the transcript's ``signs`` (9.8) are read at the
    head each names, in the log (a sign's card only where the view's seat was shown it).
    :class:`ValueError` when not even the table's opening can be read, no screen knows
    the game, or the view is not of this game."""
    spectator: Any = Spectator(table_id) if view is None else SeatReader(table_id, view)
    replay: Replay | None = None
    seen = 0
    told = SignFeed(table_id, signs or [])
    for number, wire in enumerate(wires):
        try:
            spectator.receive(wire)
        except (Rejected, MessageError) as exc:
            failure = _("entry {number}: {why}").format(number=number, why=exc)
            if replay is None:
                raise ValueError(failure) from exc
            replay.failure = failure
            break
        replica = spectator.replica
        state = replica.state
        if state is None:
            continue
        if replay is None:
            try:
                frontend = frontend_for(state.game.name)
            except NoFrontend as exc:
                raise ValueError(str(exc)) from exc
            replay = Replay(frontend, list(replica.names), [fingerprint(k) for k in replica.seats])
            replay.seat = None if view is None else view.seat
        replay.entries = number + 1
        frontend = replay.frontend
        replay.log += _signs_told(told, spectator, replay)
        events = frontend.events(state)
        if len(events) == seen:
            continue
        info = TableInfo(replay.names, replay.fingerprints, replay.seat)
        ends = False
        for event in events[seen:]:
            replay.log += frontend.narrate(event, state, names=replay.names)
            ends = ends or frontend.follow(event, state, info) is Cue.ROUND_ENDS
        seen = len(events)
        replay.frames.append(
            Frame(
                state.clone(),
                len(replay.log),
                state.round_number(),
                ends,
                verified_counts(replica),
                copy.deepcopy(frontend),
            )
        )
    if replay is None or not replay.frames:
        raise ValueError(_("the transcript holds no game to replay"))
    if replica_halted := spectator.replica.halted:
        why = blame_said(replica_halted.seat, replica_halted.rule, spectator.replica.names)
        stopped = _("the table stopped: {why}").format(why=why)
        replay.failure = replay.failure or stopped
    return replay


def _signs_told(feed: SignFeed, reader: Any, replay: Replay) -> list[str]:
    """The log's lines for the signs read at the reader's new head: a sign's card only
    where the view's seat was shown it."""
    peer = getattr(reader, "peer", None)
    lines = []
    for item in feed.step(reader.replica):
        card = None
        if feed.board is not None and peer is not None and replay.seat is not None:
            card = feed.board.read(item.sign, replay.seat, peer.elgamal)
        data = {"seat": item.sign.seat, "by": item.by, "card": card, "what": item.what}
        said = sign_line(data, replay.seat, replay.names, replay.frontend)
        if said is not None:
            lines.append(said[0])
    return lines


def frame_lines(replay: Replay, index: int) -> list[Line]:
    """Frame ``index`` in the client's frame, with the replay's key bar and where it is."""
    frame = replay.frames[index]
    frontend = frame.frontend or replay.frontend
    info = TableInfo(replay.names, replay.fingerprints, replay.seat, replaying=True)
    info.log = replay.log[: frame.log][-50:]
    shuffles, reveals, openings, searches = frame.verified
    info.shuffles_verified, info.reveals_verified = shuffles, reveals
    info.openings_verified, info.searches_verified = openings, searches
    last = index == len(replay.frames) - 1
    # a round's summary waits for → ; the game's last frame is its end: nothing follows
    info.paused = frame.round_ends and not (last and frame.state.is_terminal())
    if replay.failure is not None and last:
        info.blame = _("the transcript stops verifying here: {why}").format(why=replay.failure)
    if replay.seat is None:
        obs = frontend.spectator_observation(frame.state)
    else:  # the seat's own view: what its observation was then, its cards included
        obs = frame.state.observation(replay.seat)
    if obs.to_act is None and not info.paused:
        lines = end_lines(frontend, obs, info)
    else:
        lines = table_lines(frontend, obs, info)
    where = _("  move {n}/{total}").format(n=index + 1, total=len(replay.frames))
    keys = _(KEYS).format(round=_(frontend.round_word))
    lines[-1] = fit([("class:dim", keys), ("class:bold", where)])
    return lines


def replay_help(replay: Replay) -> list[Line]:
    """The replay's own help: what it shows, and its keys (not a table's: nothing is
    played here, and a saved game has no chat)."""
    view = _(SEAT_VIEW) if replay.seat is not None else _(SPECTATOR_VIEW)
    said = _(REPLAY_HELP).format(view=view, round=_(replay.frontend.round_word))
    return [[("", line)] for line in said.splitlines()]


def frame_text(replay: Replay, index: int) -> str:
    return plain(frame_lines(replay, index))


class ReplayScreen:
    """The replay on a full terminal screen; ``at``: the first frame shown."""

    def __init__(self, replay: Replay, at: int = 0, input: Any = None, output: Any = None) -> None:
        self.replay = replay
        self.index = max(0, min(at, len(replay.frames) - 1))
        self.help = False
        control = FormattedTextControl(self._fragments, focusable=True, show_cursor=False)
        self.app: Application[None] = Application(
            layout=Layout(HSplit([Window(control, wrap_lines=False)])),
            key_bindings=self._keys(),
            full_screen=True,
            input=input,
            output=output,
            mouse_support=False,
        )

    def move(self, step: int) -> None:
        self.index = max(0, min(self.index + step, len(self.replay.frames) - 1))

    def lines(self) -> list[Line]:
        if self.help:
            return replay_help(self.replay)
        return frame_lines(self.replay, self.index)

    def _fragments(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for line in self.lines():
            out += [*line, ("", "\n")]
        return out

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        last = len(self.replay.frames) - 1

        def on(*keys: str) -> Any:
            def bind(handler: Any) -> Any:
                for key in keys:
                    kb.add(key)(handler)
                return handler

            return bind

        @on("right", "l", " ")
        def _next(event: KeyPressEvent) -> None:
            self.move(1)

        @on("left", "h")
        def _back(event: KeyPressEvent) -> None:
            self.move(-1)

        @on("down", "n")
        def _next_round(event: KeyPressEvent) -> None:
            self.index = self.replay.round_start(self.index, 1)

        @on("up", "p")
        def _round_back(event: KeyPressEvent) -> None:
            self.index = self.replay.round_start(self.index, -1)

        @on("home", "g")
        def _start(event: KeyPressEvent) -> None:
            self.index = 0

        @on("end", "G")
        def _end(event: KeyPressEvent) -> None:
            self.index = last

        @on("?")
        def _help(event: KeyPressEvent) -> None:
            self.help = not self.help

        @on("escape")
        def _escape(event: KeyPressEvent) -> None:
            self.help = False

        @on("q", "c-c")
        def _quit(event: KeyPressEvent) -> None:
            with contextlib.suppress(Exception):
                event.app.exit()

        return kb
