"""A seat process with the screen (:func:`play_with_ui`): the seat (``host``,
``join`` or ``resume``) and the screen run side by side; the person quits, or the
game ends, and the command says what happened in one line (Ctrl-C: interrupted).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from trutnet.client.app import TableApp
from trutnet.i18n import _
from trutnet.net.tasks import stop_tasks
from trutnet.runtime.seat_process import Hooks, SeatResult


async def play_with_ui(
    start: Callable[[Hooks], Awaitable[SeatResult]],
    ui: TableApp,
    transcript: Path | None = None,
) -> SeatResult | None:
    """Run a seat process (``host`` or ``join``) with the screen; None if the person quit.

    Raises :class:`WrongGame` when the table turns out to play another game than the
    one the person asked for (a host that announced one game and opened another): the
    seat stops at once rather than leave the table waiting for keys it cannot take."""
    commands: asyncio.Queue[Any] = asyncio.Queue()
    ui.lobby_commands = commands

    def saved(path: Path) -> None:
        ui.info.transcript = str(path)
        ui.app.invalidate()

    hooks = Hooks(
        on_runtime=ui.attach,
        on_lobby=ui.set_lobby,
        commands=commands,
        transcript=transcript,
        on_saved=saved,
    )
    try:
        result = await _run_screen(start, ui, hooks)
    finally:
        for error in ui.screen_errors:  # the screen is gone: the full story, once each
            print(_("the screen failed (the game went on):") + f"\n{error}", file=sys.stderr)
    if ui.interrupted:  # Ctrl-C: the command ends as interrupted (one line, 130)
        raise KeyboardInterrupt
    if result is not None and ui.info.abandoned:  # before "game over: nobody wins"
        said = ui.info.abandoned
        said = said[0].lower() + said[1:]
        print(_("game abandoned: {why}").format(why=said), file=sys.stderr)
    return result


async def _run_screen(
    start: Callable[[Hooks], Awaitable[SeatResult]], ui: TableApp, hooks: Hooks
) -> SeatResult | None:
    game = asyncio.create_task(start(hooks))
    # the loop keeps the command's own handler (cli.running.quiet_loop): prompt_toolkit's
    # would stop the screen on the MQTT client's known races ("Press ENTER to continue")
    screen = asyncio.create_task(ui.app.run_async(set_exception_handler=False))
    done, _pending = await asyncio.wait([game, screen], return_when=asyncio.FIRST_COMPLETED)
    if game not in done and (ui.info.status == "over" or ui.halted()):
        if ui.runtime is not None:  # quit on the end screen: stop helping the others
            ui.runtime.stop_lingering()
        return await game
    if game not in done:  # the person quit during the game, or the table is another's
        if ui.runtime is not None and ui.refused is None:  # say so to the others, briefly
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ui.runtime.notices.say_leaving(), 3)
        await stop_tasks(game)
        if ui.refused is not None:
            raise ui.refused
        print(ui.left_message(), file=sys.stderr)
        return None
    result = game.result()
    ui.info.status = "over"
    ui.app.invalidate()
    await screen
    return result
