"""A stalled seat at the table: replacing it or abandoning the game (7.7), and a
``void`` that overrides the stalled seat's own entry (7.8). Sans-I/O.

:class:`StalledSeats` is the part of :class:`~.replica.TableReplica` that judges
``void`` and ``abandon`` entries: who the table waits for, whether the game can void
its round (the engine's ``void_round``) so that every deck is dealt again under the
newcomer's key, the quorum of votes (:mod:`.replace`), and the fork of 7.8. It reads
the replica's state and names no game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trutnet.crypto import joint_key
from trutnet.crypto.group import Point
from trutnet.engine.api import GameState
from trutnet.engine.errors import EngineError
from trutnet.engine.hidden import Shuffle
from trutnet.protocol.blame import Blame
from trutnet.protocol.envelope import Entry
from trutnet.protocol.lobby import distinct_name
from trutnet.protocol.log import OVERRIDES, TableLog
from trutnet.protocol.replace import (
    Offer,
    SeatChange,
    VoteError,
    check_votes,
    coordinator,
    parse_offer,
)
from trutnet.protocol.schema import Rejected, exact_fields, int_field

# The phases in which a seat the table waits for can be replaced or the game abandoned
# (7.7), and those in which it can only be abandoned: the keys round, a joint draw's.
PLAYING = ("shuffle", "shares", "blind", "unblind", "game", "checkpoint")
DRAWING = ("keys", "commit", "reveal")
# The rounds after the last move (the final checkpoint, the result): a seat gone there
# is closed out, and the game's winner stands (7.7).
CLOSING = ("checkpoint", "result")


class StalledSeats:
    """Judging ``void`` and ``abandon`` (mixed into :class:`~.replica.TableReplica`,
    whose fields and methods it uses: those below, ``writers``, ``receive``,
    ``round_number`` and ``_restart_dealing``)."""

    table_id: bytes
    log: TableLog
    blames: list[Blame]
    journal: list[bytes]
    forks: int
    phase: str
    seats: list[bytes]
    names: list[str]
    retired: set[bytes]
    replaced: list[tuple[int, int]]
    changes: list[SeatChange]
    state: GameState | None
    team_of: tuple[int, ...]
    elgamal: list[Point]
    joint: Point | None
    on_private: Callable[..., None] | None
    on_round: Callable[..., None] | None
    round: Any

    @property
    def n(self) -> int:
        return len(self.seats)

    def _fork(self, entry: Entry) -> Entry:
        """7.8: a valid ``void``/``abandon`` at an earlier head ``H`` beats the stalled
        seat's own entry at ``H`` (or the unordered round at ``H``, 7.2): the log is
        replayed up to ``H`` and the void applied. Refused unless the entries at ``H``
        (naming ``H``) are the ones the table waited for there, and no voter (nor the
        coordinator) wrote after ``H`` on this branch: honest voters never build on it,
        so a quorum cannot rewrite a history it took part in."""
        index = self.log.index_of(entry.prev)
        assert index is not None
        suffix = self.log.entries[index + 1 :]
        rebuilt = type(self)(self.table_id)
        rebuilt.on_private, rebuilt.on_round = self.on_private, self.on_round
        for old in self.log.entries[: index + 1]:
            rebuilt.receive(old.wire)
        at_head = [e for e in suffix if e.prev == entry.prev]
        writers = rebuilt.writers()
        if not at_head or any(e.seat not in writers or e.type in OVERRIDES for e in at_head):
            raise Rejected("chain", f"{entry.type} does not extend the head of the log")
        try:
            applied = rebuilt.receive(entry.wire)
        except Rejected as exc:  # a bad void off this branch: dropped, its blame kept
            if exc.blame is not None:
                self.blames.append(exc.blame)
            raise Rejected(exc.rule, exc.message, exc.blame) from exc
        assert applied is not None
        change = rebuilt.changes[-1]
        builders = sorted(
            {
                e.seat
                for e in suffix
                if e.prev != entry.prev and e.seat in (*change.voters, entry.seat)
            }
        )
        if builders:
            raise Rejected(
                "fork",
                f"seats {builders} voted at this point and then wrote after it: "
                f"{entry.type} refused",
            )
        journal, forks = [*self.journal, entry.wire], self.forks + 1
        blames = [b for b in self.blames if b not in rebuilt.blames]
        self.__dict__.update(rebuilt.__dict__)
        self.journal, self.forks, self.blames = journal, forks, [*self.blames, *blames]
        return applied

    def _waiting_in_game(self, seat: int, phases: tuple[str, ...] = PLAYING) -> bool:
        """Whether ``seat`` writes the step the table is at, in a game (one of
        ``phases``): the seat to write next, or any seat of an unordered round, whether
        its entry came or not (what came of a round differs from replica to replica; who
        writes it does not)."""
        return (
            seat in self.writers()
            and self.n >= 2
            and self.phase in phases
            and self.state is not None
            and not self.state.is_terminal()
        )

    def can_abandon(self, seat: int) -> bool:
        """Whether the game may be abandoned for ``seat`` (the seat the table waits for):
        while it plays, and also in the ``keys`` round and a joint draw's rounds, so a
        seat gone before the first card, or during a draw, does not hold the others until
        they give up; and in the rounds after the last move, where the ``abandon``
        closes the game without that seat's signature and the winner stands
        (:meth:`closing_without`)."""
        return self._waiting_in_game(seat, (*PLAYING, *DRAWING)) or self.closing_without(seat)

    def closing_without(self, seat: int) -> bool:
        """Whether the game is over and the table waits for ``seat``'s signature on it
        (the final checkpoint, the result round): an ``abandon`` now closes the game
        with its winner (7.7)."""
        return (
            seat in self.writers()
            and self.n >= 2
            and self.phase in CLOSING
            and self.state is not None
            and self.state.is_terminal()
        )

    def can_void(self, seat: int) -> bool:
        """Whether ``seat`` (the seat the table waits for) may be replaced now (7.7): the
        game can void the round in progress so that every deck is shuffled again."""
        if not self._waiting_in_game(seat):
            return False
        state = self.state
        assert state is not None
        void = state.void_round()
        probe = state
        if void is not None:
            probe = state.clone()
            try:
                probe.apply(void)
            except EngineError:
                return False
        step = probe.next_step()  # a Shuffle that carries nothing: no ciphertext survives
        return not probe.holders() and isinstance(step, Shuffle) and not step.carry

    def _stalled_quorum(
        self, author: int, prev: bytes, body: dict[str, Any], taker: bytes | None
    ) -> tuple[int, tuple[int, ...]]:
        """The stalled seat and the voters of a ``void``/``abandon`` (7.7)."""
        assert self.state is not None
        stalled = int_field(body, "seat", 0, self.n - 1)
        allowed = self.can_void(stalled) if taker is not None else self.can_abandon(stalled)
        if not allowed:
            waits = list(self.writers())
            raise Rejected("votes", f"the table waits for seats {waits}, not {stalled}")
        if author != coordinator(stalled, self.team_of):
            raise Rejected("votes", f"seat {author} is not the coordinator for seat {stalled}")
        try:
            votes = check_votes(
                body["votes"],
                self.table_id,
                self.seats,
                self.team_of,
                prev,
                stalled,
                self.round_number(),
                taker,
            )
        except VoteError as exc:
            raise Rejected("votes", str(exc)) from exc
        if author not in {v.voter for v in votes}:
            raise Rejected("votes", "the coordinator votes too")
        return stalled, tuple(v.voter for v in votes)

    def check_void(
        self, author: int, prev: bytes, body: dict[str, Any]
    ) -> tuple[Offer, int, tuple[int, ...]]:
        """Raise :class:`Rejected` unless ``body`` is a valid ``void`` now; changes nothing."""
        exact_fields(body, {"seat", "votes", "offer"})
        try:
            offer = parse_offer(body["offer"], self.table_id)
        except VoteError as exc:
            raise Rejected("offer", str(exc)) from exc
        stalled, voters = self._stalled_quorum(author, prev, body, offer.id)
        if (offer.seat, offer.hand, offer.entry.prev) != (stalled, self.round_number(), prev):
            raise Rejected("offer", "the offer is for this seat, hand and point of the log")
        if offer.identity in self.seats or offer.identity in self.retired:
            raise Rejected("offer", "the taker must be a newcomer: a key that never held a seat")
        if any(bytes(k) == bytes(offer.key) for k in self.elgamal):
            raise Rejected("offer", "an ElGamal key already used at this table")
        return offer, stalled, voters

    def check_abandon(self, author: int, prev: bytes, body: dict[str, Any]) -> tuple[int, ...]:
        """Raise :class:`Rejected` unless ``body`` is a valid ``abandon`` now."""
        exact_fields(body, {"seat", "votes"})
        return self._stalled_quorum(author, prev, body, None)[1]

    def _on_void(self, entry: Entry, body: dict[str, Any]) -> None:
        """A newcomer takes the stalled seat with its own keys: the round in progress is
        voided (the engine's ``void_round``) and every deck shuffled again."""
        offer, stalled, voters = self.check_void(entry.seat, entry.prev, body)
        state = self.state
        assert state is not None
        void = state.void_round()
        if void is not None:
            state.apply(void)
        self.retired.add(self.seats[stalled])
        others = [n for seat, n in enumerate(self.names) if seat != stalled]
        self.seats[stalled], self.names[stalled] = offer.identity, distinct_name(offer.name, others)
        self.elgamal[stalled] = offer.key
        self.joint = joint_key(self.elgamal)
        self._restart_dealing()
        self.replaced.append((stalled, len(self.log)))
        self.changes.append(
            SeatChange(
                "replaced",
                stalled,
                len(self.log),
                state.round_number(),
                voters,
                entry.seat,
                offer.identity,
                offer.name,
            )
        )
        self._drive()

    def _on_abandon(self, entry: Entry, body: dict[str, Any]) -> None:
        """The game ends here with no winner, or, when it was over already, with its
        winner (closed without the stalled seat's signature); the stalled seat is blamed."""
        voters = self.check_abandon(entry.seat, entry.prev, body)
        stalled = body["seat"]
        closed = self.closing_without(stalled)
        kind = "closed" if closed else "abandoned"
        self.changes.append(
            SeatChange(kind, stalled, len(self.log), self.round_number(), voters, entry.seat)
        )
        self.blames.append(
            Blame(
                stalled,
                "stalled",
                f"the table waited for seat {stalled}; seats {list(voters)} "
                + ("closed the game without its signature" if closed else "abandoned the game"),
                tuple(body["votes"]),
            )
        )
        self.phase, self.round = "done", None
