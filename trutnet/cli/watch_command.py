"""``trutnet watch``: follow a table as a spectator, on the screen, or its events
one JSON line each (``--json``); the transcript of a watched game is saved too. A
sealed table is watched by its invitation code (``trutnet watch 7-purple-sausage``),
which gives a spectator the table's key also once its seats are taken.
"""

from __future__ import annotations

import argparse
import os
import sys

from trutnet.cli.folders import data_dir, player_identity
from trutnet.cli.games import ChoiceError
from trutnet.cli.invitations import invitation_code, invited_table
from trutnet.cli.lan_tables import table_asked
from trutnet.cli.on_screen import game_over, need_terminal
from trutnet.cli.passwords import enter_private
from trutnet.cli.running import finish, printer, run_to_end
from trutnet.i18n import N_, _
from trutnet.net.broker import Endpoint
from trutnet.protocol.sealed_table import TableSeal
from trutnet.runtime.lobby_watch import JoinError, lobby_status, probe_broker
from trutnet.runtime.options import Options
from trutnet.runtime.seat_process import JoinSetup


def cmd_watch(args: argparse.Namespace) -> int:
    """Follow a table as a spectator: on screen, or its events with ``--json``."""
    from trutnet.runtime.watch import watch

    code = invitation_code(args.table_name, "watch")
    if code is None and (args.broker is None) != (args.table is None):
        raise ChoiceError(_("--broker and --table go together"))
    args.table_key = None
    if code is None:
        endpoint, table_id, private = table_asked(args, "watch")
        enter_private(args, endpoint, table_id, private, "watch", watch=True)  # 9.10
    else:  # a sealed table: its code gives a spectator its id and key too (9.9)
        endpoint, welcome = invited_table(args, code, "watch", watch=True)
        table_id, args.table_key = welcome.table, welcome.key
    options = Options(stall_timeout=args.stall_timeout, give_up_after=args.give_up_after)
    seal = None if args.table_key is None else TableSeal(args.table_key, os.urandom)
    try:
        run_to_end(probe_broker(endpoint))
        run_to_end(lobby_status(table_id, endpoint, args.lobby_timeout, seal))  # a host is there
        if args.json:
            emit = printer(True, args.name)
            start = watch(table_id, [endpoint], _setup(args, options), on_event=emit)
            return finish(run_to_end(start), True)
        return _watch_with_ui(args, table_id, endpoint, options)
    except JoinError as exc:
        print(
            _("trutnet {command}: {problem}").format(command="watch", problem=exc), file=sys.stderr
        )
        return 1


def _watch_with_ui(
    args: argparse.Namespace,
    table_id: bytes,
    endpoint: Endpoint,
    options: Options,
) -> int:
    from trutnet.client.playing import play_with_ui
    from trutnet.client.watch_app import WatchApp
    from trutnet.runtime.watch import watch

    need_terminal(N_("run it in a terminal, or follow the table as lines with --json"))
    transcript = data_dir() / "games" / f"{table_id.hex()}-watched.json"
    ui = WatchApp(_("table {id}").format(id=table_id.hex()[:8]))
    result = run_to_end(
        play_with_ui(
            lambda hooks: watch(table_id, [endpoint], _setup(args, options), hooks=hooks),
            ui,
            transcript,
        )
    )
    if result is not None:
        game_over(result, ui)
    return 0


def _setup(args: argparse.Namespace, options: Options) -> JoinSetup:
    """How this spectator sits at the table: its name, the person's key, the timers."""
    return JoinSetup(
        name=args.name,
        identity=player_identity(),
        options=options,
        lobby_timeout=args.lobby_timeout,
        table_key=args.table_key,
    )
