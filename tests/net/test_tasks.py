"""Stopping background tasks for sure (trutnet/net/tasks.py)."""

from __future__ import annotations

import asyncio
import contextlib

from trutnet.net.tasks import stop_tasks


def test_a_task_that_swallows_its_cancellation_is_still_stopped():
    """The hang of a finished peer that never exited: on Python 3.11, ``wait_for`` can
    drop a cancellation that arrives as its inner awaitable finishes; the task then
    waits forever on its next ``await``. ``stop_tasks`` cancels until it ends, where a
    single cancel-and-await hangs."""

    async def stubborn(ready: asyncio.Event) -> None:
        ready.set()
        with contextlib.suppress(asyncio.CancelledError):  # lost, as wait_for loses it
            await asyncio.sleep(60)
        await asyncio.Event().wait()

    async def once(task: asyncio.Task[None]) -> bool:
        task.cancel()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(task), 1.0)
        return task.done()

    async def main() -> tuple[bool, bool, bool]:
        ready = asyncio.Event()
        first = asyncio.create_task(stubborn(ready))
        await ready.wait()
        single_cancel_ended = await once(first)
        ready.clear()
        second = asyncio.create_task(stubborn(ready))
        await ready.wait()
        await asyncio.wait_for(stop_tasks(second, retry=0.05), 10)
        await stop_tasks(first, retry=0.05)
        return single_cancel_ended, second.done(), first.done()

    single_cancel_ended, stopped, cleaned = asyncio.run(main())
    assert not single_cancel_ended  # the bug this guards against is real
    assert stopped and cleaned


def test_stop_tasks_retrieves_failures_and_leaves_finished_tasks_alone():
    async def fails() -> None:
        raise RuntimeError("boom")

    async def main() -> asyncio.Task[None]:
        task = asyncio.create_task(fails())
        await asyncio.sleep(0)
        await stop_tasks(task)
        return task

    loop = asyncio.new_event_loop()
    reported: list[dict] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    task = loop.run_until_complete(main())
    loop.close()
    del task
    import gc

    gc.collect()
    assert reported == []  # "exception was never retrieved" is not logged
