"""What a local seat owes the table now, as one signed entry (docs/protocol.md 7):
an automatic step of the protocol, its bot's decision, or the decision its person
queued on the screen (``LocalSeat.pending``). A person's decision takes one path from
the key press to the signed entry, and is never lost without a word: one the table
moved past (no longer legal, or no longer this seat's turn) is dropped with a
``decision_refused`` event saying why, which the screen shows in one line.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trutnet.bots import Bot, decide, default_bot, make_bot
from trutnet.i18n import N_
from trutnet.protocol.table import LocalError, Rejected
from trutnet.runtime.events import DecisionRefused, Event

if TYPE_CHECKING:
    from trutnet.engine.api import GameState
    from trutnet.runtime.bot_thinking import Thinking
    from trutnet.runtime.local_seat import LocalSeat

# the ``why`` of a ``decision_refused`` event: English on the event's line (a machine
# field), marked so that the screen can show it in the person's language (``_(why)``)
STALE = N_("the table moved on: it is not a legal move now")
NOT_YOURS = N_("it is not this seat's decision any more")


def owed_entry(
    seat: LocalSeat,
    emit: Callable[[Event], None],
    late: bool = False,
    thinking: Thinking | None = None,
) -> bytes | None:
    """The entry ``seat`` signs now (its peer has applied it), or None: nothing owed,
    the person's queued decision refused (said with ``emit``), or a bot still thinking.
    ``late``: the person's time ran out and they let a bot decide for them (7.11): the
    game's default bot decides this once, unless the person's own decision is queued.
    ``thinking``: where bots think beside the event loop (None: here and now)."""
    peer = seat.peer
    if peer is None:
        return None
    wire = peer.next_automatic()
    if wire is None and peer.decide():
        state = peer.replica.state
        assert state is not None
        if seat.bot is not None:
            return _bot_decision(seat, seat.bot, state, thinking)
        if seat.pending is not None:
            return _person_decision(seat, emit)
        if late:
            game = state.game.name
            bot = make_bot(game, default_bot(game), random.Random(peer.replica.log.head))
            return _bot_decision(seat, bot, state, thinking, late=True)
    elif wire is None and seat.pending is not None and seat.bot is None:
        refuse(seat, NOT_YOURS, emit)
    return wire


def _bot_decision(
    seat: LocalSeat, bot: Bot, state: GameState, thinking: Thinking | None, late: bool = False
) -> bytes | None:
    """The entry of ``bot``'s decision for the seat, or None while it thinks."""
    peer = seat.peer
    assert peer is not None
    if thinking is None:
        return peer.act(str(decide(bot, state, peer.seat)))
    replica = peer.replica
    moment = (peer.seat, late, len(replica.replaced), len(replica.journal), replica.log.head)
    key = (moment, state.observation(peer.seat))
    action = thinking.decision(seat, key, bot, state, peer.seat, _same_moment)
    if action is None:
        return None
    if str(action) not in {str(a) for a in state.legal_actions(peer.seat)}:
        thinking.discarded += 1  # an observation that hid a change: think again
        thinking.decision(seat, key, bot, state, peer.seat, _same_moment)
        return None
    return peer.act(str(action))


def _same_moment(then: tuple[Any, Any], now: tuple[Any, Any]) -> bool:
    """Whether a bot's thought for ``then`` answers ``now``: the seat's log has not
    moved, or it moved by what changes nothing the seat sees (the same seat, bot and
    seats, and an equal observation)."""
    (moment, seen), (moment_now, seen_now) = then, now
    if moment == moment_now:
        return True
    return moment[:3] == moment_now[:3] and seen == seen_now


def _person_decision(seat: LocalSeat, emit: Callable[[Event], None]) -> bytes | None:
    """Sign the decision the person queued, if it is still legal; else say why it
    was not sent (the table moved on between the key press and now)."""
    peer = seat.peer
    assert peer is not None and peer.replica.state is not None and seat.pending is not None
    action, seat.pending = seat.pending, None
    if action not in {str(a) for a in peer.replica.state.legal_actions(peer.seat)}:
        refuse(seat, STALE, emit, action)
        return None
    try:
        return peer.act(action)
    except (LocalError, Rejected) as exc:
        refuse(seat, str(exc), emit, action)
        return None


def refuse(
    seat: LocalSeat,
    why: str,
    emit: Callable[[Event], None],
    action: str | None = None,
) -> None:
    """The ``decision_refused`` event: the person's queued decision was not sent."""
    if action is None:
        action, seat.pending = seat.pending, None
    peer = seat.peer
    seat_index = peer.seat if peer is not None else None
    emit(DecisionRefused(seat_index, action, why))
