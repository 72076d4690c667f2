"""The commands that sit at a table over the network: ``host``, ``join``, ``play``,
``watch``, ``tables`` and ``selfplay --transport mqtt``, their arguments, and the
person's own folders (key, transcripts, seats' files): ``games`` lists the seats left
mid-game and the saved games, and a table's folder is removed once its game is saved.

``play``, ``join`` without ``--bot`` and ``watch`` without ``--json`` put the terminal
client (:mod:`trutnet.client`) on screen, with the front-end of the table's game.
The others print one JSON line per event with ``--json`` (for tests and scripts), or
readable lines otherwise. ``host``, ``join`` and ``play`` take ``--game``
(:mod:`trutnet.cli.games`); ``join`` refuses a table of another game. Every argument is
checked by its argparse type (a bad one gets one clear line and exit status 2); a
table that cannot be joined gets one clear line and exit status 1, and when the table
asked for is not there (a misspelt name, only tables of other games) the tables that
are, each with the command that joins it. A private table's password is typed twice
by its host, and asked again when a joiner types it wrong; it is never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from trutnet.bots import default_bot
from trutnet.cli.arguments import bounded, whole
from trutnet.cli.games import (
    DEFAULT_GAME,
    ChoiceError,
    bot_of,
    config_arguments,
    describe,
    game_argument,
    game_named,
    game_of,
)

# The games' options, built from their declarations: re-exported for a command's parser.
from trutnet.cli.games import config_options as config_options
from trutnet.cli.games import game_options as game_options
from trutnet.cli.games import variant_option as variant_option
from trutnet.crypto.identity import Identity
from trutnet.discovery.interfaces import lan_address, reachable
from trutnet.engine.api import Game
from trutnet.keystore import load_or_create_identity
from trutnet.net.broker import (
    BrokerError,
    EmbeddedBroker,
    Endpoint,
    ExternalBroker,
    parse_broker_url,
)
from trutnet.net.tasks import stop_tasks
from trutnet.protocol.lobby import (
    MAX_NAME,
    LobbyError,
    check_fallback,
    check_name,
    default_table_name,
    table_id_for,
)
from trutnet.runtime.seat_process import (
    LOBBY_TIMEOUT,
    JoinError,
    SeatResult,
    WrongGame,
    announced_table,
    host,
    join,
    load_seat,
    lobby_announcement,
    lobby_status,
    probe_broker,
    resume,
)
from trutnet.runtime.table_runtime import Options
from trutnet.selfplay import side_name, who_won
from trutnet.store import StoreError, private_dir


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except when there is none to show (no
    default, or an on/off flag)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        default = action.default
        said = "(default:" in (action.help or "")  # the help says it in its own words
        if action.nargs == 0 or default in (None, argparse.SUPPRESS, [], "") or said:
            return action.help or ""
        return super()._get_help_string(action) or ""


def _quiet_loop(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
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


def _run(coro: Any) -> Any:
    """``asyncio.run(coro)``, then every task still running stopped, cancelled again
    until it ends: ``asyncio.run`` cancels them once, and a task whose cancellation a
    library swallowed (``asyncio.wait_for`` on Python 3.11 does, when what it waits
    for completes at the same moment) would keep the command from ever ending."""

    async def wrapper() -> Any:
        asyncio.get_running_loop().set_exception_handler(_quiet_loop)
        try:
            return await coro
        finally:
            others = asyncio.all_tasks() - {asyncio.current_task()}
            await stop_tasks(*others)

    return asyncio.run(wrapper())


def _printer(as_json: bool, who: str) -> Any:
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


def _finish(result: SeatResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"event": "result", **result.to_dict()}), flush=True)
    elif result.halted:  # not a game over: say so, and why
        print(
            f"the table stopped in hand {result.hands}, after {result.entries} entries: "
            f"{result.halted}"
        )
    else:
        print(
            f"game over: {side_name(result.teams, result.winner)} wins, {result.hands} hands, "
            f"{result.entries} entries, state {result.state_hash[:16]}"
        )
    return 0 if result.halted is None else 1


def _options(args: argparse.Namespace) -> Options:
    return Options(
        stall_timeout=args.stall_timeout,
        void_timeout=args.void_timeout,
        takers=tuple(args.accept_taker),
        give_up_after=args.give_up_after,
        # a newcomer or a spectator left with no broker gives up like one with no host
        follow_timeout=getattr(args, "lobby_timeout", Options.follow_timeout),
        linger=args.linger,
        stamp_entries=getattr(args, "stamp_entries", False),
    )


PASSWORD_TRIES = 3  # a password typed wrong (or two that differ) is asked again, this often


def _password(args: argparse.Namespace, needed: bool = False, confirm: bool = False) -> str | None:
    """The table password with ``--private`` (or ``needed``: a private table was
    picked), from the environment or the terminal; None for an open table.
    ``confirm`` (the host's): typed on a terminal, it is typed twice, and asked again
    when the two differ. :class:`PasswordError` if there is none to be had."""
    from trutnet.net.private import PasswordError, table_password

    if not (getattr(args, "private", False) or needed):
        return None
    if not (confirm and _typed()):
        return table_password()
    for _ in range(PASSWORD_TRIES):
        password = table_password()
        if table_password("Table password again: ") == password:
            return password
        print("The two passwords differ; type it again.", file=sys.stderr)
    raise PasswordError(f"the two passwords differed {PASSWORD_TRIES} times")


def _typed() -> bool:
    """Whether a table password is asked on the terminal (rather than read from
    ``$TRUTNET_TABLE_PASSWORD``, or not to be had)."""
    from trutnet.net.private import PASSWORD_ENV

    return os.environ.get(PASSWORD_ENV) is None and sys.stdin.isatty()


def _let_in(endpoint: Endpoint, password: str | None) -> str | None:
    """The password the table's broker takes: ``password`` if it does; when it does
    not and the password is typed on a terminal, the person is told and asked again
    (at most :data:`PASSWORD_TRIES` times), or asked for it when it was not given (a
    seat resumed at a private table: the command printed for it has no --private).
    :class:`JoinError` saying why otherwise; the password itself is never printed."""
    from trutnet.net.private import check_access, table_password

    for tries in range(1, PASSWORD_TRIES + 1):
        why = _run(check_access(endpoint, password))
        if why is None:
            return password
        if not _typed():
            break
        if tries == PASSWORD_TRIES:
            why += f" ({PASSWORD_TRIES} tries)"
            break
        if password is None:
            print("This table is private: type its password.", file=sys.stderr)
        else:
            print("Wrong table password; type it again.", file=sys.stderr)
        password = table_password()
    raise JoinError(why)


def _broker_event(
    broker: EmbeddedBroker | ExternalBroker, endpoint: Endpoint, private: bool
) -> dict[str, Any]:
    kind = broker.kind if isinstance(broker, EmbeddedBroker) else "external"
    return {"broker": endpoint.url, "kind": kind, "private": private}


def cmd_host(args: argparse.Namespace) -> int:
    from trutnet.net.private import PasswordError

    game = game_of(args)
    bot_kind = default_bot(game.name)  # the bots seated in empty seats: the game's best
    host_bot = bot_of(game, args.bot)
    if not 0 <= args.bots < game.num_players():
        raise ChoiceError(f"--bots is 0..{game.num_players() - 1}")
    if (problem := _store_error("host", args.store)) is not None:
        print(problem, file=sys.stderr)
        return 2
    given_bind = args.bind is not None
    args.bind = args.bind or lan_address()
    if args.inprocess_broker:
        args.broker, args.announce = f"mqtt://{args.bind}:{args.port}", False
    if not args.broker and not reachable(args.bind):  # friends cannot reach it: say so
        why = _unreachable(args.bind, given_bind, args.announce)
        print(f"trutnet host: {why}", file=sys.stderr)
    try:
        password = _password(args, confirm=True)
        broker = (
            ExternalBroker(args.broker)
            if args.broker
            else EmbeddedBroker(args.bind, args.port, password=password)
        )
        endpoint = broker.start()
        if args.broker and not args.inprocess_broker:
            _run(probe_broker(endpoint, password=password))
    except (BrokerError, PasswordError, JoinError) as exc:
        print(f"trutnet host: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, BrokerError) else 1
    emit = _printer(args.json, "host")
    announcer = None
    if args.announce and not args.broker:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(args.bind)
    said: list[bool] = []
    try:

        def on_announce(message: dict[str, Any]) -> None:
            emit("table", message)
            if not said:  # which broker serves the table, once, after the first line
                said.append(True)
                emit("broker", _broker_event(broker, endpoint, password is not None))
            if announcer is not None:
                announcer.update(message, endpoint)

        result = _run(
            host(
                game,
                [endpoint],
                name=args.name,
                table_name=args.table_name,
                bots=args.bots,
                bot_kind=bot_kind,
                host_bot=host_bot,
                store=args.store,
                seed=args.seed,
                options=_options(args),
                on_event=emit,
                on_announce=on_announce,
                inprocess_broker=args.inprocess_broker,
                own_broker=isinstance(broker, EmbeddedBroker),
                password=password,
                hints=args.hints,
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        broker.stop()
    return _finish(result, args.json)


def cmd_join(args: argparse.Namespace) -> int:
    from trutnet.net.private import PasswordError

    emit = _printer(args.json, args.name)
    game = game_named(args.game)  # the game asked for; a table of another is refused
    if args.resume:
        if args.store is None:  # which seats it could be: say them, with their commands
            seats = unfinished_seats()
            if not seats:
                raise ChoiceError(
                    f"--resume needs --store DIR (no seat left mid-game in {data_dir() / 'tables'})"
                )
            if len(seats) > 1:
                print(
                    "trutnet join: error: you left several seats mid-game; say which with --store:",
                    file=sys.stderr,
                )
                _print_seats(seats, sys.stderr)
                return 2
            args.store, about = seats[0]  # the one seat left mid-game: that one
            print(f"trutnet join: back to the seat you left: {about}", file=sys.stderr)
        try:
            endpoints = [ExternalBroker(args.broker).start()] if args.broker else None
            person = None if (args.store / "identity.key").exists() else player_identity()
            loaded = load_seat(args.store, person)  # checked before anything starts, read once
            args.password = _password(args)
        except (BrokerError, StoreError, PasswordError) as exc:
            print(f"trutnet join: {exc}", file=sys.stderr)
            return 2
        state = loaded[1].replica.state
        if state is not None:  # the seat's own files say which game it plays
            if "game" in getattr(args, "given", ()) and state.game.name != game.name:
                raise ChoiceError(
                    f"the seat in {args.store} plays {state.game.name}, not {game.name}"
                )
            game = state.game
        if args.bot is not None:
            bot_of(game, args.bot)
        try:
            args.password = _let_in((endpoints or [loaded[2]])[0], args.password)
        except (JoinError, PasswordError) as exc:
            print(f"trutnet join: {exc}", file=sys.stderr)
            return 1
        if args.bot is None:  # the person takes their seat back, on screen
            return _resume_with_ui(args, endpoints, loaded, game.name)
        return _finish(
            _run(
                resume(
                    args.store,
                    endpoints,
                    args.bot,
                    _options(args),
                    emit,
                    name=args.name,
                    loaded=loaded,
                    password=args.password,
                )
            ),
            args.json,
        )
    if args.bot is not None:
        bot_of(game, args.bot)
    if (args.broker is None) != (args.table is None):
        raise ChoiceError("--broker and --table go together")
    if (problem := _store_error("join", args.store)) is not None:
        print(problem, file=sys.stderr)
        return 2
    if args.broker is not None:
        endpoint, table_id = parse_broker_url(args.broker), bytes.fromhex(args.table)
        private = False
    else:
        try:
            found = choose_table(args, game=game.name)
        except (_NoLan, _OtherGames) as exc:
            print(exc, file=sys.stderr)
            return 1
        except WrongGame as exc:
            print(f"trutnet join: {_wrong_game(exc)}", file=sys.stderr)
            return 1
        if found is None:
            print("trutnet join: no open table found on the LAN", file=sys.stderr)
            return 1
        endpoint, table_id, private = found
    try:
        args.password = _password(args, needed=private)
    except PasswordError as exc:
        print(f"trutnet join: {exc}", file=sys.stderr)
        return 2
    try:
        if args.password is not None:  # without one, the broker's probe says what to do
            args.password = _let_in(endpoint, args.password)
    except (JoinError, PasswordError) as exc:
        print(f"trutnet join: {exc}", file=sys.stderr)
        return 1
    store = args.store
    if store is None and args.bot is None:  # a person: the seat's files for --resume
        store = data_dir() / "tables" / f"{table_id.hex()}-join"
    created = store is not None and not store.exists()
    try:
        _run(probe_broker(endpoint, password=args.password))
        if args.bot is None:  # a person plays: the terminal client, once a host is seen
            announced = _run(
                lobby_announcement(table_id, endpoint, args.lobby_timeout, args.password)
            )
            if announced["game"] != game.name:
                raise WrongGame(table_id, announced["game"], game.name)
            status = announced["status"]
            if status != "open":
                raise JoinError(f"table {table_id.hex()} is {status}: every seat is taken")
            return _join_with_ui(args, table_id, endpoint, store, announced)
        # A bot asks for its seat at once; join() watches for the host meanwhile.
        return _finish(
            _run(
                join(
                    table_id,
                    [endpoint],
                    args.name,
                    args.bot,
                    store,
                    args.seed,
                    _options(args),
                    emit,
                    fallback=args.fallback or "",
                    lobby_timeout=args.lobby_timeout,
                    password=args.password,
                    game=game.name,
                )
            ),
            args.json,
        )
    except WrongGame as exc:
        print(f"trutnet join: {_wrong_game(exc)}", file=sys.stderr)
        return 1
    except JoinError as exc:
        print(f"trutnet join: {exc}", file=sys.stderr)
        return 1
    finally:
        # A seat that never sat (no log) leaves no folder behind.
        if created and store is not None and not (store / "log.bin").exists():
            shutil.rmtree(store, ignore_errors=True)


def _wrong_game(exc: WrongGame) -> str:
    """A table of another game, in one line that says how to join it."""
    return f"{exc}: join it with --game {exc.game}"


def cmd_watch(args: argparse.Namespace) -> int:
    """Follow a table as a spectator: on screen, or its events with ``--json``."""
    from trutnet.net.private import PasswordError
    from trutnet.runtime.watch import watch

    if (args.broker is None) != (args.table is None):
        raise ChoiceError("--broker and --table go together")
    if args.broker is not None:
        endpoint, table_id = parse_broker_url(args.broker), bytes.fromhex(args.table)
        private = False
    else:
        try:
            found = choose_table(args, ("open", "playing"), "watch")
        except (_NoLan, _OtherGames) as exc:
            print(exc, file=sys.stderr)
            return 1
        if found is None:
            print("trutnet watch: no table found on the LAN", file=sys.stderr)
            return 1
        endpoint, table_id, private = found
    try:
        password = _password(args, needed=private)
    except PasswordError as exc:
        print(f"trutnet watch: {exc}", file=sys.stderr)
        return 2
    try:
        if password is not None:  # without one, the broker's probe says what to do
            password = _let_in(endpoint, password)
    except (JoinError, PasswordError) as exc:
        print(f"trutnet watch: {exc}", file=sys.stderr)
        return 1
    options = Options(stall_timeout=args.stall_timeout, give_up_after=args.give_up_after)
    try:
        _run(probe_broker(endpoint, password=password, command="watch"))
        _run(lobby_status(table_id, endpoint, args.lobby_timeout, password))  # a host is there
        if args.json:
            emit = _printer(True, args.name)
            start = watch(
                table_id,
                [endpoint],
                args.name,
                player_identity(),
                options,
                emit,
                password=password,
                lobby_timeout=args.lobby_timeout,
            )
            return _finish(_run(start), True)
        return _watch_with_ui(args, table_id, endpoint, password, options)
    except JoinError as exc:
        print(f"trutnet watch: {exc}", file=sys.stderr)
        return 1


def _watch_with_ui(
    args: argparse.Namespace,
    table_id: bytes,
    endpoint: Endpoint,
    password: str | None,
    options: Options,
) -> int:
    from trutnet.client.app import WatchApp, play_with_ui
    from trutnet.runtime.watch import watch

    transcript = data_dir() / "games" / f"{table_id.hex()}-watched.json"
    ui = WatchApp(f"table {table_id.hex()[:8]}")
    result = _run(
        play_with_ui(
            lambda hooks: watch(
                table_id,
                [endpoint],
                args.name,
                player_identity(),
                options,
                hooks=hooks,
                password=password,
                lobby_timeout=args.lobby_timeout,
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        _game_over(result, ui)
    return 0


class _OtherGames(Exception):
    """No table to take: tables of other games only, a name that no table has, or a
    table named that cannot be taken now. The message lists what there is."""


SHOWN = 5  # tables listed when the one asked for is not there; the others are counted


def join_command(table: Any, command: str = "join", by_id: bool = False) -> str:
    """The command that joins (or watches) ``table``, as a person types it: by its
    name, or by its table id when ``by_id`` (another table has the same name); with
    ``--game`` for a table of another game than the default, ``--private`` for a
    private one."""
    words = ["trutnet", command, table.table if by_id else shell_word(table.name)]
    if command == "join" and table.game != DEFAULT_GAME:
        words += ["--game", table.game]
    return " ".join([*words, *(["--private"] if table.private else [])])


def shell_word(text: str) -> str:
    """``text`` as one word of a shell command, quoted the way a person would:
    ``"Ana's table"`` rather than ``'Ana'"'"'s table'``."""
    import shlex

    if re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    if not re.search(r'["$`\\!]', text):
        return f'"{text}"'
    return shlex.quote(text)


def _about_table(table: Any, private: bool = True) -> str:
    """``trut classic, seats 1/4, open, private``: a found table in a few words
    (``private``: say so, unless the command beside it does)."""
    d = table.to_dict()
    game = " ".join(w for w in (d["game"], d["variant"]) if w)
    said = ", private" if d["private"] and private else ""
    return f"{game}, seats {d['seats']}, {d['status']}{said}"


def _listed(tables: list[Any], command: str) -> list[str]:
    """One line per table (at most :data:`SHOWN`, the others counted): the command
    that takes it, then what it is; two lines when that does not fit 80 columns."""
    names = [t.name for t in tables]
    lines = []
    for t in tables[:SHOWN]:
        how, about = join_command(t, command, names.count(t.name) > 1), _about_table(t, False)
        if len(f"  {how}   ({about})") <= 80:
            lines.append(f"  {how}   ({about})")
        else:  # the command whole, what the table is under it
            lines += [*wrap_command(how, "  "), f"    ({about})"[:80]]
    if len(tables) > SHOWN:
        lines.append(f"  and {len(tables) - SHOWN} more: trutnet tables lists them all")
    return lines


def _closest(name: str, tables: list[Any]) -> list[Any]:
    """``tables``, the names most like ``name`` first (a misspelt name's table on top)."""
    from difflib import SequenceMatcher

    def likeness(t: Any) -> float:
        return SequenceMatcher(None, name.casefold(), t.name.casefold()).ratio()

    return sorted(tables, key=likeness, reverse=True)


def choose_table(
    args: argparse.Namespace,
    statuses: tuple[str, ...] = ("open",),
    command: str = "join",
    game: str | None = None,
) -> tuple[Endpoint, bytes, bool] | None:
    """List the tables found on the LAN (of ``statuses``: open ones, to join; of
    ``game``, unless None) and take the one named, the one the person picks (on a
    terminal), or the first; with whether it is private. A table named that plays
    another game: :class:`WrongGame`. :class:`_OtherGames`, listing the tables there
    are and how to take them: a name that no table has, or tables of other games only."""
    live = [t for t in _search_lan(args, command) if t.live]
    tables = [t for t in live if t.live.get("status") in statuses]
    if args.table_name is not None:
        asked = args.table_name
        named = [t for t in tables if asked in (t.name, t.table)]
        if not named and any(asked in (t.name, t.table) for t in live):
            status = next(t for t in live if asked in (t.name, t.table)).live.get("status")
            why = "every seat is taken" if status == "playing" else f"it is {status}"
            watch = f" (watch it: trutnet watch {shell_word(asked)})" if command == "join" else ""
            raise _OtherGames(f"trutnet {command}: the table {asked!r} is {status}: {why}{watch}")
        if not named and live:
            raise _OtherGames(
                "\n".join(
                    [
                        f"trutnet {command}: no table named {asked!r} on the LAN; "
                        f"{'the one' if len(live) == 1 else 'those'} found:",
                        *_listed(_closest(asked, live), command),
                    ]
                )
            )
        tables = named
    mine = [t for t in tables if game is None or t.game == game]
    if tables and not mine and game is not None:
        if args.table_name is not None:
            found = tables[0]
            raise WrongGame(bytes.fromhex(found.table), found.game, game, args.table_name)
        if len(tables) == 1:
            raise _OtherGames(
                f"trutnet {command}: no {' or '.join(statuses)} {game} table on the LAN; "
                f"the only one plays {tables[0].game}:\n" + "\n".join(_listed(tables, command))
            )
        raise _OtherGames(
            "\n".join(
                [
                    f"trutnet {command}: no {' or '.join(statuses)} {game} table on the LAN; "
                    "tables of other games:",
                    *_listed(tables, command),
                ]
            )
        )
    tables = mine
    if not tables:
        return None
    if not args.json:
        for number, t in enumerate(tables, start=1):
            line = f"  {number}. {t.name}   ({_about_table(t)})"
            print(line if len(line) <= 80 else f"{line[:78]}…)", file=sys.stderr)
    pick = 0
    if len(tables) > 1 and sys.stdin.isatty():
        answer = input(f"{command.title()} which table? [1-{len(tables)}, default 1] ").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            pick = int(answer) - 1
    chosen = tables[pick]
    return chosen.endpoint, bytes.fromhex(chosen.table), chosen.private


def cmd_selfplay_mqtt(args: argparse.Namespace, game: Game, bots: list[str]) -> int:
    """Bot peers as separate OS processes over the embedded broker or ``--broker``;
    ``bots[seat]``: each seat's bot."""
    players = game.num_players()
    broker = ExternalBroker(args.broker) if args.broker else EmbeddedBroker()
    endpoint: Endpoint = broker.start()
    workdir = Path(tempfile.mkdtemp(prefix="trutnet-selfplay-"))
    results = []
    try:
        for number in range(1, args.games + 1):
            seed = f"{args.seed}/{number}"
            base = [sys.executable, "-m", "trutnet"]
            common = ["--seed", seed, "--json", "--stall-timeout", "60"]
            procs = [
                subprocess.Popen(
                    [
                        *base,
                        "host",
                        *config_arguments(game),
                        "--bot",
                        bots[0],
                        "--broker",
                        endpoint.url,
                        "--no-announce",
                        "--name",
                        "seat0",
                        "--store",
                        str(workdir / f"g{number}-host"),
                        *common,
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            ]
            try:
                table, early = announced_table(procs[0])
            except RuntimeError as exc:
                print(f"game {number}: {exc}", file=sys.stderr)
                return 1
            for k in range(1, players):
                procs.append(
                    subprocess.Popen(
                        [
                            *base,
                            "join",
                            "--game",
                            game.name,
                            "--bot",
                            bots[k],
                            "--broker",
                            endpoint.url,
                            "--table",
                            table,
                            "--name",
                            f"seat{k}",
                            "--store",
                            str(workdir / f"g{number}-p{k}"),
                            *common,
                        ],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                )
            finals = []
            for index, proc in enumerate(procs):
                out, err = proc.communicate(timeout=600)
                out = "".join(early) + out if index == 0 else out
                lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
                final = [x for x in lines if x.get("event") == "result" and "who" not in x]
                if proc.returncode != 0 or not final:
                    print(f"a peer failed (exit {proc.returncode}): {err[-2000:]}", file=sys.stderr)
                    return 1
                finals.append(final[0])
            hashes = {f["state_hash"] for f in finals}
            if len(hashes) != 1:
                print(f"game {number}: peers disagree: {hashes}", file=sys.stderr)
                return 1
            results.append(finals[0])
            if args.verbose and not args.json:
                print(
                    f"game {number}: {players} processes agree on "
                    f"{finals[0]['state_hash'][:16]}, {finals[0]['hands']} hands"
                )
    finally:
        broker.stop()
    wins = [0] * len(game.teams())
    for r in results:
        if r["winner"] is not None:
            wins[r["winner"]] += 1
    hands = sum(r["hands"] for r in results)
    summary = {
        "transport": "mqtt",
        "broker": endpoint.url if args.broker else "embedded",
        "game": game.name,
        **game.config_dict(),
        "players": players,
        "games": len(results),
        "hands": hands,
        "wins": wins,
        "seed": args.seed,
        "mean_hands_per_game": round(hands / len(results), 3),
    }
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(
            f"{describe(game)[0]} over MQTT ({summary['broker']}), {players} peer processes: "
            f"games {summary['games']}, hands {hands}, wins {wins}"
        )
    return 0


def person_name() -> str:
    """The name a person gets at a table unless they give one: their login name, else
    this machine's name (each cut to what the lobby accepts); "Player" only when
    neither can be had."""
    import getpass
    import socket

    candidates = []
    with contextlib.suppress(Exception):  # no login name in the environment or passwd
        candidates.append(getpass.getuser())
    with contextlib.suppress(OSError):
        candidates.append(socket.gethostname().split(".")[0])
    for candidate in candidates:
        name = "".join(c for c in candidate if c.isprintable()).strip()[:MAX_NAME]
        if name:
            return name
    return "Player"


def player_identity() -> Identity:
    """The player's own key, the same for every game (``~/.config/trutnet``), so that
    others can recognise its fingerprint. Created with mode 0600, in a 0700 folder."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    folder = private_dir(Path(base) / "trutnet", fix_mode=True)
    return load_or_create_identity(folder / "identity.key")


def data_dir() -> Path:
    """trutnet's own data folder (transcripts in ``games``, seats' files in ``tables``),
    mode 0700 with its subfolders, also when an older version made them 0755."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    root = private_dir(Path(base) / "trutnet", fix_mode=True)
    for sub in ("games", "tables"):
        private_dir(root / sub, fix_mode=True)
    return root


def _unreachable(bind: str, given: bool, announce: bool) -> str:
    """One line: the table's broker is bound where only this machine reaches it (and
    its announcement, made on that address alone, is seen by this machine alone)."""
    why = "--bind " + bind if given else f"this machine has no LAN interface up, only {bind}"
    told = "; it is announced to this machine only" if announce else ""
    return f"only this machine can reach the table ({why}){told}"


PLAY_BOT = "hard"  # the level of the bots ``play`` seats unless told


def cmd_play(args: argparse.Namespace) -> int:
    """Host a table with the terminal client: lobby, bots, then the game."""
    from trutnet.client.app import play_with_ui

    game = game_of(args)
    # a person plays against the strongest bot that decides fast enough (issue 21's
    # goals: the search bot, tens of milliseconds a decision)
    bot_kind = bot_of(game, args.bot or PLAY_BOT)
    if (problem := _store_error("play", args.store)) is not None:
        print(problem, file=sys.stderr)
        return 2
    ui = _screen(game.name, table_name="", players=game.num_players(), about=_about(game))
    if not 0 <= args.bots < game.num_players():
        raise ChoiceError(f"--bots is 0..{game.num_players() - 1}")
    from trutnet.net.private import PasswordError

    bind = args.bind or lan_address()
    if not reachable(bind):  # friends cannot reach it: the lobby says so, in one line
        ui.info.message = _unreachable(bind, args.bind is not None, args.announce)
    try:
        password = _password(args, confirm=True)
        broker = EmbeddedBroker(bind, args.port, password=password)
        endpoint = broker.start()
    except (BrokerError, PasswordError) as exc:
        print(f"trutnet play: {exc}", file=sys.stderr)
        return 2
    identity, nonce = player_identity(), os.urandom(16)
    table_id = table_id_for(identity.public, nonce)
    store = args.store or data_dir() / "tables" / table_id.hex()
    created = not store.exists()
    ui.resume_alone = resume_alone(store)
    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    table_name = args.table_name or default_table_name(args.name)
    announcer = None
    if args.announce:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(bind)

    def on_announce(message: dict[str, Any]) -> None:
        if announcer is not None:
            announcer.update(message, endpoint)

    ui.table_name = table_name
    ui.info.private, ui.info.hints = password is not None, args.hints
    where = None if args.announce else (endpoint, table_id)
    ui.info.join_how = [_how_to_join(game, table_name, password is not None, where)]
    try:
        result = _run(
            play_with_ui(
                lambda hooks: host(
                    game,
                    [endpoint],
                    name=args.name,
                    table_name=table_name,
                    bots=args.bots,
                    bot_kind=bot_kind,
                    host_bot=None,
                    store=store,
                    seed=args.seed,
                    options=_options(args),
                    nonce=nonce,
                    hooks=hooks,
                    on_announce=on_announce,
                    identity=identity,
                    own_broker=True,
                    password=password,
                    hints=args.hints,
                ),
                ui,
                transcript,
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        broker.stop()
        # A table that never opened (the person left the lobby) leaves no folder.
        if created and not (store / "seat-0" / "log.bin").exists():
            shutil.rmtree(store, ignore_errors=True)
    if result is not None:
        _game_over(result, ui, store / "seat-0")
    return 0


def _how_to_join(
    game: Game, table_name: str, private: bool, where: tuple[Endpoint, bytes] | None
) -> str:
    """The host's lobby line that tells friends how to join: the command, by the
    table's name when it is announced on the LAN, else (``where``) by its broker and
    table id."""
    words = ["trutnet", "join", shell_word(table_name) if where is None else ""]
    words += ["--game", game.name] if game.name != DEFAULT_GAME else []
    if where is not None:
        words += ["--broker", where[0].url, "--table", where[1].hex()]
    words += ["--private"] if private else []
    how = " ".join(w for w in words if w)
    if where is None:
        return f"Friends join with: {how}"
    return f"Not announced on the LAN; friends join with: {how}"


def _about(game: Game) -> str:
    """The lobby's line about the table's game: ``Trut (classic), 4 players``."""
    from trutnet.client.view import game_summary
    from trutnet.protocol.lobby import announced_variant

    return game_summary(describe(game)[0], announced_variant(game), game.num_players())


def _screen(game: str, table_name: str, players: int, about: str = "") -> Any:
    """The terminal client for a seat at a table of ``game``: :class:`ChoiceError` when
    no plugin gives that game a screen."""
    from trutnet.client.app import TableApp
    from trutnet.client.frontend import NoFrontend

    try:
        return TableApp(table_name, players, game=game, about=about)
    except NoFrontend as exc:
        raise ChoiceError(f"{exc}: play it with --bot KIND") from None


def _join_with_ui(
    args: argparse.Namespace,
    table_id: bytes,
    endpoint: Endpoint,
    store: Path,
    announced: dict[str, Any],
) -> int:
    from trutnet.client.app import play_with_ui
    from trutnet.client.view import game_summary
    from trutnet.discovery.browse import printable

    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    game = announced["game"]
    ui = _screen(game, printable(announced["name"], 40) or f"table {table_id.hex()[:8]}", 0)
    ui.about = game_summary(ui.frontend.long_name, announced["variant"], announced["players"])
    ui.info.private, ui.info.table_seats = announced["private"], announced["players"]
    ui.info.hints = announced.get("hints", True)  # the host may ask for none
    ui.resume_alone = resume_alone(store)
    result = _run(
        play_with_ui(
            lambda hooks: join(
                table_id,
                [endpoint],
                args.name,
                None,
                store,
                args.seed,
                _options(args),
                fallback=args.fallback or "",
                hooks=hooks,
                identity=player_identity(),
                password=args.password,
                lobby_timeout=args.lobby_timeout,
                game=game,
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        _game_over(result, ui, store)
    return 0


def _resume_with_ui(
    args: argparse.Namespace, endpoints: list[Endpoint] | None, loaded: Any, game: str
) -> int:
    from trutnet.client.app import play_with_ui

    ui = _screen(game, "resumed table", 0)
    ui.resume_alone = resume_alone(args.store)
    transcript = data_dir() / "games" / f"{loaded[1].replica.table_id.hex()}.json"
    result = _run(
        play_with_ui(
            lambda hooks: resume(
                args.store,
                endpoints,
                None,
                _options(args),
                hooks=hooks,
                name=args.name,
                loaded=loaded,
                password=args.password,
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        _game_over(result, ui, args.store)
    return 0


def _game_over(result: SeatResult, ui: Any, seat: Path | None = None) -> None:
    """What a person reads once the game is over and the screen is gone: who won, then
    where the transcript is, the path on a line of its own (a terminal cuts no path).
    ``seat``: the seat's folder, removed with its table's folder once the transcript
    holds the game (:func:`tidy_table_folder`); a folder that stays is printed too."""
    print(f"game over: {who_won(result.teams, result.winner, ui.info.names)}")
    transcript = Path(ui.info.transcript) if ui.info.transcript else None
    if transcript is not None:
        print("The transcript (trutnet verify FILE checks it) is saved in:")
        print(f"  {transcript}")
    if seat is not None and seat.exists():
        kept = tidy_table_folder(seat, transcript, result)
        if kept is not None:
            print("This seat's files are kept in:")
            print(f"  {kept}")


def tidy_table_folder(seat: Path, transcript: Path | None, result: SeatResult) -> Path | None:
    """Remove the folder of a table whose game is over once its transcript is saved and
    holds the game the seat logged: every entry of the table's log, each one in the
    seat's own file (the seat's keys, secrets and log, and its bots':
    megabytes a game, of no use once the game is over); None once removed. Only a
    folder that trutnet made under its own ``tables`` folder: one given with
    ``--store`` is the person's. A table that stopped without its end (no progress, a
    cheat caught) keeps its folder: the folder to return with, or to look into."""
    from trutnet.store import PeerStore, load_transcript

    tables = (data_dir() / "tables").resolve()
    seat = seat.resolve()
    if not seat.is_relative_to(tables) or seat == tables:
        return seat
    folder = tables / seat.relative_to(tables).parts[0]
    if transcript is None or result.halted is not None or not (seat / "log.bin").exists():
        return folder
    try:
        _, wires = load_transcript(transcript)
        logged = PeerStore(seat).entries()
    except (StoreError, OSError):
        return folder
    if len(wires) != result.entries or not set(wires) <= set(logged):
        return folder  # not the whole game this seat logged: keep what it has
    shutil.rmtree(folder, ignore_errors=True)
    return folder if folder.exists() else None


def _about_log(table: str, first: bytes) -> str:
    """A table's game and players, from its ``open`` entry: ``trut: alice, Bot 2``."""
    from trutnet.protocol.envelope import MessageError, parse_entry

    try:
        entry = parse_entry(first, bytes.fromhex(table))
        game, names = entry.body.get("game"), entry.body.get("names")
        if entry.type == "open" and isinstance(game, str) and isinstance(names, list):
            shown = ", ".join(str(n) for n in names)
            return "".join(c if c.isprintable() else "?" for c in f"{game}: {shown}")[:60]
    except (MessageError, ValueError, AttributeError):
        pass
    return f"table {table[:8]}"


def _when(path: Path) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))


def unfinished_seats() -> list[tuple[Path, str]]:
    """The seats this person left mid-game (newest first), each with a line saying
    when, which game and who: the folders of ``tables`` that still hold a seat's log
    (a table's folder is removed once its game is saved, :func:`tidy_table_folder`)."""
    from trutnet.store import PeerStore

    found = []
    for folder in (data_dir() / "tables").iterdir():
        for seat in (folder / "seat-0", folder):
            if (seat / "log.bin").is_file() and (seat / "table.txt").is_file():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    table = (seat / "table.txt").read_text().split()[0]
                    entries = PeerStore(seat).entries()
                    about = _about_log(table, entries[0]) if entries else f"table {table[:8]}"
                    found.append((seat, f"{_when(seat / 'log.bin')}  {about}"))
                break
    return sorted(found, key=lambda f: f[1], reverse=True)


def resume_alone(store: Path) -> bool:
    """Whether ``trutnet join --resume`` alone (no ``--store``) would find the seat in
    ``store`` once left: no other seat is left mid-game."""
    here = store.resolve()
    return all(seat.resolve() in (here, here / "seat-0") for seat, _ in unfinished_seats())


def saved_games() -> list[tuple[Path, str]]:
    """The transcripts saved in ``games`` (newest first), each with a line saying when,
    which game and who."""
    from trutnet.store import load_transcript

    found = []
    for path in (data_dir() / "games").glob("*.json"):
        try:
            table_id, wires = load_transcript(path)
            about = _about_log(table_id.hex(), wires[0]) if wires else "empty"
            found.append((path, f"{_when(path)}  {about}"))
        except (StoreError, OSError):
            found.append((path, "not a transcript"))
    return sorted(found, key=lambda f: f[1], reverse=True)


def _print_seats(seats: list[tuple[Path, str]], out: Any = None) -> None:
    for seat, about in seats:
        print(f"  {about}", file=out)
        print(f"    trutnet join --resume --store {shlex.quote(str(seat))}", file=out)


def cmd_games(args: argparse.Namespace) -> int:
    """The seats to come back to and the saved games, with the command for each."""
    seats, games = unfinished_seats(), saved_games()
    if seats:
        print("Seats you left mid-game (come back with the command under each):")
        _print_seats(seats)
    if games:
        print("Saved games (trutnet replay FILE steps through one; verify FILE checks it):")
        for path, about in games:
            print(f"  {about}")
            print(f"    {path}")
    if not seats and not games:
        print(f"No seat to come back to and no saved game in {data_dir()}")
    return 0


def _store_error(command: str, store: Path | None) -> str | None:
    """Why ``--store`` cannot hold a seat's files, in one line; None if it can."""
    if store is None:
        return None
    level = store.absolute()
    while not level.exists() and level != level.parent:
        level = level.parent
    if not level.is_dir():
        return f"trutnet {command}: cannot use --store {store}: {level} is not a folder"
    if not os.access(level, os.W_OK | os.X_OK):
        return f"trutnet {command}: cannot use --store {store}: {level} is not writable"
    try:  # os.access says yes to root everywhere: make a folder there to know (/proc...)
        os.rmdir(tempfile.mkdtemp(prefix=".trutnet-", dir=level))
    except OSError as exc:
        return f"trutnet {command}: cannot use --store {store}: {level}: {exc.strerror}"
    return None


class _NoLan(Exception):
    """The LAN cannot be searched (no usable interface, a bad --interface)."""


def _search_lan(args: argparse.Namespace, command: str) -> list[Any]:
    from trutnet.discovery.browse import live_tables

    try:
        return live_tables(args.timeout, args.interface or None)
    except OSError as exc:
        raise _no_lan(exc, args, command) from None


def _no_lan(exc: OSError, args: argparse.Namespace, command: str) -> _NoLan:
    why = str(exc.strerror or exc)
    if args.interface:
        where = ", ".join(args.interface)
        why = f"{why.lower()} (is {where} an address of this machine?)"
    return _NoLan(f"trutnet {command}: cannot search the LAN: {why}")


def _watch_lan(args: argparse.Namespace) -> Any:
    """A search of the LAN that goes on (``tables --watch``); :class:`_NoLan` when the
    LAN cannot be searched."""
    from trutnet.discovery.browse import LanSearch

    try:
        return LanSearch(args.interface or None)
    except OSError as exc:
        raise _no_lan(exc, args, "tables") from None


def cmd_tables(args: argparse.Namespace) -> int:
    try:
        return _list_tables(args)
    except _NoLan as exc:
        print(exc, file=sys.stderr)
        return 1


def _list_tables(args: argparse.Namespace) -> int:
    """One search, or with ``--watch`` one after another: as text, each table in a few
    lines that fit 80 columns, printed again only when something changed; as JSON,
    every field of every table, one list per search."""
    from datetime import datetime

    shown: str | None = None
    search = _watch_lan(args) if args.watch else None
    try:
        while True:
            tables = (
                _search_lan(args, "tables") if search is None else search.live_tables(args.timeout)
            )
            if args.json:
                print(json.dumps([t.to_dict() for t in tables]), flush=True)
            else:
                text = "\n".join(_table_rows(tables)) if tables else "no table found on the LAN"
                if text != shown:
                    if shown is not None:  # --watch: what changed, and when
                        print(f"\n-- {datetime.now():%H:%M:%S}, the LAN now has:", flush=True)
                    print(text, flush=True)
                    shown = text
            if search is None:
                return 0
    finally:
        if search is not None:
            search.close()


def _table_rows(tables: list[Any]) -> list[str]:
    """Each table in three lines of at most 80 columns: its name and what it is, its
    host's key and broker, and the command that joins it (by name, or by table id
    when two tables have the same name). ``--json`` keeps every field whole."""
    names = [t.name for t in tables]
    rows = []
    for t in tables:
        d = t.to_dict()
        first = f"{d['name']}   {_about_table(t)}"
        rows.append(first if len(first) <= 80 else first[:79] + "…")
        rows.append(f"  host {d['host']} at {d['broker']}"[:80])
        rows += wrap_command(join_command(t, by_id=names.count(t.name) > 1), "  join: ")
    return rows


def wrap_command(command: str, lead: str, width: int = 80) -> list[str]:
    """A shell command in lines of at most ``width`` columns, each one but the last
    ending in `` \\`` so that it can be pasted as it is."""
    import shlex

    words, lines, line = shlex.split(command), [], lead
    for word in (shell_word(w) for w in words):
        if line.strip() and len(line) + len(word) + 3 > width:  # " " + word + " \\"
            lines.append(line + " \\")
            line = " " * len(lead) + "  "
        line += ("" if line.endswith(" ") else " ") + word
    return [*lines, line]


_seconds = bounded(
    float,  # a duration: a finite number of seconds above zero (refuses nan and inf)
    "a number of seconds",
    lambda seconds: 0 < seconds < 10**7,
    "must be above 0 and finite, not {text}",
)


def table_id_arg(text: str) -> str:
    """A table id: 32 hex digits (16 bytes), as ``trutnet tables`` prints it."""
    if not re.fullmatch(r"[0-9a-fA-F]{32}", text.strip()):
        raise argparse.ArgumentTypeError(
            f"a table id is 32 hex digits (as `trutnet tables` prints it), not {text!r}"
        )
    return text.strip().lower()


def broker_arg(text: str) -> str:
    """A broker URL, ``mqtt://host:port`` (or ``mqtts://host:port``, over TLS)."""
    try:
        parse_broker_url(text)
    except BrokerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def fallback_arg(text: str) -> str:
    """A seat's fallback broker, ``mqtt://address:port`` (docs/protocol.md 9.3)."""
    try:
        return check_fallback(text)
    except LobbyError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, not {text!r}") from None


def name_arg(text: str) -> str:
    """A player's name: what the lobby accepts."""
    try:
        return check_name(text)
    except LobbyError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, not {text!r}") from None


def table_name_arg(text: str) -> str:
    """A table's name on the LAN: up to 40 printable characters (empty: NAME-table)."""
    if len(text) > 40 or not text.isprintable():
        raise argparse.ArgumentTypeError(f"a table name is up to 40 printable characters: {text!r}")
    return text


count_arg = whole(0, 5)  # a count of seats


port_arg = bounded(  # a TCP port (0: any free port)
    int, "a port number", lambda port: 0 <= port <= 65535, "a port is 0..65535, not {value}"
)


def ipv4_arg(text: str) -> str:
    """An IPv4 address of this machine (discovery and brokers are IPv4)."""
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"an IPv4 address like 192.168.1.20, not {text!r}"
        ) from None


def folder_arg(text: str) -> Path:
    """A folder: one that exists, or one that can be made (not a file)."""
    path = Path(text).expanduser()
    if not text or (path.exists() and not path.is_dir()):
        raise argparse.ArgumentTypeError(f"not a folder: {text!r}")
    return path


def seed_arg(text: str) -> str:
    """A test seed: up to 200 printable characters."""
    if not 1 <= len(text) <= 200 or not text.isprintable():
        raise argparse.ArgumentTypeError("a seed is 1..200 printable characters")
    return text


def _timing_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--stall-timeout",
        type=_seconds,
        default=30.0,
        help="report a seat the table waits for longer than this (s)",
    )
    p.add_argument(
        "--void-timeout",
        type=_seconds,
        default=120.0,
        help="after this long waiting for a seat (s), vote: for a newcomer's offer to take "
        "it (a partner's seat) or to abandon the game (docs/protocol.md 7.7)",
    )
    p.add_argument(
        "--accept-taker",
        action="append",
        default=[],
        metavar="FINGERPRINT|any",
        help="when your partner stalls, vote to give the seat to this newcomer (its key "
        "fingerprint; repeatable), or to any newcomer: an opponent could be one. "
        "Default: nobody (the game is abandoned)",
    )
    p.add_argument(
        "--give-up-after",
        type=_seconds,
        default=900.0,
        help="stop after this many seconds without any progress",
    )
    p.add_argument(
        "--linger",
        type=_seconds,
        default=30.0,
        help="after the game, stay at most this long answering peers that are "
        "still catching up (s)",
    )


def _table_options(p: argparse.ArgumentParser, players: int, name: str) -> None:
    """The table a host opens: its game, the game's options, names, bots."""
    game_argument(p)
    game_options(p, players)
    p.add_argument(
        "--name",
        type=name_arg,
        default=name,
        help="your name at the table (the table adds (2)... to a name it already has)",
    )
    p.add_argument(
        "--table-name",
        type=table_name_arg,
        default="",
        help="the table's name on the LAN (default: NAME-table)",
    )
    p.add_argument(
        "--bots",
        type=count_arg,
        default=0,
        help="seat K bots at once; the game starts when every seat is taken",
    )
    p.add_argument("--port", type=port_arg, default=0, help="embedded broker port (0: any)")
    _private_option(p, "a private table: the broker lets in only those who give its password")
    p.add_argument(
        "--no-announce",
        dest="announce",
        action="store_false",
        help="do not announce the table with zeroconf",
    )
    p.add_argument(
        "--no-hints",
        dest="hints",
        action="store_false",
        help="ask the players not to use the search bot's hints (said in the lobby; "
        "their screens then offer none)",
    )


def _private_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--private",
        action="store_true",
        help=f"{what}; the password is read from $TRUTNET_TABLE_PASSWORD, else asked on "
        "the terminal (never on the command line)",
    )


def _lan_search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout", type=_seconds, default=2.0, help="LAN search time (s)")
    p.add_argument(
        "--interface",
        action="append",
        type=ipv4_arg,
        metavar="IP",
        help="search only on this interface address (repeatable; default: all)",
    )


def add_network_commands(sub: Any, seed_type: Any) -> None:
    def network_options(p: argparse.ArgumentParser, hosting: bool) -> None:
        p.add_argument(
            "--store", type=folder_arg, help="keep this seat's keys, log and secrets here"
        )
        p.add_argument(
            "--seed", type=seed_arg, help="deterministic keys and randomness (testing only)"
        )
        _timing_options(p)
        p.add_argument("--json", action="store_true", help="one JSON object per line")
        # measurement only (trutnet bench network): every entry's stamps in the result
        p.add_argument("--stamp-entries", action="store_true", help=argparse.SUPPRESS)
        p.add_argument(
            "--bot",
            metavar="KIND",
            help="a bot plays this seat (without it, you play on the screen): a kind the "
            "game has (Trut: heuristic; every game: random)"
            if not hosting
            else "the bot that plays the host's seat (default: the game's best; Trut: "
            "heuristic; every game: random)",
        )

    hp = sub.add_parser(
        "host",
        help="host a table without a UI (bots fill empty seats)",
        formatter_class=HelpFormatter,
    )
    _table_options(hp, 4, person_name())
    hp.add_argument(
        "--broker", type=broker_arg, help="use an external broker mqtt://host:port (mqtts://: TLS)"
    )
    hp.add_argument(
        "--bind",
        type=ipv4_arg,
        help="embedded broker address (default: this machine's LAN address; "
        "127.0.0.1: this machine only)",
    )
    hp.add_argument("--inprocess-broker", action="store_true", help=argparse.SUPPRESS)
    network_options(hp, hosting=True)

    pp = sub.add_parser(
        "play", help="host a table and play it on the terminal", formatter_class=HelpFormatter
    )
    _table_options(pp, 2, person_name())
    pp.add_argument(
        "--bind",
        type=ipv4_arg,
        help="broker address (default: this machine's LAN address; 127.0.0.1: this machine only)",
    )
    pp.add_argument("--store", type=folder_arg, help="this seat's keys, log and secrets")
    pp.add_argument("--seed", type=seed_arg, help=argparse.SUPPRESS)
    pp.add_argument(
        "--bot",
        metavar="KIND",
        help="the bots seated (--bots, b in the lobby): a kind the game has, or a level: "
        "easy (random), normal (the game's own best), hard (search; the default)",
    )
    _timing_options(pp)

    tp = sub.add_parser(
        "tables", help="list the tables open on the LAN", formatter_class=HelpFormatter
    )
    _lan_search_options(tp)
    tp.add_argument("--watch", action="store_true", help="keep listing as tables change")
    tp.add_argument("--json", action="store_true", help="one JSON list per search")

    gp = sub.add_parser(
        "games",
        help="the seats you left mid-game (with the command to come back) and the saved games",
        formatter_class=HelpFormatter,
    )
    del gp  # no option

    jp = sub.add_parser(
        "join",
        help="join a table (found on the LAN, or --broker/--table)",
        formatter_class=HelpFormatter,
    )
    jp.add_argument("table_name", nargs="?", help="name of a table found on the LAN")
    game_argument(jp, "the game this seat plays (a table of another is refused)")
    jp.add_argument(
        "--broker", type=broker_arg, help="mqtt://host:port, or mqtts://host:port (TLS)"
    )
    jp.add_argument("--table", type=table_id_arg, help="table id (32 hex digits)")
    jp.add_argument(
        "--name",
        type=name_arg,
        default=person_name(),
        help="your name at the table (the table adds (2)... to a name it already has)",
    )
    jp.add_argument(
        "--fallback",
        type=fallback_arg,
        metavar="URL",
        help="mqtt://address:port where this seat hosts the table if its broker "
        "is lost (docs/protocol.md 9.3)",
    )
    jp.add_argument("--resume", action="store_true", help="come back from --store after a crash")
    _private_option(jp, "the table is private (asked anyway for one found private on the LAN)")
    jp.add_argument(
        "--lobby-timeout",
        type=_seconds,
        default=LOBBY_TIMEOUT,
        help="give up when no host has been at the table for this long, or when the "
        "table has been playing without this seat for this long (s)",
    )
    _lan_search_options(jp)
    network_options(jp, hosting=False)

    wp = sub.add_parser(
        "watch",
        help="follow a table as a spectator (found on the LAN, or --broker/--table)",
        formatter_class=HelpFormatter,
    )
    wp.add_argument("table_name", nargs="?", help="name of a table found on the LAN")
    wp.add_argument(
        "--broker", type=broker_arg, help="mqtt://host:port, or mqtts://host:port (TLS)"
    )
    wp.add_argument("--table", type=table_id_arg, help="table id (32 hex digits)")
    wp.add_argument(
        "--name",
        type=name_arg,
        default=person_name(),
        help="your name in the players' list of spectators",
    )
    _private_option(wp, "the table is private (asked anyway for one found private on the LAN)")
    wp.add_argument(
        "--lobby-timeout",
        type=_seconds,
        default=LOBBY_TIMEOUT,
        help="give up when no host has been at the table for this long (s)",
    )
    wp.add_argument(
        "--stall-timeout",
        type=_seconds,
        default=30.0,
        help="say so when the table waits for a seat longer than this (s)",
    )
    wp.add_argument(
        "--give-up-after",
        type=_seconds,
        default=900.0,
        help="stop after this many seconds without any progress",
    )
    _lan_search_options(wp)
    wp.add_argument("--json", action="store_true", help="one JSON object per event, no screen")


def install_signal_exit() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


# The MQTT client's own lines (paho's "failed to receive on socket: ...", through
# aiomqtt's default "mqtt" logger, for every client a command opens) are for debugging:
# a command reports a lost broker itself, in one line.
for _name in ("aiomqtt", "mqtt"):
    logging.getLogger(_name).setLevel(logging.CRITICAL)
