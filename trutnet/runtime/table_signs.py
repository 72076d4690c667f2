"""The ``signs`` topic of one process's table runtime (``docs/protocol.md`` 9.8): the
person's signs (and its bots'), placed face down and shown to their partners; each
local seat's draws on the others' signs, and the cards it shows the seats that caught
its own; each local bot is shown the signs its seat may read, as they arrive.
:class:`~trutnet.protocol.signs.SignBoard` decides what counts; each piece of news is a
``sign`` event, saying the card only to a seat it was shown to.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trutnet.bots.signs import bot_heard, bot_sign
from trutnet.engine.hidden import Signs, Told
from trutnet.i18n import N_, _
from trutnet.net import topics
from trutnet.protocol.signs import (
    CATCH_TYPE,
    SHOW_TYPE,
    SIGN_TYPE,
    SignBoard,
    SignFeed,
    SignNews,
    sign_id,
)
from trutnet.protocol.untrusted import UntrustedInput
from trutnet.runtime.events import SignSeen

if TYPE_CHECKING:
    from trutnet.runtime.local_seat import LocalSeat
    from trutnet.runtime.table_runtime import TableRuntime

log = logging.getLogger(__name__)
OFFLINE = N_("no sign now: no connection to the table; sign again once the broker is back")
NOT_NOW = N_("no sign now: you sign while you hold a card and no bet waits for your answer")
SHOW_WAIT = 10.0  # seconds a caught sign may go unshown before the log says so (9.8)
WITHHELD = "withheld"  # a ``sign`` event's ``what``: caught, not shown after SHOW_WAIT


class TableSigns:
    """The signs one table runtime's process reads and makes."""

    def __init__(
        self,
        table: TableRuntime,
        clock: Callable[[], float] = time.monotonic,
        show_wait: float = SHOW_WAIT,
    ) -> None:
        self.table = table
        self.clock, self.show_wait = clock, show_wait
        self._owed: dict[tuple[bytes, int], float] = {}  # (sign, catcher) -> caught when
        self.board: SignBoard | None = None
        self._mine: dict[bytes, tuple[int, int]] = {}  # a local seat's sign: (r, card)
        self._bots_signed: set[tuple[int, int]] = set()  # (seat, period) a bot signed in
        self._bots_read: set[tuple[bytes, int]] = set()  # (sign, seat) a local bot was shown
        self._kept: set[bytes] = set()  # the sign messages kept in the person's folder
        self._untold: list[Any] = []  # a resumed seat's signs, still to tell its screen
        self._tasks: set[asyncio.Task[Any]] = set()

    def adopt(self, feed: SignFeed) -> None:
        """A resumed seat's signs (9.8): the messages its folder kept, read again along
        its log as it was restored (:class:`~trutnet.protocol.signs.SignFeed`). Their
        board becomes this process's (the transcript keeps them all), and the signs of
        the latest period are told again: to the screen, and to the local bots."""
        board = feed.board
        if board is None:
            return
        self.board = board
        self._kept = set(board.wires())
        bots = {s.peer.seat for s in self.table.seats if s.bot is not None and s.peer is not None}
        signed = {(sign.seat, sign.rules.period) for sign in board.signs.values()}
        self._bots_signed |= {(seat, period) for seat, period in signed if seat in bots}
        latest = max((sign.rules.period for sign in board.signs.values()), default=None)
        self._untold = [s for s in board.signs.values() if s.rules.period == latest]
        for sign in self._untold:  # the bots at once, the screen once the table moves
            self._retell(sign, screen=False)

    def retell(self) -> None:
        """A resumed seat's signs of the latest period, to its screen (once it follows
        the runtime's events; at the latest when the table next moves)."""
        untold, self._untold = self._untold, []
        for sign in untold:
            self._retell(sign, screen=True)

    def _retell(self, sign: Any, screen: bool) -> None:
        """A restored sign's news, as this process first heard it: that it was made,
        its draws, and the cards shown to those that caught it; to the screen (the
        events), or to the local bots."""
        news = [SignNews(SIGN_TYPE, sign)]
        news += [SignNews(CATCH_TYPE, sign, by, caught) for by, caught in sign.caught.items()]
        news += [SignNews(SHOW_TYPE, sign, by) for by in sign.shown if by in sign.caught]
        for item in news:
            if screen:
                self.table.emit(self._event(item))
                continue
            for seat in self.table.seats:
                peer = seat.peer
                reads = item.kind != CATCH_TYPE and peer is not None and sign.seat != peer.seat
                if seat.bot is not None and reads and peer is not None and peer.seated():
                    self._bot_reads(seat, item)

    def _keep(self) -> None:
        """Every sign message newly accepted goes to the person's folder, for a resume."""
        store = self.table.seats[0].store
        if self.board is None or store is None:
            return
        for wire in self.board.wires():
            if wire not in self._kept:
                self._kept.add(wire)
                try:
                    store.append_sign(wire)
                except OSError as exc:  # the game goes on; a resume would miss it
                    log.warning("signs: cannot keep a sign message: %s", exc)

    def _ready(self) -> SignBoard | None:
        replica = self.table.replica
        if replica is None or replica.state is None or replica.phase == "open":
            return None
        if self.board is None:
            self.board = SignBoard(replica.table_id, replica.context)
        return self.board

    def _keys(self) -> tuple[dict[int, Any], list[bytes]]:
        replica = self.table.replica
        return dict(enumerate(replica.elgamal)), list(replica.seats)

    # ------------------------------------------------------------ the log and the net

    def moved(self) -> None:
        """The log has a new head: what each seat may sign there; the bots sign. Signs
        are beside the game: whatever goes wrong here is logged, and the table goes on."""
        try:
            board = self._ready()
            if board is None:
                return
            self.retell()
            replica = self.table.replica
            self._tell(board.note_head(replica.log.head, replica.n, replica.state.signs))
            self._withheld(board)
            for seat in self.table.seats:
                if seat.bot is not None and seat.peer is not None:
                    self._bot_signs(board, seat)
        except Exception:  # a game's or a bot's bug must not stop the log's intake
            log.exception("signs: could not follow the head %s", self.table.head().hex()[:16])

    def read(self, payload: bytes) -> None:
        """A message from the network; :class:`UntrustedInput` (the pump drops it) for
        one that may not count."""
        board = self._ready()
        if board is None:
            raise UntrustedInput("a sign before the table opened")
        self._tell(board.receive(payload, *self._keys()))

    def _send(self, wire: bytes) -> None:
        """Publish ``wire`` and take it in at once (the broker's echo is read once)."""
        link = self.table.link
        try:
            task = asyncio.get_running_loop().create_task(
                link.publish(topics.signs(self.table.table_id), wire, wait=30)
            )
        except RuntimeError:  # no loop: nothing is sent (an offline replay)
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        assert self.board is not None
        self._tell(self.board.receive(wire, *self._keys()))

    # ------------------------------------------------------------ this process's seats

    def may_sign(self) -> Signs | None:
        """What the person's seat may sign now (None: nothing now)."""
        board, peer = self._ready(), self.table.seats[0].peer
        if board is None or peer is None or not peer.seated():
            return None
        return board.may_sign(self.table.head(), peer.seat)

    def sign(self, card: str) -> str | None:
        """The person's sign ``card`` (a notation of the menu): None once it is sent,
        else why not (one line for the screen)."""
        if self.table.connection() is not None:  # it would reach nobody now
            return _(OFFLINE)
        rules = self.may_sign()
        if rules is None:
            return _(NOT_NOW)
        if card not in rules.menu.cards:
            return _("no such sign: {card}").format(card=card)
        self._make(self.table.seats[0], rules, rules.menu.cards.index(card))
        return None

    def _make(self, seat: LocalSeat, rules: Signs, index: int) -> None:
        assert self.board is not None and seat.peer is not None
        publics, _seats = self._keys()
        wire, r = self.board.make(
            seat.identity,
            seat.peer.seat,
            self.table.head(),
            index,
            os.urandom,
            publics,
        )
        self._mine[sign_id(wire)] = (r, index)
        self._send(wire)

    def _bot_signs(self, board: SignBoard, seat: LocalSeat) -> None:
        """A bot signs once a hand, at the first head where it may and has something to
        tell (:func:`bot_sign`)."""
        peer = seat.peer
        assert peer is not None
        rules = board.may_sign(self.table.head(), peer.seat)
        if rules is None or (peer.seat, rules.period) in self._bots_signed:
            return
        card = bot_sign(seat.bot, peer.replica.state, peer.seat, rules)
        if card is not None:  # None: nothing to tell yet (its cards are on their way)
            self._bots_signed.add((peer.seat, rules.period))
            self._make(seat, rules, rules.menu.cards.index(card))

    def _tell(self, news: list[SignNews]) -> None:
        """Each piece of news: a ``sign`` event, then this process's duties (a draw,
        a card shown to a catcher)."""
        assert self.board is not None
        publics, _seats = self._keys()
        if news:
            self._keep()
        for item in news:
            sign = item.sign
            self.table.emit(self._event(item))
            if item.kind == CATCH_TYPE and item.caught and item.by is not None:
                self._owed[(sign.id, item.by)] = self.clock()
            elif item.kind == SHOW_TYPE and item.by is not None:
                self._owed.pop((sign.id, item.by), None)
            for seat in self.table.seats:
                peer = seat.peer
                if peer is None or not peer.seated():
                    continue
                if seat.bot is not None and item.kind != CATCH_TYPE and sign.seat != peer.seat:
                    self._bot_reads(seat, item)
                if item.kind == SIGN_TYPE and peer.seat in sign.rules.watchers:
                    rng = os.urandom
                    self._send(self.board.catch(seat.identity, peer.elgamal, peer.seat, sign, rng))
                mine = self._mine.get(sign.id)
                if item.kind == CATCH_TYPE and item.caught and mine and sign.seat == peer.seat:
                    r, index = mine
                    wire = self.board.show_to(
                        seat.identity,
                        sign,
                        r,
                        index,
                        item.by,
                        publics[item.by],
                        os.urandom,
                    )
                    self._send(wire)

    def _withheld(self, board: SignBoard) -> None:
        """A sign caught and still not shown to its catcher ``show_wait`` seconds later:
        a ``sign`` event saying so, once (a fair program shows it at once; the signer
        may be offline; ``verify`` lists it too)."""
        now = self.clock()
        for (key, by), caught in list(self._owed.items()):
            sign = board.signs.get(key)
            if sign is None or by in sign.shown:
                del self._owed[(key, by)]
            elif now - caught >= self.show_wait:
                del self._owed[(key, by)]
                period = sign.rules.period
                self.table.emit(SignSeen(sign.seat, sign.seq, period, WITHHELD, by, None))

    def _bot_reads(self, seat: LocalSeat, item: SignNews) -> None:
        """A local bot is shown the sign ``item`` tells of, if its seat may read it (a
        partner at once, a catcher once shown); once each."""
        sign, peer = item.sign, seat.peer
        assert self.board is not None and peer is not None
        if (sign.id, peer.seat) in self._bots_read:
            return
        card = self.board.read(sign, peer.seat, peer.elgamal)
        if card is not None:
            self._bots_read.add((sign.id, peer.seat))
            bot_heard(seat.bot, Told(sign.seat, sign.rules.period, card))

    def _event(self, item: SignNews) -> SignSeen:
        """The news as this process's person may know it: the card only if shown."""
        sign, peer = item.sign, self.table.seats[0].peer
        card = None
        if peer is not None and peer.seated():
            if sign.id in self._mine and sign.seat == peer.seat:
                card = sign.rules.menu.cards[self._mine[sign.id][1]]
            elif self.board is not None:
                card = self.board.read(sign, peer.seat, peer.elgamal)
        return SignSeen(sign.seat, sign.seq, sign.rules.period, item.what, item.by, card)

    def wires(self) -> list[bytes]:
        """Every sign message accepted (for the transcript)."""
        return self.board.wires() if self.board is not None else []
