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

from trutnet.client.blame_words import blame_said
from trutnet.client.frontend import Frontend
from trutnet.client.view import abandoned_lines, end_lines, table_lines
from trutnet.i18n import N_, _
from trutnet.protocol.entry_types import DECISIONS
from trutnet.runtime.table_health import Connection, Stall

# Automatic steps (nobody decides: each seat's program writes them), as people say them;
# a game's front-end may name them in its own words (Frontend.step_label).
STEPS = {
    "open": N_("Opening the table"),
    "keys": N_("Exchanging keys"),
    "commit": N_("Drawing at random"),
    "reveal": N_("Drawing at random"),
    "shuffle": N_("Shuffling"),
    "shares": N_("Dealing"),
    "blind": N_("Looking for a card"),
    "unblind": N_("Looking for a card"),
    "checkpoint": N_("Closing the round"),
    "result": N_("Signing the result"),
    "unseal": N_("Opening a sealed choice"),
}
WAITING = N_("Waiting")  # an automatic step with no name of its own


def _name(seat: int, names: list[str], me: int | None, you: str = N_("you")) -> str:
    if seat == me:
        return _(you)
    return names[seat] if 0 <= seat < len(names) else _("seat {n}").format(n=seat)


def listed(said: list[str]) -> str:
    """``Ana``, ``you and Cid``, ``Ana, Cid and Dan`` (names already said)."""
    if len(said) < 2:
        return "".join(said)
    return _("{names} and {last}").format(names=", ".join(said[:-1]), last=said[-1])


def _listed(seats: Any, names: list[str], me: int | None) -> str:
    """``Ana``, ``you and Cid``, ``Ana, Cid and Dan``."""
    return listed([_name(v, names, me) for v in seats])


def abandoned_text(change: Any, names: list[str], me: int | None) -> str:
    """Why the table abandoned the game (7.7), in one sentence."""
    who = _name(change.seat, names, me)
    voters = _listed(change.voters, names, me) or _("the others")
    said = _("The table waited for {who} (stalled) and {voters} voted to abandon the game.")
    return said.format(who=who, voters=voters)


def _clock(at: float) -> str:
    """A ``time.monotonic()`` instant as the wall clock says it: ``14:02:10``."""
    return time.strftime("%H:%M:%S", time.localtime(time.time() + at - time.monotonic()))


def lost_text(lost: Connection, spectator: bool) -> tuple[str, str]:
    """A lost broker: what was lost, that it is retrying; what to do meanwhile."""
    waited = time.monotonic() - lost.since
    if lost.own:  # a host back from its files: its own broker starts again (9.3)
        said = _("✗ Starting this table's broker again at {url}… {waited:.0f}s")
        then = _("Your own broker is starting again; nothing you play is sent until it is up")
        return said.format(url=lost.url, waited=waited), then
    if lost.ever:
        said = _("✗ Lost the broker at {url} (host gone?): retrying… {waited:.0f}s")
    else:
        said = _("✗ Cannot reach the broker at {url}: retrying… {waited:.0f}s")
    then = (
        _("Wait for the host to come back; gives up at {time}")
        if spectator
        else _("Wait for the host to come back; gives up at {time}; nothing you play is sent")
    )
    return said.format(url=lost.url, waited=waited), then.format(time=_clock(lost.give_up_at))


def stall_text(stall: Stall, names: list[str], me: int | None) -> tuple[str, str]:
    """A stalled seat: who, for how long (the waiting line's place); what happens
    next, or the votes on it (the message row's). Only the second for this screen's
    own seat: its prompt stays."""
    waited = time.monotonic() - stall.since
    who = _name(stall.seat, names, me, N_("You"))
    if stall.seat == me:
        said = _("The table has waited {waited:.0f}s for you: play, or it may be abandoned")
        return "", said.format(waited=waited)

    def votes(what: str) -> str:
        seats = [v for v, said in sorted(stall.votes.items()) if said == what]
        voters = _listed(seats, names, me)
        counted = _("{names} ({n} of {needed} needed)")
        return counted.format(names=voters, n=len(seats), needed=stall.needed) if seats else ""

    if stall.closing:  # the game is over: only its signature on the result is missing
        if stall.left:
            said = _("⚠ {who} left before signing the result, {waited:.0f}s ago")
        else:
            said = _("⚠ {who} has not signed the result for {waited:.0f}s (left, or lost?)")
        said = said.format(who=who, waited=waited)
        if votes("abandon"):
            then = _("Votes to close the game without {who}: {votes}")
            return said, then.format(who=who, votes=votes("abandon"))
        if stall.vote_at is None:
            then = _("The players wait for {who}, or close the game without them")
            return said, then.format(who=who)
        left = max(0.0, stall.vote_at - time.monotonic())
        then = _(
            "Closed without {who} at {time} (in {left:.0f}s) unless {who} signs; the result stands"
        )
        return said, then.format(who=who, time=_clock(stall.vote_at), left=left)
    if stall.left:  # signed by the seat itself as its player quit
        said = _("⚠ {who} left the table {waited:.0f}s ago")
    elif stall.since_arrival:  # a spectator that came mid-stall knows only its own wait
        said = _("⚠ No move from {who} since you came, {waited:.0f}s ago")
    else:  # no word: a quit without one, a crash, or a lost connection
        said = _("⚠ No move from {who} for {waited:.0f}s (left, or lost?)")
    said = said.format(who=who, waited=waited)
    if votes("abandon"):
        return said, _("Votes to abandon the game: {votes}").format(votes=votes("abandon"))
    if votes("newcomer"):
        then = _("Votes for a newcomer to take the seat: {votes}")
        return said, then.format(votes=votes("newcomer"))
    if stall.offers:
        then = _("{names} offers to take {who}'s seat")
        return said, then.format(names=", ".join(stall.offers), who=who)
    if stall.vote_at is not None:
        left = max(0.0, stall.vote_at - time.monotonic())
        if stall.replaceable:  # a partner may accept a newcomer's offer first (7.7)
            then = _(
                "Abandoned at {time} (in {left:.0f}s) unless {who} is back"
                " or a newcomer takes the seat"
            )
        else:
            then = _("Abandoned (no winner) at {time} (in {left:.0f}s) unless {who} is back")
        return said, then.format(who=who, time=_clock(stall.vote_at), left=left)
    if stall.replaceable:
        return said, _("A newcomer may take the seat, or the players abandon the game")
    return said, _("The players wait for {who}, or vote to abandon the game").format(who=who)


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
    seat, (kind, *_rest) = expected
    state = replica.state
    if kind == "checkpoint" and state is not None and state.is_terminal():
        label = _("Closing the game")
    else:
        own = frontend.step_label(kind, state) if frontend is not None and state else None
        label = own or _(STEPS.get(kind, WAITING))
    return f"{label} ({_name(seat, names, me)})"


def show_table(
    info: Any,
    replica: Any,
    frontend: Frontend,
    runtime: Any,
    away_since: tuple[int, bytes] | None = None,
) -> None:
    """What the screen says of the table, from ``replica`` and the runtime's reading
    of its health, set in ``info``: the seat a stop blames, the automatic step under
    way, whether the game is over, and the table's trouble (:func:`show_health`). The
    terminal client and the simulator's model of a person's screen both use it."""
    if replica.halted is not None:
        halted = replica.halted
        info.blame = blame_said(halted.seat, halted.rule, info.names, token=False)
    info.step = automatic_step(replica, info.me, info.names, frontend)
    if replica.phase == "done":
        info.status = "over"
    show_health(info, runtime, replica, away_since)


def game_lines(frontend: Frontend, obs: Any, info: Any) -> tuple[str, list[Any]]:
    """The screen of a game that has started, by the frame it is in: ``abandoned``,
    ``over`` (its end, once no seat is to act and no round's summary waits), or the
    ``table``; and its lines."""
    frame = game_frame(obs, info)
    draw = {"abandoned": abandoned_lines, "over": end_lines, "table": table_lines}[frame]
    return frame, draw(frontend, obs, info)


def game_frame(obs: Any, info: Any) -> str:
    """The frame of :func:`game_lines`, without drawing it."""
    if info.abandoned:
        return "abandoned"
    if obs.to_act is None and not info.paused:
        return "over"
    return "table"


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
    if replica.halted is not None:  # a cheat caught (7.5): nothing more will be played
        info.offline = True
        said = _("⚠ The table stopped: {who} cheated, and the game cannot go on")
        info.alert = said.format(who=_name(replica.halted.seat, info.names, info.me))
        info.alert_next = _("q leaves; its transcript keeps the proof (trutnet verify checks it)")
    elif lost is not None:
        info.alert, info.alert_next = lost_text(lost, spectator=info.me is None)
    elif gone:
        said = _("⚠ {names} ended this game without you")
        info.alert = said.format(names=_listed(gone, info.names, info.me))
        info.alert_next = _("Reading how it ended; if nobody sends it, q leaves")
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
        who = _name(data["seat"], info.names, info.me)
        return _("⏱ {who}'s time ran out").format(who=who)
    if data.get("bot"):
        return _("⏱ Your time ran out: a bot decides for you this time (--bot-on-timeout)")
    return _("⏱ Your time ran out: play now, or the others may replace you or end the game")
