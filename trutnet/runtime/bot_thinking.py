"""A bot's decision thought out beside the event loop (:class:`Thinking`).

A search bot thinks for tens to hundreds of milliseconds a decision (a hard bot in
Lutin & Troll, half a second). On the event loop, that time is taken from everything
else the process does: its screen reads no key, its link moves no message, its clock
does not tick. So the runtime asks :class:`Thinking` for a bot's decision: the first
ask starts it in a worker thread, on a copy of the seat's state made on the loop
(``clone``), and says "not yet"; the loop goes on, and once the thought is over it
wakes the runtime, whose next ask gets it.

A thought answers one moment, named by its ``key``; the caller says whether a key
still stands for the moment now (``fresh``: the runtime takes a thought when the seat's
log has not moved, or when what the seat sees has not changed: another seat's sealed
choice arriving meanwhile changes nothing a bot decides from). Otherwise (a void, an
abandon, the person's own decision while a late bot thought for them) the answer is
thrown away, errors included, and the bot thinks again. A seat has one thought at a
time, so a bot's own objects are never used by two threads at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import operator
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from trutnet.bots import decide
from trutnet.engine.api import Action, GameState
from trutnet.net.tasks import stop_tasks


@dataclass
class _Thought:
    key: Hashable
    task: asyncio.Task[Action]


class Thinking:
    """The bots' decisions of one process, each thought out in a worker thread."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake  # called on the loop when a thought is over
        self._thoughts: dict[int, _Thought] = {}  # by the id of the seat it is for
        self.thought = 0  # decisions thought out and taken
        self.discarded = 0  # thoughts the table outran

    def decision(
        self,
        who: object,
        key: Hashable,
        bot: Any,
        state: GameState,
        seat: int,
        fresh: Callable[[Any, Any], bool] = operator.eq,
    ) -> Action | None:
        """``bot``'s decision for ``seat`` at ``state`` once thought out for a key that
        ``key`` finds ``fresh`` (called with the thought's key, then ``key``); None while
        it is thought (the thought starts now if none is under way). An error of the
        bot's is raised here, as if it had decided on the loop."""
        thought = self._thoughts.get(id(who))
        if thought is not None:
            if not thought.task.done():
                return None
            del self._thoughts[id(who)]
            if fresh(thought.key, key):
                self.thought += 1
                return thought.task.result()
            self.discarded += 1
            with contextlib.suppress(Exception):  # a stale thought's error is not the table's
                thought.task.result()
        task = asyncio.get_running_loop().create_task(
            asyncio.to_thread(decide, bot, state.clone(), seat)
        )
        task.add_done_callback(lambda _: self._wake())
        self._thoughts[id(who)] = _Thought(key, task)
        return None

    async def settled(self) -> None:
        """Return once every thought under way is over (its wake-up said)."""
        tasks = [t.task for t in self._thoughts.values() if not t.task.done()]
        if tasks:
            await asyncio.wait(tasks)

    def busy(self) -> bool:
        """Whether a thought is under way."""
        return any(not t.task.done() for t in self._thoughts.values())

    async def stop(self) -> None:
        """Forget the thoughts under way: their answers go unused (a thread cannot be
        stopped: it ends its search, and the loop's end waits for it)."""
        tasks = [t.task for t in self._thoughts.values()]
        self._thoughts.clear()
        await stop_tasks(*tasks)
