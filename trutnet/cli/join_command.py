"""``trutnet join``: take a seat at a table found on the LAN (or ``--broker`` and
``--table``, or a sealed table's invitation code), on the screen or as a bot
(``--bot``), and ``--resume`` a seat left mid-game. A table of another game, a full
one, a wrong password or a wrong code is refused in one line (exit status 1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from trutnet.cli.folders import (
    data_dir,
    player_identity,
    print_seats,
    resume_alone,
    store_error,
    unfinished_seats,
)
from trutnet.cli.games import ChoiceError, bot_of, game_named
from trutnet.cli.invitations import invitation_code, invited_table
from trutnet.cli.lan_tables import status_said, table_asked, wrong_game
from trutnet.cli.on_screen import game_over, seat_screen
from trutnet.cli.passwords import PasswordRefused, enter_private, let_in
from trutnet.cli.running import finish, printer, run_to_end, runtime_options
from trutnet.client.lobby_view import clock_rule_said
from trutnet.crypto.identity import fingerprint
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.net.broker import BrokerError, Endpoint, ExternalBroker, parse_broker_url
from trutnet.protocol.clock import ClockRule
from trutnet.protocol.invitation import Code
from trutnet.protocol.sealed_table import TableSeal
from trutnet.runtime.lobby_watch import JoinError, WrongGame, lobby_announcement, probe_broker
from trutnet.runtime.resuming import LoadedSeat, load_seat, resume
from trutnet.runtime.seat_process import JoinSetup, join
from trutnet.store import StoreError


def cmd_join(args: argparse.Namespace) -> int:

    emit = printer(args.json, args.name)
    game = game_named(args.game)  # the game asked for; a table of another is refused
    if args.resume:
        return _resume_seat(args, game, emit)
    if args.bot is not None:
        bot_of(game, args.bot)
    code = invitation_code(args.table_name, "join")
    if code is None and (args.broker is None) != (args.table is None):
        raise ChoiceError(_("--broker and --table go together"))
    if (problem := store_error("join", args.store)) is not None:
        print(problem, file=sys.stderr)
        return 2
    endpoint, table_id, private = _table_for(args, code, game)
    if code is None:
        enter_private(args, endpoint, table_id, private, "join")
    store = args.store
    if store is None and args.bot is None:  # a person: the seat's files for --resume
        store = data_dir() / "tables" / f"{table_id.hex()}-join"
    created = store is not None and not store.exists()
    try:
        run_to_end(probe_broker(endpoint))
        if args.bot is None:  # a person plays: the terminal client, once a host is seen
            announced = run_to_end(
                lobby_announcement(table_id, endpoint, args.lobby_timeout, _seal(args))
            )
            if announced["game"] != game.name:
                raise WrongGame(table_id, announced["game"], game.name)
            status = announced["status"]
            if status != "open":
                raise JoinError(
                    _("table {id} is {status}: every seat is taken").format(
                        id=table_id.hex(), status=status_said(status)
                    )
                )
            return _join_with_ui(args, table_id, endpoint, store, announced)
        # A bot asks for its seat at once; join() watches for the host meanwhile.
        return finish(
            run_to_end(
                join(
                    table_id,
                    [endpoint],
                    JoinSetup(
                        name=args.name,
                        bot_kind=args.bot,
                        store=store,
                        seed=args.seed,
                        options=runtime_options(args),
                        fallback=args.fallback or "",
                        lobby_timeout=args.lobby_timeout,
                        game=game.name,
                        table_key=args.table_key,
                    ),
                    on_event=emit,
                )
            ),
            args.json,
        )
    except WrongGame as exc:
        print(
            _("trutnet {command}: {problem}").format(command="join", problem=wrong_game(exc)),
            file=sys.stderr,
        )
        return 1
    except JoinError as exc:
        print(
            _("trutnet {command}: {problem}").format(command="join", problem=exc), file=sys.stderr
        )
        return 1
    finally:
        # A seat that never sat (no log) leaves no folder behind.
        if created and store is not None and not (store / "log.bin").exists():
            shutil.rmtree(store, ignore_errors=True)


def _table_for(
    args: argparse.Namespace, code: Code | None, game: Game
) -> tuple[Endpoint, bytes, bool]:
    """The table to join: the sealed one of an invitation ``code`` (its key kept as
    ``args.table_key``, 9.9), else the one named or found; and whether it is private."""
    args.table_key = args.password = None
    if code is None:
        return table_asked(args, "join", game.name)
    endpoint, welcome = invited_table(args, code, "join")
    args.table_key = welcome.key
    return endpoint, welcome.table, False


def _seal(args: argparse.Namespace) -> TableSeal | None:
    """The sealed or private table's (9.9, 9.10), for reading its lobby; None for an
    open table."""
    key = getattr(args, "table_key", None)
    return None if key is None else TableSeal(key, os.urandom)


def _resume_seat(args: argparse.Namespace, game: Game, emit: Any) -> int:
    """``join --resume``: the seat in ``--store`` (or the one seat left mid-game), back
    at its table, on the screen or played by ``--bot``. A sealed or private table's
    key is the one the seat's folder kept: no code or password is asked again."""
    if args.store is None:  # which seats it could be: say them, with their commands
        seats = unfinished_seats()
        if not seats:
            raise ChoiceError(
                _("--resume needs --store DIR (no seat left mid-game in {folder})").format(
                    folder=data_dir() / "tables"
                )
            )
        if len(seats) > 1:
            print(
                _("trutnet join: error: you left several seats mid-game; say which with --store:"),
                file=sys.stderr,
            )
            print_seats(seats, sys.stderr)
            return 2
        args.store, about = seats[0]  # the one seat left mid-game: that one
        print(
            _("trutnet join: back to the seat you left: {about}").format(about=about),
            file=sys.stderr,
        )
    try:
        endpoints = [ExternalBroker(args.broker).start()] if args.broker else None
        person = None if (args.store / "identity.key").exists() else player_identity()
        loaded = load_seat(args.store, person)  # checked before anything starts, read once
    except (BrokerError, StoreError) as exc:
        print(
            _("trutnet {command}: {problem}").format(command="join", problem=exc), file=sys.stderr
        )
        return 2
    state = loaded.peer.replica.state
    if state is not None:  # the seat's own files say which game it plays
        if "game" in getattr(args, "given", ()) and state.game.name != game.name:
            raise ChoiceError(
                _("the seat in {folder} plays {game}, not {asked}").format(
                    folder=args.store, game=state.game.name, asked=game.name
                )
            )
        game = state.game
    if args.bot is not None:
        bot_of(game, args.bot)
    if args.bot is None:  # the person takes their seat back, on screen
        return _resume_with_ui(args, endpoints, loaded, game.name)
    return finish(
        run_to_end(
            resume(
                args.store,
                endpoints,
                JoinSetup(
                    name=args.name,
                    bot_kind=args.bot,
                    options=runtime_options(args),
                ),
                loaded=loaded,
                on_event=emit,
            )
        ),
        args.json,
    )


def _join_with_ui(
    args: argparse.Namespace,
    table_id: bytes,
    endpoint: Endpoint,
    store: Path,
    announced: dict[str, Any],
) -> int:
    from trutnet.client.lobby_view import game_summary
    from trutnet.client.playing import play_with_ui
    from trutnet.discovery.browse import printable

    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    game = announced["game"]
    shown = printable(announced["name"], 40) or _("table {id}").format(id=table_id.hex()[:8])
    ui = seat_screen(game, shown, 0)
    ui.about = game_summary(ui.frontend.long_name, announced["variant"], announced["players"])
    ui.info.private, ui.info.table_seats = announced["private"], announced["players"]
    ui.info.hints = announced.get("hints", True)  # the host may ask for none
    options = runtime_options(args)
    if "clock" in announced:  # the host's clock (7.11), checked with its announcement
        options.clock = ClockRule.parse(announced["clock"])
        ui.info.clock = clock_rule_said(options.clock)
    ui.resume_alone = resume_alone(store)
    result = run_to_end(
        play_with_ui(
            lambda hooks: join(
                table_id,
                [endpoint],
                JoinSetup(
                    name=args.name,
                    bot_kind=None,
                    store=store,
                    seed=args.seed,
                    options=options,
                    fallback=args.fallback or "",
                    identity=player_identity(),
                    lobby_timeout=args.lobby_timeout,
                    game=game,
                    table_key=getattr(args, "table_key", None),
                ),
                hooks=hooks,
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        game_over(result, ui, store)
    following, runtime = ui.rematch.to, ui.runtime
    if isinstance(following, tuple) and runtime is not None and runtime.replica is not None:
        return _join_rematch(args, following, fingerprint(runtime.replica.seats[0]))
    return 0


def _join_rematch(
    args: argparse.Namespace, where: tuple[bytes, str, bytes | None], host: str
) -> int:
    """Everyone asked for a rematch and the host named its table (9.7): join it, on
    the screen, if that table's host is the one this table had. A sealed or private
    table's next one is sealed with the key the host named with it (in a sealed
    notice); a private table's host that named none is asked with the password held."""
    table_id, url, key = where
    password = getattr(args, "password", None)
    if key is None and getattr(args, "table_key", None) is not None and password is None:
        print(  # a sealed table's next one has a key, and a code, of its own
            _("trutnet join: no rematch here: the host's next table has a new code; ask for it"),
            file=sys.stderr,
        )
        return 1
    print(_("trutnet join: rematch: joining the next table"), file=sys.stderr)
    try:
        endpoint = parse_broker_url(url)
        if key is None and password is not None:  # a private table's next one (9.10)
            key = let_in(endpoint, table_id, password, watch=False)
        args.table_key = key
        announced = run_to_end(
            lobby_announcement(table_id, endpoint, args.lobby_timeout, _seal(args))
        )
    except (BrokerError, JoinError, PasswordRefused) as exc:
        print(_("trutnet join: no rematch: {why}").format(why=exc), file=sys.stderr)
        return 1
    if announced["host"] != host:
        print(
            _("trutnet join: no rematch: its table is not hosted by this table's host"),
            file=sys.stderr,
        )
        return 1
    store = data_dir() / "tables" / f"{table_id.hex()}-join"
    return _join_with_ui(args, table_id, endpoint, store, announced)


def _resume_with_ui(
    args: argparse.Namespace, endpoints: list[Endpoint] | None, loaded: LoadedSeat, game: str
) -> int:
    from trutnet.client.playing import play_with_ui

    ui = seat_screen(game, _("resumed table"), 0)
    ui.resume_alone = resume_alone(args.store)
    ui.info.clock = clock_rule_said(loaded.clock)
    transcript = data_dir() / "games" / f"{loaded.peer.replica.table_id.hex()}.json"
    result = run_to_end(
        play_with_ui(
            lambda hooks: resume(
                args.store,
                endpoints,
                JoinSetup(
                    name=args.name,
                    bot_kind=None,
                    options=runtime_options(args),
                ),
                loaded=loaded,
                hooks=hooks,
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        game_over(result, ui, args.store)
    return 0
