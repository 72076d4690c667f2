"""The commands that sit at a table over the network: ``host``, ``join``, ``play``,
``watch``, ``tables`` and ``selfplay --transport mqtt``, their arguments, and the
person's own folders (key, transcripts, seats' files).

``play``, ``join`` without ``--bot`` and ``watch`` without ``--json`` put the terminal
client (:mod:`trutnet.client`) on screen, with the front-end of the table's game.
The others print one JSON line per event with ``--json`` (for tests and scripts), or
readable lines otherwise. ``host``, ``join`` and ``play`` take ``--game``
(:mod:`trutnet.cli.games`); ``join`` refuses a table of another game. Every argument is
checked by its argparse type (a bad one gets one clear line and exit status 2); a
table that cannot be joined gets one clear line and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import os
import re
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
    Given,
    bot_of,
    config_arguments,
    describe,
    game_argument,
    game_named,
    game_of,
)
from trutnet.crypto.identity import Identity
from trutnet.engine.api import Game
from trutnet.keystore import load_or_create_identity
from trutnet.net.broker import (
    BrokerError,
    EmbeddedBroker,
    Endpoint,
    ExternalBroker,
    parse_broker_url,
)
from trutnet.protocol.lobby import LobbyError, check_fallback, check_name, table_id_for
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
    async def wrapper() -> Any:
        asyncio.get_running_loop().set_exception_handler(_quiet_loop)
        return await coro

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
        linger=args.linger,
        stamp_entries=getattr(args, "stamp_entries", False),
    )


def _password(args: argparse.Namespace, needed: bool = False) -> str | None:
    """The table password with ``--private`` (or ``needed``: a private table was
    picked), from the environment or the terminal; None for an open table.
    :class:`PasswordError` if there is none to be had."""
    from trutnet.net.private import table_password

    return table_password() if getattr(args, "private", False) or needed else None


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
        print(f"trutnet host: --bots is 0..{game.num_players() - 1}", file=sys.stderr)
        return 2
    if args.inprocess_broker:
        args.broker, args.announce = f"mqtt://{args.bind}:{args.port}", False
    try:
        password = _password(args)
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
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        broker.stop()
    return _finish(result, args.json)


def _refused(endpoint: Endpoint, password: str | None) -> bool:
    """Whether the table's broker turns down our password (or our lack of one); says so
    in one line."""
    from trutnet.net.private import check_access

    why = asyncio.run(check_access(endpoint, password))
    if why is not None:
        print(f"trutnet join: {why}", file=sys.stderr)
    return why is not None


def cmd_join(args: argparse.Namespace) -> int:
    from trutnet.net.private import PasswordError

    emit = _printer(args.json, args.name)
    game = game_named(args.game)  # the game asked for; a table of another is refused
    if args.resume:
        if args.store is None:
            print("trutnet join: --resume needs --store DIR", file=sys.stderr)
            return 2
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
        if _refused((endpoints or [loaded[2]])[0], args.password):
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
        print("trutnet join: --broker and --table go together", file=sys.stderr)
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
        print("trutnet watch: --broker and --table go together", file=sys.stderr)
        return 2
    if args.broker is not None:
        endpoint, table_id = parse_broker_url(args.broker), bytes.fromhex(args.table)
        private = False
    else:
        try:
            found = choose_table(args, ("open", "playing"), "watch")
        except _NoLan as exc:
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
        winner = who_won(result.teams, result.winner, ui.info.names)
        print(f"game over: {winner}; transcript: {transcript}")
    return 0


class _OtherGames(Exception):
    """The LAN has tables of ``statuses``, but none of the game asked for."""


def choose_table(
    args: argparse.Namespace,
    statuses: tuple[str, ...] = ("open",),
    command: str = "join",
    game: str | None = None,
) -> tuple[Endpoint, bytes, bool] | None:
    """List the tables found on the LAN (of ``statuses``: open ones, to join; of
    ``game``, unless None) and take the one named, the one the person picks (on a
    terminal), or the first; with whether it is private. A table named that plays
    another game: :class:`WrongGame`; tables of other games only: :class:`_OtherGames`."""
    tables = [t for t in _search_lan(args, command) if t.live and t.live.get("status") in statuses]
    if args.table_name is not None:
        tables = [t for t in tables if args.table_name in (t.name, t.table)]
    mine = [t for t in tables if game is None or t.game == game]
    if tables and not mine and game is not None:
        if args.table_name is not None:
            raise WrongGame(bytes.fromhex(tables[0].table), tables[0].game, game)
        others = ", ".join(sorted({t.game for t in tables}))
        raise _OtherGames(
            f"trutnet {command}: no {' or '.join(statuses)} {game} table on the LAN "
            f"(tables of other games: {others}; {command} one with --game NAME)"
        )
    tables = mine
    if not tables:
        return None
    if not args.json:
        for number, t in enumerate(tables, start=1):
            d = t.to_dict()
            print(
                f"  {number}. {d['name']:<24} {d['game']:<8} {d['variant']:<10} "
                f"seats {d['seats']:<5} host {d['host']}{' private' if d['private'] else ''}",
                file=sys.stderr,
            )
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


def lan_address() -> str:
    """This machine's address on its LAN: a UDP connect sends nothing, it only asks the
    routing table which interface it would use. Loopback when there is none."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def cmd_play(args: argparse.Namespace) -> int:
    """Host a table with the terminal client: lobby, bots, then the game."""
    from trutnet.client.app import play_with_ui

    game = game_of(args)
    bot_kind = bot_of(game, args.bot)
    ui = _screen(game.name, table_name="", players=game.num_players(), about=_about(game))
    if not 0 <= args.bots < game.num_players():
        print(f"trutnet play: --bots is 0..{game.num_players() - 1}", file=sys.stderr)
        return 2
    from trutnet.net.private import PasswordError

    bind = args.bind or lan_address()
    try:
        password = _password(args)
        broker = EmbeddedBroker(bind, args.port, password=password)
        endpoint = broker.start()
    except (BrokerError, PasswordError) as exc:
        print(f"trutnet play: {exc}", file=sys.stderr)
        return 2
    identity, nonce = player_identity(), os.urandom(16)
    table_id = table_id_for(identity.public, nonce)
    store = args.store or data_dir() / "tables" / table_id.hex()
    created = not store.exists()
    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    table_name = args.table_name or f"{args.name}'s table"
    announcer = None
    if args.announce:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(bind)

    def on_announce(message: dict[str, Any]) -> None:
        if announcer is not None:
            announcer.update(message, endpoint)

    ui.table_name = table_name
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
        winner = who_won(result.teams, result.winner, ui.info.names)
        print(f"game over: {winner}; transcript: {transcript}")
    return 0


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

    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    game = announced["game"]
    ui = _screen(game, f"table {table_id.hex()[:8]}", 0)
    ui.about = game_summary(ui.frontend.long_name, announced["variant"], announced["players"])
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
        winner = who_won(result.teams, result.winner, ui.info.names)
        print(f"game over: {winner}; transcript: {transcript}")
    return 0


def _resume_with_ui(
    args: argparse.Namespace, endpoints: list[Endpoint] | None, loaded: Any, game: str
) -> int:
    from trutnet.client.app import play_with_ui

    ui = _screen(game, "resumed table", 0)
    transcript = data_dir() / "games" / f"{args.store.resolve().name}-resumed.json"
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
        winner = who_won(result.teams, result.winner, ui.info.names)
        print(f"game over: {winner}; transcript: {transcript}")
    return 0


class _NoLan(Exception):
    """The LAN cannot be searched (no usable interface, a bad --interface)."""


def _search_lan(args: argparse.Namespace, command: str) -> list[Any]:
    from trutnet.discovery.browse import live_tables

    try:
        return live_tables(args.timeout, args.interface or None)
    except OSError as exc:
        why = str(exc.strerror or exc)
        if args.interface:
            where = ", ".join(args.interface)
            why = f"{why.lower()} (is {where} an address of this machine?)"
        raise _NoLan(f"trutnet {command}: cannot search the LAN: {why}") from None


def cmd_tables(args: argparse.Namespace) -> int:
    try:
        return _list_tables(args)
    except _NoLan as exc:
        print(exc, file=sys.stderr)
        return 1


def _list_tables(args: argparse.Namespace) -> int:
    while True:
        tables = _search_lan(args, "tables")
        if args.json:
            print(json.dumps([t.to_dict() for t in tables]), flush=True)
        else:
            if not tables:
                print("no table found on the LAN", flush=True)
            for t in tables:
                d = t.to_dict()
                private = d["private"]
                game = "" if d["game"] == DEFAULT_GAME else f" --game {d['game']}"
                print(
                    f"{d['name']:<24} {d['game']:<8} {d['variant']:<10} seats {d['seats']:<5} "
                    f"{d['status']:<8}{' private' if private else ''}"
                    f" host {d['host']}  join: trutnet join{game} --broker {d['broker']} "
                    f"--table {d['table']}{' --private' if private else ''}",
                    flush=True,
                )
        if not args.watch:
            return 0


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
    """A broker URL, ``mqtt://host:port``."""
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
    """A table's name on the LAN: up to 40 printable characters (empty: "NAME's table")."""
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


def game_options(p: argparse.ArgumentParser, players: int) -> None:
    """The options that some games take (Trut's): given to the game as its
    configuration, refused by a game that does not take them (:mod:`.games`)."""
    p.add_argument(
        "--players",
        type=_players,
        default=players,
        action=Given,
        help="seats at the table, for a game that lets you choose (Trut: 2, 3, 4 or 6)",
    )
    variant_option(p)
    p.add_argument(
        "--sum-on-patte",
        action=Given,
        flag=True,
        help="Trut, 6 players: a patté trick goes to the larger sum of values (T21)",
    )
    config_options(p)


def variant_option(p: argparse.ArgumentParser) -> None:
    """``--variant``: the game's own first variant unless given."""
    p.add_argument(
        "--variant",
        default=None,
        action=Given,
        help="the game's variant, for a game that has some; its own first by default "
        "(Trut: classic or gatinaise; Lutin & Troll: base, expert-white, expert-black "
        "or initiation)",
    )


def config_options(p: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE`` and Trut Deluxe's on/off options."""
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other option of the game's configuration, repeatable (Truco: "
        "flor=on, gallo=rotating, chicos=1...); on/off are true/false, digits a number",
    )
    deluxe_options(p)


def deluxe_options(p: argparse.ArgumentParser) -> None:
    """Trut Deluxe's on/off options (T23), for a game that takes them."""
    p.add_argument(
        "--deluxe",
        action=Given,
        flag=True,
        help="Trut Deluxe: the 13 special cards (T23-T47)",
    )
    p.add_argument(
        "--bonus-cards",
        action=Given,
        flag=True,
        help="Trut Deluxe: the 5 bonus cards N-R too (T23)",
    )
    p.add_argument(
        "--michao-hare",
        action=Given,
        flag=True,
        help="Trut Deluxe: Wolf + Fox + Hare also sings Michao (T44)",
    )


_players = whole(1, 16, "invalid choice: {value} (a table has 1..16 seats)")  # a game says which


def _table_options(p: argparse.ArgumentParser, players: int, name: str) -> None:
    """The table a host opens: its game, the game's options, names, bots."""
    game_argument(p)
    game_options(p, players)
    p.add_argument("--name", type=name_arg, default=name, help="your name at the table")
    p.add_argument(
        "--table-name",
        type=table_name_arg,
        default="",
        help="the table's name on the LAN (default: \"NAME's table\")",
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
    _table_options(hp, 4, "Host")
    hp.add_argument("--broker", type=broker_arg, help="use an external broker mqtt://host:port")
    hp.add_argument(
        "--bind",
        type=ipv4_arg,
        default="127.0.0.1",
        help="embedded broker address (LAN: the LAN interface's address)",
    )
    hp.add_argument("--inprocess-broker", action="store_true", help=argparse.SUPPRESS)
    network_options(hp, hosting=True)

    pp = sub.add_parser(
        "play", help="host a table and play it on the terminal", formatter_class=HelpFormatter
    )
    _table_options(pp, 2, (os.environ.get("USER") or "Player")[:32])
    pp.add_argument(
        "--bind", type=ipv4_arg, help="broker address (default: this machine's LAN address)"
    )
    pp.add_argument("--store", type=folder_arg, help="this seat's keys, log and secrets")
    pp.add_argument("--seed", type=seed_arg, help=argparse.SUPPRESS)
    pp.add_argument(
        "--bot",
        metavar="KIND",
        help="the bots seated (--bots, b in the lobby): a kind the game has (default: "
        "its best; Trut: heuristic; every game: random)",
    )
    _timing_options(pp)

    tp = sub.add_parser(
        "tables", help="list the tables open on the LAN", formatter_class=HelpFormatter
    )
    _lan_search_options(tp)
    tp.add_argument("--watch", action="store_true", help="keep listing as tables change")
    tp.add_argument("--json", action="store_true", help="one JSON list per search")

    jp = sub.add_parser(
        "join",
        help="join a table (found on the LAN, or --broker/--table)",
        formatter_class=HelpFormatter,
    )
    jp.add_argument("table_name", nargs="?", help="name of a table found on the LAN")
    game_argument(jp, "the game this seat plays (a table of another is refused)")
    jp.add_argument("--broker", type=broker_arg, help="mqtt://host:port")
    jp.add_argument("--table", type=table_id_arg, help="table id (32 hex digits)")
    jp.add_argument("--name", type=name_arg, default="Player", help="your name at the table")
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
    wp.add_argument("--broker", type=broker_arg, help="mqtt://host:port")
    wp.add_argument("--table", type=table_id_arg, help="table id (32 hex digits)")
    wp.add_argument(
        "--name",
        type=name_arg,
        default=(os.environ.get("USER") or "Spectator")[:32],
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
