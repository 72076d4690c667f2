"""A bot thinks beside the event loop (``runtime/bot_thinking.py``): while its search
runs, the loop of the process that plays it goes on (its screen reads keys, its link
moves messages); the decision is signed once it is thought out, and a thought the
table outran is thrown away."""

from __future__ import annotations

import asyncio
import threading

from tests.net.test_runtime_link import _runtime_at
from trutnet.runtime.bot_thinking import Thinking

DEADLINE = 60.0  # generous: a loaded machine still gets there


class HeldBot:
    """A bot that, asked to decide, says so and waits until the test lets it go; then
    it plays the first legal action. Where it thought is kept."""

    def __init__(self) -> None:
        self.asked = threading.Event()
        self.go = threading.Event()
        self.threads: list[int] = []

    def choose_in(self, state, seat):
        self.threads.append(threading.get_ident())
        self.asked.set()
        if not self.go.wait(DEADLINE):  # the loop never came back to the test
            raise TimeoutError("the bot was held for ever: its decision blocked the loop")
        return state.legal_actions(seat)[0]


def _bot_seat():
    """A runtime whose local seat has a decision to make now, played by a HeldBot."""
    runtime, _ = _runtime_at(12)
    seat = runtime.replica.expected()[0]
    runtime, _ = _runtime_at(12, seat=seat)
    runtime.seats[0].bot = HeldBot()
    assert runtime.seats[0].peer.decide()
    return runtime


def test_a_bot_decides_in_a_worker_thread_while_the_loop_goes_on():
    runtime = _bot_seat()
    seat, peer = runtime.seats[0], runtime.seats[0].peer
    bot, before = seat.bot, len(peer.replica.log)

    async def scenario():
        loop_thread = threading.get_ident()
        assert not await runtime._write()  # thinking: nothing signed yet
        # This coroutine runs on the loop while the bot holds its thread: were the
        # decision taken on the loop, the bot would wait in vain and fail.
        assert await asyncio.to_thread(bot.asked.wait, DEADLINE)
        assert runtime.thinking.busy() and len(peer.replica.log) == before
        runtime._progress.clear()
        bot.go.set()
        await asyncio.wait_for(runtime._progress.wait(), DEADLINE)  # woken when it is over
        assert await runtime._write()
        return loop_thread

    loop_thread = asyncio.run(scenario())
    assert bot.threads and loop_thread not in bot.threads
    assert len(peer.replica.log) == before + 1
    entry = peer.replica.log.entries[-1]
    assert entry.seat == peer.seat and entry.type == "act"
    assert runtime.thinking.thought == 1 and runtime.thinking.discarded == 0


class Clone:
    def __init__(self, moves):
        self.moves = moves

    def clone(self):
        return Clone(list(self.moves))

    def legal_actions(self, seat):
        return list(self.moves)


class Quick:
    """A bot that plays the last legal move, and counts its decisions."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_in(self, state, seat):
        self.calls += 1
        return state.legal_actions(seat)[-1]


def test_a_thought_the_table_outran_is_thrown_away_and_thought_again():
    woken = []

    async def scenario():
        thinking = Thinking(lambda: woken.append(1))
        bot, who = Quick(), object()
        assert thinking.decision(who, "head-1", bot, Clone(["a", "b"]), 0) is None
        await asyncio.wait_for(thinking.settled(), DEADLINE)
        # the table moved on: the answer for head-1 is not taken for head-2
        assert thinking.decision(who, "head-2", bot, Clone(["c", "d"]), 0) is None
        assert thinking.discarded == 1
        await asyncio.wait_for(thinking.settled(), DEADLINE)
        assert thinking.decision(who, "head-2", bot, Clone(["c", "d"]), 0) == "d"
        return thinking, bot

    thinking, bot = asyncio.run(scenario())
    assert bot.calls == 2 and thinking.thought == 1 and len(woken) == 2


def test_a_bots_error_reaches_the_runtime_as_if_it_had_decided_on_the_loop():
    class Broken:
        def choose_in(self, state, seat):
            raise ValueError("no such game here")

    async def scenario():
        thinking, who = Thinking(lambda: None), object()
        assert thinking.decision(who, 1, Broken(), Clone(["a"]), 0) is None
        await asyncio.wait_for(thinking.settled(), DEADLINE)
        return thinking.decision(who, 1, Broken(), Clone(["a"]), 0)

    try:
        asyncio.run(scenario())
    except ValueError as exc:
        assert "no such game" in str(exc)
    else:
        raise AssertionError("the bot's error was lost")


def test_a_thought_stands_while_the_log_moves_by_what_the_seat_does_not_see():
    """Another seat's sealed choice arriving while a bot thinks moves the log, not what
    the bot decides from: the thought stands. A replaced seat, or a change the seat
    sees, makes it think again."""
    from trutnet.runtime.decisions import _same_moment

    then = ((1, False, 0, 40, b"h40"), ("hand", "a b c"))
    assert _same_moment(then, then)
    assert _same_moment(then, ((1, False, 0, 41, b"h41"), ("hand", "a b c")))
    assert not _same_moment(then, ((1, False, 0, 41, b"h41"), ("hand", "a b")))
    assert not _same_moment(then, ((1, False, 1, 41, b"h41"), ("hand", "a b c")))  # a void
    assert not _same_moment(then, ((1, True, 0, 41, b"h41"), ("hand", "a b c")))  # late bot
