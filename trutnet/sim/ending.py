"""The end of a game in a simulated table (``docs/protocol.md`` 9.2): what the runtime's
:class:`~trutnet.runtime.table_end.TableEnd` does, redone without asyncio, over the
protocol's own :class:`~trutnet.protocol.done.DoneBoard`.

* A seated process whose game is over (ended, or stopped by a blame) says ``done``: its
  seat's signed entry naming its head, kept by the broker (retained) and sent to
  every process.
* It then lingers, answering syncs (and subscribing to the ``done`` topics again, in
  case a copy was lost), until every other seat said ``done`` at that head (or is not
  waited for: the seat that stopped the table, the one the game ended without) and
  nobody behind its log asked for it in the last :data:`CATCHING_UP` seconds, or
  :data:`LINGER` seconds have passed on its own clock; then it leaves: it answers
  nothing any more.
* A process whose every other seat said ``done`` at a head its log lacks (it was down
  while the game ended, and came back after they left) writes nothing more, and stops
  once nothing came for :data:`FOLLOW` seconds: it ended while the process was away
  (the runtime's ``over_elsewhere``, what the screen says then).
* A process that starts again, or connects again after a partition or a broker
  restart, gets every ``done`` the broker kept.
* The spectator says no ``done`` and leaves as soon as its game is over (``trutnet
  watch``: it serves nobody).
* A process back from a crash that ends away although a seat with the end stayed
  :data:`SERVED` seconds past its return, or while one with the end is still there,
  is noted (:attr:`SimEnd.unserved`, the outcome's ``left_behind``): that seat should
  have told it.

So a process that comes back late finds the table gone, as it would at a real table,
instead of a table that waits for it for ever; the run must still end within its
bound. The messages travel on the simulated network with its delays, loss, duplicates
and partitions, drawn from a generator of their own (so a table's log and its faults
are those of the same seed where nobody leaves).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from trutnet.protocol.done import DoneBoard, done_message, finished
from trutnet.protocol.envelope import MessageError
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.options import Options
from trutnet.runtime.sync_server import CATCHING_UP  # lingers after one behind asked
from trutnet.sim.records import Node

if TYPE_CHECKING:
    from trutnet.sim.network import Sim

TOPIC = "done"
LINGER = Options().linger  # seconds at most a finished process helps the others finish
RETAINED_DELAY = 0.01  # what the broker kept reaches a process that connects
FOLLOW = Options().follow_timeout  # a process the game ended without stops after this
SERVED = 2.0  # seconds a process back from a crash takes to ask for the end, and get it


class SimEnd:
    """Every process's end of the game in one simulated table."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.rng = random.Random(f"sim/{sim.seed}/done")
        self.retained: dict[int, bytes] = {}  # node -> its last done (the broker keeps it)
        self.boards: dict[tuple[int, int], DoneBoard] = {}  # (node, life) -> its board
        self.said: dict[int, float] = {}  # node -> when it said done, this life
        self.reconnected: dict[int, float] = {}  # node -> the end of the last cut it saw
        self.unserved: list[str] = []  # processes that ended away beside one with the end
        self.back: dict[int, float] = {}  # node -> when it last started again
        self.left_at: dict[int, float] = {}  # node -> when it left

    def board(self, node: Node) -> DoneBoard:
        key = (self.sim.nodes.index(node), node.life)
        if key not in self.boards:
            self.boards[key] = DoneBoard(self.sim.table_id)
        return self.boards[key]

    @staticmethod
    def local(node: Node) -> set[int]:
        """The seat ``node`` plays, if it holds one (not a spectator, a newcomer that
        follows, a replaced seat)."""
        peer = node.peer
        return {peer.seat} if peer is not None and peer.seated() else set()

    def moved(self, node: Node) -> None:
        """``node``'s replica changed: once its game is over, its seat says ``done``."""
        index = self.sim.nodes.index(node)
        if index in self.said or not finished(node.replica) or not self.local(node):
            return
        peer = node.peer
        assert peer is not None
        payload = done_message(
            self.sim.table_id, node.replica.log.head, [(peer.identity, peer.seat)]
        )
        self.said[index] = self.sim.now
        self.retained[index] = payload
        self.sim.counts["done_said"] += 1
        self.sim.publish(node, TOPIC, payload, rng=self.rng, kept=True)

    def restarted(self, node: Node) -> None:
        """``node`` starts again: it has not said ``done`` in this life, and the broker
        gives it every ``done`` it kept."""
        index = self.sim.nodes.index(node)
        self.said.pop(index, None)
        self.back[index] = self.sim.now
        for sender, payload in sorted(self.retained.items()):
            if sender != index:
                self.sim.at(RETAINED_DELAY, TOPIC, index, payload)

    def receive(self, node: Node, payload: object) -> bool:
        """Another process's ``done``; a hostile one is refused and counted."""
        if not isinstance(payload, bytes) or not payload:
            return False
        try:
            self.board(node).read(payload, node.replica, self.sim.now)
        except (UntrustedInput, MessageError):
            self.sim.counts["done_refused"] += 1
        return False  # the log did not move

    def tick(self, node: Node) -> bool:
        """``node`` leaves when its lingering is over, or when its game ended while it
        was away; True if it left."""
        sim, replica, local = self.sim, node.replica, self.local(node)
        board = self.board(node)
        index = sim.nodes.index(node)
        if sim.now >= sim.cut_until > self.reconnected.get(index, float("-inf")):
            self.reconnected[index] = sim.cut_until  # back from a partition or a broker
            self._resubscribe(node, board)  # down: it subscribes again, and reads them
        if finished(replica) and node.spectator:
            return self._leave(node, "left")  # as ``trutnet watch``: it serves nobody
        if finished(replica):  # a replaced seat stays: it serves nobody
            if index in self.said:
                self._resubscribe(node, board)
                lingered = sim.elapsed(node, self.said[index]) >= LINGER
                asked = sim.elapsed(node, node.behind_asked) < CATCHING_UP
                if lingered or not (board.waiting_for(replica, local) or asked):
                    return self._leave(node, "left")
            return False
        since = self.board(node).stranded_since(replica, local, sim.now)
        if since is not None and sim.elapsed(node, max(node.last_progress, since)) >= FOLLOW:
            return self._leave(node, "away")  # it writes nothing, and nothing came since
        return False

    def over_elsewhere(self, node: Node) -> bool:
        """Every other seat said ``done`` at a head ``node``'s log lacks: it writes
        nothing more (the runtime's ``_write``), and still takes what comes."""
        return self.board(node).over_elsewhere(node.replica, self.local(node), self.sim.now)

    def stranded(self, node: Node) -> bool:
        """``node`` can learn nothing more of its game (the board's, as the runtime's
        ``stranded_why`` reads it)."""
        return self.board(node).stranded(node.replica, self.local(node), self.sim.now)

    def _resubscribe(self, node: Node, board: DoneBoard) -> None:
        """A lingering process subscribes to the ``done`` topics again, in case a copy
        was lost: the broker gives it what it kept (not across a partition)."""
        sim, index = self.sim, self.sim.nodes.index(node)
        apart = sim.now < sim.cut_until
        for sender, payload in sorted(self.retained.items()):
            if sender != index and not (apart and sim.groups[sender] != sim.groups[index]):
                self.receive(node, payload)

    def _leave(self, node: Node, why: str) -> bool:
        """``node`` stops: ``left`` once its game is over (its log is still the table's,
        and checked as such), ``away`` when it ended while the process was away (noted
        if a process that had the end was still there: it could have been told)."""
        sim = self.sim
        index = sim.nodes.index(node)
        if why == "away":
            there = [n for n in sim.nodes if n.up and n is not node]
            told = [n.name for n in there if finished(n.replica)]
            if told:
                self.unserved.append(f"{node.name} (while {', '.join(told)} had the end)")
            # back from a crash while a process with the end stayed long enough to
            # answer its sync requests: it should have read the end from it
            back = self.back.get(index, float("inf")) + SERVED
            stayed = [
                n.name
                for i, n in enumerate(sim.nodes)
                if n.left == "left" and self.left_at.get(i, 0.0) >= back and finished(n.replica)
            ]
            if stayed:
                self.unserved.append(f"{node.name} (back while {', '.join(stayed)} had the end)")
        node.up, node.left = False, why
        self.left_at[index] = sim.now
        self.sim.counts[why] += 1
        return True
