"""What the table screen says of the table in a line or two, for every game: the
automatic step the table waits for and whose program writes it
(:func:`automatic_step`), a seat waited for past the stall timeout and what the
others do about it (:func:`stall_text`, docs/protocol.md 7.7), the broker lost
(:func:`lost_text`), a game abandoned (:func:`abandoned_text`). Each line fits 80
columns and names the seats as the players know them ("you" for the reader).
"""

from __future__ import annotations

import time
from typing import Any

from trutnet.client.frontend import Frontend
from trutnet.runtime.table_health import Connection, Stall

# Automatic steps (nobody decides: each seat's program writes them), as people say them;
# a game's front-end may name them in its own words (Frontend.step_label).
STEPS = {
    "open": "Opening the table",
    "keys": "Exchanging keys",
    "commit": "Drawing at random",
    "reveal": "Drawing at random",
    "shuffle": "Shuffling",
    "shares": "Dealing",
    "blind": "Looking for a card",
    "unblind": "Looking for a card",
    "checkpoint": "Closing the round",
    "result": "Signing the result",
    "unseal": "Opening a sealed choice",
}
DECISIONS = ("act", "seal")  # entries a seat writes because it decided something


def _name(seat: int, names: list[str], me: int | None, you: str = "you") -> str:
    if seat == me:
        return you
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def _listed(seats: Any, names: list[str], me: int | None) -> str:
    """``Ana``, ``you and Cid``, ``Ana, Cid and Dan``."""
    said = [_name(v, names, me) for v in seats]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def abandoned_text(change: Any, names: list[str], me: int | None) -> str:
    """Why the table abandoned the game (7.7), in one sentence."""
    who = _name(change.seat, names, me)
    voters = _listed(change.voters, names, me) or "the others"
    return f"The table waited for {who} (stalled) and {voters} voted to abandon the game."


def _clock(at: float) -> str:
    """A ``time.monotonic()`` instant as the wall clock says it: ``14:02:10``."""
    return time.strftime("%H:%M:%S", time.localtime(time.time() + at - time.monotonic()))


def lost_text(lost: Connection, spectator: bool) -> tuple[str, str]:
    """A lost broker: what was lost, that it is retrying; what to do meanwhile."""
    waited = time.monotonic() - lost.since
    if lost.ever:
        said = f"✗ Lost the broker at {lost.url} (host gone?): retrying… {waited:.0f}s"
    else:
        said = f"✗ Cannot reach the broker at {lost.url}: retrying… {waited:.0f}s"
    then = f"Wait for the host to come back; gives up at {_clock(lost.give_up_at)}"
    return said, then if spectator else f"{then}; nothing you play is sent"


def stall_text(stall: Stall, names: list[str], me: int | None) -> tuple[str, str]:
    """A stalled seat: who, for how long (the waiting line's place); what happens
    next, or the votes on it (the message row's). Only the second for this screen's
    own seat: its prompt stays."""
    waited = time.monotonic() - stall.since
    who = _name(stall.seat, names, me, "You")
    if stall.seat == me:
        return "", f"The table has waited {waited:.0f}s for you: play, or it may be abandoned"

    def votes(what: str) -> str:
        seats = [v for v, said in sorted(stall.votes.items()) if said == what]
        listed = _listed(seats, names, me)
        return f"{listed} ({len(seats)} of {stall.needed} needed)" if seats else ""

    if stall.closing:  # the game is over: only its signature on the result is missing
        if stall.left:
            said = f"⚠ {who} left before signing the result, {waited:.0f}s ago"
        else:
            said = f"⚠ {who} has not signed the result for {waited:.0f}s (left, or lost?)"
        if votes("abandon"):
            return said, f"Votes to close the game without {who}: {votes('abandon')}"
        if stall.vote_at is None:
            return said, f"The players wait for {who}, or close the game without them"
        left = max(0.0, stall.vote_at - time.monotonic())
        when = f"at {_clock(stall.vote_at)} (in {left:.0f}s) unless {who} signs"
        return said, f"Closed without {who} {when}; the result stands"
    if stall.left:  # signed by the seat itself as its player quit
        said = f"⚠ {who} left the table {waited:.0f}s ago"
    elif stall.since_arrival:  # a spectator that came mid-stall knows only its own wait
        said = f"⚠ No move from {who} since you came, {waited:.0f}s ago"
    else:  # no word: a quit without one, a crash, or a lost connection
        said = f"⚠ No move from {who} for {waited:.0f}s (left, or lost?)"
    if votes("abandon"):
        return said, f"Votes to abandon the game: {votes('abandon')}"
    if votes("newcomer"):
        return said, f"Votes for a newcomer to take the seat: {votes('newcomer')}"
    if stall.offers:
        return said, f"{', '.join(stall.offers)} offers to take {who}'s seat"
    if stall.vote_at is not None:
        left = max(0.0, stall.vote_at - time.monotonic())
        when = f"at {_clock(stall.vote_at)} (in {left:.0f}s) unless {who} is back"
        if stall.replaceable:  # a partner may accept a newcomer's offer first (7.7)
            return said, f"Abandoned {when} or a newcomer takes the seat"
        return said, f"Abandoned (no winner) {when}"
    if stall.replaceable:
        return said, "A newcomer may take the seat, or the players abandon the game"
    return said, f"The players wait for {who}, or vote to abandon the game"


def automatic_step(
    replica: Any, me: int | None, names: list[str], frontend: Frontend | None = None
) -> str:
    """The automatic step the table waits for, and whose program writes it:
    ``Shuffling (Bot 1)``; empty when a seat has a decision to make (or at the end)."""
    try:
        expected = replica.expected()
    except AssertionError:  # a state the replica cannot name a writer for
        return ""
    if expected is None or expected[1][0] in DECISIONS:
        return ""
    seat, (kind, *_) = expected
    state = replica.state
    if kind == "checkpoint" and state is not None and state.is_terminal():
        label = "Closing the game"
    else:
        own = frontend.step_label(kind, state) if frontend is not None and state else None
        label = own or STEPS.get(kind, "Waiting")
    who = "you" if seat == me else (names[seat] if 0 <= seat < len(names) else f"seat {seat}")
    return f"{label} ({who})"


def show_health(
    info: Any, runtime: Any, replica: Any, away_since: tuple[int, bytes] | None
) -> None:
    """The table's trouble in the frame's words, set in ``info``: an abandoned game, a
    lost broker, a stalled seat and the votes on it (``docs/protocol.md`` 7.7), and
    whether the game ended while this seat was away (``away_since``: the log's length
    when it came back from its files, and its key)."""
    change = replica.abandoned
    if change is not None:
        info.abandoned = abandoned_text(change, info.names, info.me)
    if replica.phase == "done" and away_since is not None:
        # back from its files into a game that ended without a word from this seat
        resumed_at, mine = away_since
        since = replica.log.entries[resumed_at:]
        info.away = bool(since) and not any(e.author == mine for e in since)
    # (a screen may follow a stand-in for the runtime that knows neither)
    connection, stalled = getattr(runtime, "connection", None), getattr(runtime, "stall", None)
    lost = connection() if connection is not None else None
    stall = stalled() if stalled is not None and lost is None else None
    ended = getattr(runtime, "ended_elsewhere", None)
    gone = ended() if ended is not None and lost is None else []
    # every other seat says the game is over: a move would go to nobody
    info.offline = lost is not None or (bool(gone) and runtime.over_elsewhere())
    info.alert = info.alert_next = ""
    if lost is not None:
        info.alert, info.alert_next = lost_text(lost, spectator=info.me is None)
    elif gone:
        info.alert = f"⚠ {_listed(gone, info.names, info.me)} ended this game without you"
        info.alert_next = "Reading how it ended; if nobody sends it, q leaves"
    elif stall is not None:
        info.alert, info.alert_next = stall_text(stall, info.names, info.me)


def show_clock(info: Any, runtime: Any, now: float) -> None:
    """The table's clock as this process reads it (7.11), set in ``info``: this seat's
    time left, and the deciding seat's; nothing when the table has no clock."""
    table_clock = getattr(runtime, "clock", None)  # (a stand-in runtime has none)
    clock = table_clock.clock if table_clock is not None else None
    if clock is None:
        info.clock_mine = info.clock_turn = None
        return
    info.clock_mine = clock.left(info.me, now) if info.me is not None else None
    info.clock_turn = (
        None if clock.turn is None else (clock.turn[0], clock.left(clock.turn[0], now))
    )


def clock_said(data: dict[str, Any], info: Any) -> str:
    """A ``clock`` event in one line: whose time ran out, and what comes of it."""
    if data.get("seat") != info.me:
        return f"⏱ {_name(data['seat'], info.names, info.me)}'s time ran out"
    if data.get("bot"):
        return "⏱ Your time ran out: a bot decides for you this time (--bot-on-timeout)"
    return "⏱ Your time ran out: play now, or the others may replace you or end the game"
