"""What a screen shows of a table's health, as one process's runtime sees it: the
seat the table waits for past the stall timeout (:class:`Stall`: the offers and votes
on it, when this process votes to abandon, docs/protocol.md 7.7) and the broker this
process cannot reach (:class:`Connection`: since when, and when it gives up). Each is
computed at the time given (``time.monotonic()``), never read from a clock here.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trutnet.i18n import _
from trutnet.protocol.envelope import MessageError, parse_entry
from trutnet.protocol.replace import VoteError, parse_vote, partners, votes_needed

if TYPE_CHECKING:
    from trutnet.runtime.table_runtime import TableRuntime


@dataclass
class Stall:
    """A seat the table has waited for longer than the stall timeout (7.7), as this
    process sees it; times are ``time.monotonic()``."""

    seat: int
    since: float  # the last progress of the table
    vote_at: float | None  # when this process's seats vote to abandon (None: they never do)
    replaceable: bool  # the seat has partners: a newcomer may take it
    offers: list[str]  # the names of the newcomers who offered to take it
    votes: dict[int, str]  # voter seat -> "abandon" or "newcomer"
    needed: int  # the votes a decision needs (a majority of the other seats)
    left: bool = False  # the seat signed that its player left the table (a quit, not a loss)
    # nothing moved since this process caught up with a game already under way: ``since``
    # is when it came, and the table may have waited longer (no message says how long)
    since_arrival: bool = False
    # the game is over and the seat has not signed it: an abandon closes the game
    # without that signature, and its winner stands (7.7)
    closing: bool = False


@dataclass
class Connection:
    """No broker now: the one last tried, since when (``time.monotonic()``), and
    when this process gives up if nothing moves."""

    url: str
    since: float
    ever: bool  # False: never connected since this process started
    give_up_at: float
    own: bool = False  # the broker is this process's own, which it starts again (9.3)


def stall_at(table: TableRuntime, now: float) -> Stall | None:
    """The seat ``table`` has waited for past the stall timeout at ``now``, in a game,
    with the offers and votes on it (7.7); None while the table moves."""
    replica = table.replica
    if replica is None or replica.state is None or table.done() or not table.running:
        return None
    expected = replica.expected()
    since = table.last_progress
    policy = table.clock.policy()
    if expected is None or not policy.report(now - since):
        return None
    seat = expected[0]
    if not replica.can_abandon(seat):
        return None
    team = bool(partners(seat, replica.team_of))
    local = table.local_seats()
    vote_at = None
    if local - {seat} and seat not in local:  # the runtime's policy (7.7)
        vote_at = since + policy.abandon_after(team)
    key = (seat, replica.log.head)
    offers = []
    for wire in table.replacement.offers.get(key, {}).values():
        with contextlib.suppress(MessageError):
            offers.append(str(parse_entry(wire).body.get("name", "?"))[:20])
    votes: dict[int, str] = {}
    for voter, wire in table.replacement.votes.get(key, {}).items():
        with contextlib.suppress(VoteError, MessageError):
            taker = parse_vote(wire, table.table_id, replica.seats).taker
            votes[voter] = "abandon" if taker is None else "newcomer"
    left_at = table.notices.left.get(seat)
    left = left_at is not None and not any(
        e.seat == seat for e in replica.log.entries[left_at:]
    )  # it said it left, and has written nothing since
    return Stall(
        seat,
        since,
        vote_at,
        team and replica.can_void(seat),  # not in the keys round, nor a draw
        offers,
        votes,
        votes_needed(replica.n),
        left,
        table.stalled_on_arrival(),
        replica.closing_without(seat),
    )


def give_up_period(table: TableRuntime) -> float:
    """How long without progress before ``table``'s process stops: a process that
    holds no seat (a newcomer, a spectator) stops sooner with no broker to follow."""
    options = table.options
    if not table.local_seats() and not table.link.connected.is_set():
        return min(options.follow_timeout, options.give_up_after)
    return options.give_up_after


def connection_of(table: TableRuntime) -> Connection | None:
    """The broker ``table``'s process cannot reach now, while it plays (or
    follows) a game; None while connected, and before the game or after it."""
    link = table.link
    if not table.running or table.done() or link.connected.is_set():
        return None
    base = table.succession.base_endpoints
    endpoint = link.endpoint or (base[0] if base else None)
    lost = link.disconnected_since
    since = table.started if lost is None or not table.connected_once else lost
    return Connection(
        endpoint.url if endpoint is not None else "?",
        since,
        table.connected_once,
        table.last_progress + give_up_period(table),
        endpoint is not None and endpoint == table.succession.own_broker,
    )


def stranded_why(table: TableRuntime) -> str | None:
    """Why a process that holds no seat can learn nothing more, or None: it cannot
    rehost a lost broker, and once a seat said it finished at a head its log lacks
    (and nothing came since, the caller's wait), nobody may be left to send what its
    log lacks."""
    if table.local_seats() or table.replica is None:
        return None
    lost = connection_of(table)
    if lost is not None:
        said = _("lost the broker at {url} (host gone?): the game was not followed to its end")
        return said.format(url=lost.url)
    if table.end.stranded():
        return _("the seats finished the game and left before this log caught up")
    return None
