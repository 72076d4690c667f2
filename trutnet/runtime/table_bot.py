"""A joiner's bot (:class:`TableBot`): made at the seat's first decision, once the
table's ``open`` entry has said which game it plays; a table of another game than the
one asked for stops the seat (:class:`~trutnet.runtime.lobby_watch.WrongGame`).
"""

from __future__ import annotations

import random
from typing import Any

from trutnet.bots import Bot, decide, make_bot
from trutnet.bots.signs import bot_heard
from trutnet.engine.api import Action
from trutnet.engine.hidden import Told
from trutnet.runtime.lobby_watch import WrongGame
from trutnet.runtime.local_seat import LocalSeat


class TableBot:
    """A bot of ``kind`` for the game its seat's table plays, made at the seat's first
    decision: a joiner learns the game from the table's ``open`` entry. ``asked``: the
    game the seat asked for; a table of another game stops the seat
    (:class:`WrongGame`) rather than have a bot of one game read another's observation."""

    def __init__(self, kind: str, rng: random.Random, asked: str | None = None) -> None:
        self.kind = kind
        self.rng = rng
        self.asked = asked
        self.seat: LocalSeat | None = None  # set once the seat exists
        self._bot: Bot | None = None

    def choose(self, observation: Any) -> Action:
        return self._made().choose(observation)

    def choose_in(self, state: Any, seat: int) -> Action:
        """The decision at the seat's replica state (``trutnet.bots.decide``): a bot
        that searches samples it."""
        return decide(self._made(), state, seat)

    def sign(self, observation: Any, menu: tuple[str, ...]) -> str | None:
        """The bot's sign (:func:`trutnet.bots.signs.bot_sign`), if it makes signs."""
        try:
            sign = getattr(self._made(), "sign", None)
        except WrongGame:  # the seat leaves at its first decision
            return None
        return sign(observation, menu) if sign is not None else None

    def heard(self, told: Told) -> None:
        """A sign the seat was shown (:func:`trutnet.bots.signs.bot_heard`), for a bot
        that reads them."""
        try:
            bot = self._made()
        except WrongGame:
            return
        bot_heard(bot, told)

    def _made(self) -> Bot:
        if self._bot is None:
            assert self.seat is not None and self.seat.peer is not None
            state = self.seat.peer.replica.state
            assert state is not None
            table_id = self.seat.peer.replica.table_id
            if self.asked is not None and state.game.name != self.asked:
                raise WrongGame(table_id, state.game.name, self.asked)
            self._bot = make_bot(state.game.name, self.kind, self.rng)
        return self._bot
