"""How a table command runs in this process and reports: :func:`run_to_end` (the
event loop, every task stopped at the end), one line per event (:func:`printer`, as
text or JSON with ``--json``), the last line (:func:`finish`), the runtime's options
from the arguments, the help's defaults (:class:`HelpFormatter`), SIGTERM as exit 143,
and the MQTT client's own debugging lines kept off a person's screen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import signal
import sys
from typing import Any

from trutnet.client.blame_words import blame_said
from trutnet.i18n import _
from trutnet.net.tasks import stop_tasks
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import SeatResult
from trutnet.selfplay import side_name


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except when there is none to show (no
    default, or an on/off flag); in the person's language, as argparse's own words."""

    def _get_help_string(self, action: argparse.Action) -> str:
        default, text = action.default, action.help or ""
        added = _(" (default: %(default)s)")  # what is added to a help: said in its words?
        said = "(default:" in text or added.split("%(")[0].strip() in text
        nothing = default in (None, argparse.SUPPRESS, "") or (
            isinstance(default, list | set | frozenset | tuple) and not default
        )
        if action.nargs == 0 or nothing or said:
            return text
        if "%(default)" in text:  # as argparse's: the help says where the default goes
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return text + added
        return text


def quiet_loop(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Keep the MQTT client's known races off a person's screen; anything else is shown.

    aiomqtt leaves a disconnect future unretrieved when a session is cancelled, and
    hands paho's socket to ``add_reader``/``add_writer`` from another thread, so that a
    socket the broker has just reset can be closed before the loop registers it (an
    ``OSError``/``KeyError`` in that callback). Either way the link reports the lost
    connection itself, in one line."""
    exception = context.get("exception")
    if "MqttCodeError" in repr(exception) or "MqttError" in repr(exception):
        return
    handle = repr(context.get("handle"))
    if isinstance(exception, (OSError, KeyError, ValueError)) and (
        "add_writer" in handle or "add_reader" in handle
    ):
        return
    loop.default_exception_handler(context)


def run_to_end(coro: Any) -> Any:
    """``asyncio.run(coro)``, then every task still running stopped, cancelled again
    until it ends: ``asyncio.run`` cancels them once, and a task whose cancellation a
    library swallowed (``asyncio.wait_for`` on Python 3.11 does, when what it waits
    for completes at the same moment) would keep the command from ever ending."""

    async def wrapper() -> Any:
        asyncio.get_running_loop().set_exception_handler(quiet_loop)
        try:
            return await coro
        finally:
            others = asyncio.all_tasks() - {asyncio.current_task()}
            await stop_tasks(*others)

    return asyncio.run(wrapper())


def printer(as_json: bool, who: str) -> Any:
    """One line per event. ``event`` and ``who`` are ours: data (a notice from the
    network, say) can never pass for another event, such as a ``result``."""

    def emit(kind: str, data: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps({**data, "event": kind, "who": who}, default=str), flush=True)
        else:
            print(f"[{who}] {kind}: {logfmt(data)}".rstrip(), flush=True)

    return emit


def logfmt(data: dict[str, Any]) -> str:
    """An event's fields for a person, one ``key=value`` each: a word as it is, any
    other text quoted (so a name with spaces or "=" stays one value), numbers, flags
    and lists as JSON; a character that is not printable (a terminal escape sent by
    someone on the network) is written as ``\\uXXXX``."""
    words = []
    for key, value in data.items():
        if isinstance(value, str) and value and re.fullmatch(r"[\w.:/@+-]+", value):
            text = value
        else:
            text = json.dumps(value, default=str, ensure_ascii=False)
        text = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)  # no escapes
        words.append(f"{key}={text}")
    return " ".join(words)


def stopped_said(result: SeatResult) -> str:
    """Where and why the table stopped without its end: the seat blamed, by name, and
    what it did, in the person's language; or why this process gave up."""
    why, blame = result.halted, result.blame
    if blame is not None:
        why = blame_said(blame["seat"], blame["rule"], result.names or ())
    said = _("the table stopped in hand {hands}, after {entries} entries: {why}")
    return said.format(hands=result.hands, entries=result.entries, why=why)


def finish(result: SeatResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"event": "result", **result.to_dict()}), flush=True)
    elif result.halted:  # not a game over: say so, and why
        print(stopped_said(result))
    else:
        print(
            _("game over: {side} wins, {hands} hands, {entries} entries, state {state}").format(
                side=side_name(result.teams, result.winner),
                hands=result.hands,
                entries=result.entries,
                state=result.state_hash[:16],
            )
        )
    return 0 if result.halted is None else 1


def runtime_options(args: argparse.Namespace) -> Options:
    return Options(
        stall_timeout=args.stall_timeout,
        void_timeout=args.void_timeout,
        takers=tuple(args.accept_taker),
        give_up_after=args.give_up_after,
        # a newcomer or a spectator left with no broker gives up like one with no host
        follow_timeout=getattr(args, "lobby_timeout", Options.follow_timeout),
        linger=args.linger,
        stamp_entries=getattr(args, "stamp_entries", False),
        clock=getattr(args, "clock", None),  # a host's; a joiner's comes from the lobby
        bot_on_timeout=getattr(args, "bot_on_timeout", False),
    )


def install_signal_exit() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


# The MQTT client's own lines (paho's "failed to receive on socket: ...", through
# aiomqtt's default "mqtt" logger, for every client a command opens) are for debugging:
# a command reports a lost broker itself, in one line.
for _name in ("aiomqtt", "mqtt"):
    logging.getLogger(_name).setLevel(logging.CRITICAL)
