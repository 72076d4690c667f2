"""Ending background tasks for sure.

A single ``Task.cancel()`` is not always enough on Python 3.11: when
``asyncio.wait_for`` sees its inner awaitable finish in the same loop iteration as
the cancellation, it returns the result and the cancellation is lost; the task goes
on, and its next ``await`` can wait forever (a finished peer that never exits).
:func:`stop_tasks` cancels again until every task has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def stop_tasks(*tasks: asyncio.Task[Any], retry: float = 0.5) -> None:
    """Cancel ``tasks`` and return once every one has ended, cancelling again every
    ``retry`` seconds a task that swallowed the cancellation. Their exceptions are
    retrieved (a task that failed while stopping is not reported again)."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=retry)
    for task in tasks:
        if not task.cancelled():
            with contextlib.suppress(Exception):
                task.exception()
