"""What each simulated process's person would read (issue 26): the terminal client's
own screen model, run on the simulated replica, and its invariants.

The client draws its waiting line from :func:`~trutnet.client.table_lines.show_table`
(the table's state and health, as the runtime reads them) and
:func:`~trutnet.client.view.turn_line`; here both run on a simulated process, with a
stand-in for the runtime whose reading of the table is the simulation's (the ``done``
board of :mod:`trutnet.sim.ending`). Checked:

* after each step that changed a replica (:func:`check_screen`): a screen that says
  "your turn" belongs to a seat that can send that decision now (it holds its seat, the
  broker is up, the table waits for its decision, nothing stopped the game); a stopped
  table's screen says so in the waiting line's place, never a spinner; while the broker
  restarts, every screen of a game under way says that it is lost; a screen whose
  table has waited for a seat past the stall timeout says so (checked on each idle
  tick of the wait too);
* at the end (:func:`check_end_screens`): every process still there reads that the game
  is over, stopped or ended without it; none is left waiting on a table that is done.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trutnet.client.frontend import Frontend, NoFrontend, frontend_for
from trutnet.client.table_lines import game_frame, game_lines, show_table
from trutnet.client.view import SPINNER, TableInfo, my_turn, plain
from trutnet.protocol.entry_types import DECISIONS
from trutnet.protocol.replace import votes_needed
from trutnet.runtime.table_health import Connection, Stall
from trutnet.sim.invariants import Violation

if TYPE_CHECKING:
    from trutnet.sim.network import Sim
    from trutnet.sim.records import Node


BROKER = "mqtt://sim-broker"  # what a screen names the simulated broker


@dataclass
class Screen:
    """One process's screen, as the client would draw it now."""

    info: TableInfo
    frame: str  # abandoned, over, or table (:func:`game_lines`)
    text: str  # what it shows
    your_turn: bool  # the table's frame asks this seat to decide


class _Health:
    """The runtime's reading of the table, for :func:`show_table`, from the simulation:
    the broker lost while it restarts (every process's MQTT client sees its connection
    drop), the seat the table has waited for past the stall timeout (by this process's
    clock, as its votes count it; the offers and votes on it are not modelled), and the
    seats that said ``done`` at heads this log lacks."""

    def __init__(self, sim: Sim, node: Node) -> None:
        self.sim, self.node = sim, node

    def connection(self) -> Connection | None:
        """As the runtime's: the broker lost while a game is played here."""
        if not broker_down(self.sim) or self.node.replica.phase == "done":
            return None
        now = time.monotonic()  # (the screen's text counts from it: not checked)
        return Connection(BROKER, now, True, now + 60.0)

    def stall(self) -> Stall | None:
        """As the runtime's: the seat waited for past the stall timeout, in a game."""
        sim, node = self.sim, self.node
        replica = node.replica
        expected = replica.expected() if replica.phase != "done" else None
        if replica.state is None or expected is None:
            return None
        waited = sim.elapsed(node, node.last_progress)
        if not sim.ballots.policy.report(waited) or not replica.can_abandon(expected[0]):
            return None
        since = time.monotonic() - waited  # (the screen's text counts from it)
        return Stall(expected[0], since, None, False, [], {}, votes_needed(replica.n))

    def ended_elsewhere(self) -> list[int]:
        board = self.sim.end.board(self.node)
        return board.ended_elsewhere(self.node.replica, self.sim.now)

    def over_elsewhere(self) -> bool:
        return self.sim.end.over_elsewhere(self.node)


def _frontend(name: str, cache: dict[str, Frontend | None]) -> Frontend | None:
    if name not in cache:
        try:
            cache[name] = frontend_for(name)
        except NoFrontend:  # a game with no screen: nothing to model
            cache[name] = None
    return cache[name]


def screen_of(
    sim: Sim, node: Node, cache: dict[str, Frontend | None], drawn: bool = False
) -> Screen | None:
    """``node``'s screen now (a seat's, or the spectator's), or None before the game
    or for a game with no screen; ``drawn``: with its text (else only its frame)."""
    peer = node.peer
    if peer is None or peer.replica.state is None or node.dishonest:
        return None
    replica = peer.replica
    state = replica.state
    frontend = _frontend(state.game.name, cache)
    if frontend is None:
        return None
    if node.newcomer and not peer.seated():
        return None  # a newcomer that follows: a bot's process, with no screen
    # a seat's screen is drawn for the seat its process played (a replaced one too, as
    # the client does); the spectator's for no seat
    me = None if node.seat is None and not node.newcomer else peer.seat
    info = TableInfo(names=list(replica.names), fingerprints=[], me=me)
    show_table(info, replica, frontend, _Health(sim, node))
    obs = frontend.spectator_observation(state) if me is None else frontend.observation(state, me)
    if drawn:
        frame, lines = game_lines(frontend, obs, info)
        text = plain(lines)
    else:
        frame, text = game_frame(obs, info), ""
    your_turn = frame == "table" and me is not None and my_turn(frontend, obs, info)
    return Screen(info, frame, text, your_turn)


def broker_down(sim: Sim) -> bool:
    """Is the simulated broker restarting now (no process can reach it)?"""
    return sim.now < sim.broker_down_until


def _cannot_send(sim: Sim, node: Node) -> str:
    """Why ``node``'s seat cannot send a decision now; empty if it can."""
    peer = node.peer
    assert peer is not None
    replica = peer.replica
    if not peer.seated():
        return "it does not hold its seat"
    if broker_down(sim):
        return "the broker is down"
    if replica.halted is not None:
        return f"the table stopped ({replica.halted})"
    expected = replica.expected()
    if expected is None:
        return "the game is over"
    seat, kinds = expected
    if seat != peer.seat or not set(kinds) & set(DECISIONS):
        return f"the table waits for {'/'.join(kinds)} from seat {seat}"
    return ""


def _waiting(text: str) -> str:
    """The waiting line of a table's screen (the row under the hand), for a report."""
    rows = [row.strip() for row in text.splitlines() if row.strip()]
    return next((row for row in rows if row[:1] in f"▶⚠{SPINNER}"), rows[-1] if rows else "")


def check_screen(sim: Sim, node: Node, cache: dict[str, Frontend | None]) -> Violation | None:
    """The screen of ``node`` after a step that changed its replica (module docstring)."""
    screen = screen_of(sim, node, cache)
    if screen is None:
        return None
    if screen.your_turn and (why := _cannot_send(sim, node)):
        return Violation("screen", f"{node.name}'s screen asks it to decide: {why}")
    if node.replica.halted is not None and not screen.info.alert:
        return Violation("screen", f"{node.name}'s table stopped, its screen does not say so")
    if broker_down(sim) and node.replica.phase != "done" and not screen.info.alert:
        return Violation("screen", f"{node.name} lost the broker, its screen does not say so")
    stall = _Health(sim, node).stall()
    if stall is not None and not (screen.info.alert or screen.info.alert_next):
        said = f"{node.name} waits for seat {stall.seat} past the stall timeout"
        return Violation("screen", f"{said}, its screen does not say so")
    return None


def check_end_screens(sim: Sim) -> Violation | None:
    """At the end of a run: every process still there (up, not left) reads that the
    game is over, stopped or ended without it (module docstring)."""
    cache: dict[str, Frontend | None] = {}
    for node in sim.nodes:
        if not node.up or node.left or node.gone or node.gave_up:
            continue
        screen = screen_of(sim, node, cache, drawn=True)
        if screen is None:
            continue
        if screen.frame == "table" and not screen.info.alert:
            said = _waiting(screen.text)
            return Violation("screen", f"the run ended, {node.name}'s screen says {said!r}")
    return None
