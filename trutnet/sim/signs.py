"""Signs in a simulated table (``docs/protocol.md`` 9.8): what the runtime's
:class:`~trutnet.runtime.table_signs.TableSigns` does, redone without asyncio, and the
invariant that nobody reads a sign it was not shown.

Each process has a :class:`~trutnet.protocol.signs.SignBoard` for its life (a process
that restarts begins a new one: signs are not synced, 9.8); its bot signs once a
period, at the first head where it may and has something to tell; each watcher draws
on a sign, and a signer shows its card to each seat that caught it. The messages
travel on the simulated network with its delays, loss, duplicates, reordering and
partitions, drawn from a generator of their own (so a table's log, its faults and
their numbers are those of the same seed without signs), and are not shrunk.

The bots do not read the signs here: a table's log then depends on the seed alone as
before, and what is checked is the signs' own promise. **No sign out of sight**: after
every message a process takes in, each seat's board can read a sign's card only if
the seat is one of the sign's partners or caught it, and then reads the card its
signer chose; the spectator's board holds no key to read any.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from trutnet.bots.signs import bot_sign
from trutnet.crypto import SeededRandom
from trutnet.protocol.signs import CATCH_TYPE, SIGN_TYPE, SignBoard, SignNews, sign_id
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.sim.invariants import Violation
from trutnet.sim.records import Node, SimFailure

if TYPE_CHECKING:
    from trutnet.sim.network import Sim

TOPIC = "signs"


class SimSigns:
    """Every process's signs in one simulated table."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.rng = random.Random(f"sim/{sim.seed}/signs")  # their network's faults
        self.boards: dict[tuple[int, int], SignBoard] = {}  # (node, life) -> its board
        self.mine: dict[bytes, tuple[int, int]] = {}  # a sign -> (r, index), its signer's
        self.chosen: dict[bytes, str] = {}  # a sign -> the card its signer chose
        self.caught: set[tuple[bytes, int]] = set()  # (sign, seat) a draw caught
        self.signed: set[tuple[int, int, int]] = set()  # (node, life, period) a bot signed
        # what a board read of a sign, with the shown card it read it from: a read is
        # only redone when the board holds another (opening a card is costly)
        self.read: dict[tuple[int, bytes], tuple[object, str | None]] = {}

    def _board(self, node: Node) -> SignBoard | None:
        replica = node.replica
        if node.peer is None or replica.state is None or replica.phase == "open":
            return None
        key = (self.sim.nodes.index(node), node.life)
        if key not in self.boards:
            # each proof checked once between the processes, as the log's (network.py)
            self.boards[key] = SignBoard(replica.table_id, replica.context, self.sim.checked)
        return self.boards[key]

    @staticmethod
    def _keys(node: Node) -> tuple[dict[int, Any], list[bytes]]:
        replica = node.replica
        return dict(enumerate(replica.elgamal)), list(replica.seats)

    def _random(self, node: Node) -> SeededRandom:
        return SeededRandom(
            f"sim/{self.sim.seed}/signs/{node.name}/{node.life}/{self.rng.random()}"
        )

    # ------------------------------------------------------------ the table's steps

    def moved(self, node: Node) -> None:
        """``node``'s log has a new head: what may be signed there; its bot signs."""
        board = self._board(node)
        if board is None:
            return
        replica = node.replica
        self._tell(node, board, board.note_head(replica.log.head, replica.n, replica.state.signs))
        peer = node.peer
        if node.bot is None or peer is None or not peer.seated():
            return
        rules = board.may_sign(replica.log.head, peer.seat)
        signed = (self.sim.nodes.index(node), node.life, rules.period if rules else -1)
        if rules is None or signed in self.signed:
            return
        card = bot_sign(node.bot, replica.state, peer.seat, rules)
        if card is None:
            return
        self.signed.add(signed)
        index = rules.menu.cards.index(card)
        wire, r = board.make(
            node.identity,
            peer.seat,
            replica.log.head,
            index,
            self._random(node),
            self._keys(node)[0],
        )
        self.mine[sign_id(wire)] = (r, index)
        self.chosen[sign_id(wire)] = card
        self.sim.counts["signs_made"] += 1
        self._send(node, board, wire)

    def receive(self, node: Node, wire: Any) -> bool:
        """A sign message reaches ``node`` (False: no replica changed)."""
        board = self._board(node)
        if board is None:
            return False
        try:
            news = board.receive(wire, *self._keys(node))
        except UntrustedInput:
            self.sim.counts["signs_refused"] += 1
            return False
        self._tell(node, board, news)
        return False

    def _send(self, node: Node, board: SignBoard, wire: bytes) -> None:
        """Publish ``wire`` to the others (faults from this room's generator) and take
        it in at once."""
        self.sim.publish(node, TOPIC, wire, rng=self.rng)
        self._tell(node, board, board.receive(wire, *self._keys(node)))

    def _tell(self, node: Node, board: SignBoard, news: list[SignNews]) -> None:
        """This process's duties for each piece of news (a draw, a card shown to a
        catcher), then the invariant."""
        peer = node.peer
        for item in news:
            sign = item.sign
            if item.kind == CATCH_TYPE and item.caught and item.by is not None:
                self.caught.add((sign.id, item.by))
            if peer is None or not peer.seated():
                continue
            if item.kind == CATCH_TYPE and item.caught and item.by == peer.seat:
                self.sim.counts["signs_caught"] += 1  # once: by the catcher
            if item.kind == SIGN_TYPE and peer.seat in sign.rules.watchers:
                wire = board.catch(node.identity, peer.elgamal, peer.seat, sign, self._random(node))
                self._send(node, board, wire)
            mine = self.mine.get(sign.id)
            if item.kind == CATCH_TYPE and item.caught and mine and sign.seat == peer.seat:
                publics = self._keys(node)[0]
                by = item.by
                assert by is not None
                r, index = mine
                wire = board.show_to(
                    node.identity, sign, r, index, by, publics[by], self._random(node)
                )
                self._send(node, board, wire)
        self.check(node, board)

    def _read(self, board: SignBoard, sign: Any, seat: int, key: Any) -> str | None:
        """``board.read``, redone only when the card shown to ``seat`` changed."""
        shown = sign.shown.get(seat)
        known = self.read.get((id(board), sign.id))
        if known is not None and known[0] is shown:
            return known[1]
        card = board.read(sign, seat, key)
        self.read[(id(board), sign.id)] = (shown, card)
        return card

    def check(self, node: Node, board: SignBoard) -> None:
        """No sign out of sight (see the module's docstring)."""
        peer = node.peer
        if peer is None or not peer.seated():
            return
        for sign in list(board.signs.values()):
            card = self._read(board, sign, peer.seat, peer.elgamal)
            if card is None or sign.seat == peer.seat:
                continue
            may = peer.seat in sign.rules.partners or (sign.id, peer.seat) in self.caught
            if not may or card != self.chosen.get(sign.id, card):
                raise SimFailure(
                    Violation(
                        "leak",
                        f"{node.name} reads seat {sign.seat}'s sign as {card}"
                        + ("" if may else ", not shown to it"),
                    )
                )
