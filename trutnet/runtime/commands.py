"""The network commands behind the CLI: ``host``, ``join``, ``selfplay --transport mqtt``.

Each prints one JSON line per event with ``--json`` (for tests and scripts), or
readable lines otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trutnet.crypto.identity import Identity
from trutnet.engine.games.trut import TrutConfig
from trutnet.keystore import load_or_create_identity
from trutnet.net.broker import BrokerError, EmbeddedBroker, Endpoint, ExternalBroker
from trutnet.protocol.lobby import table_id_for
from trutnet.runtime.seat_process import SeatResult, host, join, load_seat, resume
from trutnet.runtime.table_runtime import Options
from trutnet.store import StoreError


def _quiet_loop(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    # aiomqtt leaves a disconnect future unretrieved when a session is cancelled.
    if "MqttCodeError" in repr(context.get("exception")) or "MqttError" in repr(
        context.get("exception")
    ):
        return
    loop.default_exception_handler(context)


def _run(coro: Any) -> Any:
    async def wrapper() -> Any:
        asyncio.get_running_loop().set_exception_handler(_quiet_loop)
        return await coro

    return asyncio.run(wrapper())


def _printer(as_json: bool, who: str) -> Any:
    def emit(kind: str, data: dict[str, Any]) -> None:
        if as_json:
            print(
                json.dumps(
                    {"event": kind, "who": who, **{k: v for k, v in data.items()}}, default=str
                ),
                flush=True,
            )
        else:
            print(f"[{who}] {kind}: {data}", flush=True)

    return emit


def _finish(result: SeatResult, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"event": "result", **result.to_dict()}), flush=True)
    else:
        print(
            f"game over: winner team {result.winner}, {result.hands} hands, "
            f"{result.entries} entries, state {result.state_hash[:16]}"
        )
        if result.halted:
            print(f"the table stopped: {result.halted}")
    return 0 if result.halted is None else 1


def _options(args: argparse.Namespace) -> Options:
    return Options(
        stall_timeout=args.stall_timeout,
        void_timeout=args.void_timeout,
        give_up_after=args.give_up_after,
        linger=args.linger,
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

    config = TrutConfig(args.players, args.variant, args.sum_on_patte)
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
    except (BrokerError, PasswordError) as exc:
        print(f"trutnet host: {exc}", file=sys.stderr)
        return 2
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
                TrutConfig(config.players, config.variant, config.sum_on_patte),
                [endpoint],
                name=args.name,
                table_name=args.table_name,
                bots=args.bots,
                host_bot=args.bot,
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
        if _refused((endpoints or [loaded[2]])[0], args.password):
            return 1
        if args.bot is None:  # the person takes their seat back, on screen
            return _resume_with_ui(args, endpoints, loaded)
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
    if args.broker and args.table:
        try:
            endpoint, table_id = ExternalBroker(args.broker).start(), bytes.fromhex(args.table)
        except (BrokerError, ValueError) as exc:
            print(f"trutnet join: {exc}", file=sys.stderr)
            return 2
        if len(table_id) != 16:
            print("trutnet join: a table id is 32 hex digits", file=sys.stderr)
            return 2
        private = False
    else:
        found = choose_table(args)
        if found is None:
            print("trutnet join: no open table found on the LAN", file=sys.stderr)
            return 1
        endpoint, table_id, private = found
    try:
        args.password = _password(args, needed=private)
    except PasswordError as exc:
        print(f"trutnet join: {exc}", file=sys.stderr)
        return 2
    if _refused(endpoint, args.password):
        return 1
    if args.store is not None:
        args.store.mkdir(parents=True, exist_ok=True)
    if args.bot is None:  # a person plays: the terminal client
        return _join_with_ui(args, table_id, endpoint)
    return _finish(
        _run(
            join(
                table_id,
                [endpoint],
                args.name,
                args.bot,
                args.store,
                args.seed,
                _options(args),
                emit,
                fallback=args.fallback or "",
                password=args.password,
            )
        ),
        args.json,
    )


def choose_table(args: argparse.Namespace) -> tuple[Endpoint, bytes, bool] | None:
    """List the open tables found on the LAN and take the one named, the one the person
    picks (on a terminal), or the first; with whether it is private."""
    from trutnet.discovery.browse import live_tables

    tables = [
        t
        for t in live_tables(args.timeout, args.interface or None)
        if t.live and t.live.get("status") == "open"
    ]
    if args.table_name is not None:
        tables = [t for t in tables if args.table_name in (t.name, t.table)]
    if not tables:
        return None
    if not args.json:
        for number, t in enumerate(tables, start=1):
            d = t.to_dict()
            print(
                f"  {number}. {d['name']:<24} {d['variant']:<10} seats {d['seats']:<5} "
                f"host {d['host']}{' private' if d['private'] else ''}",
                file=sys.stderr,
            )
    pick = 0
    if len(tables) > 1 and sys.stdin.isatty():
        answer = input(f"Join which table? [1-{len(tables)}, default 1] ").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            pick = int(answer) - 1
    chosen = tables[pick]
    return chosen.endpoint, bytes.fromhex(chosen.table), chosen.private


def announced_table(proc: subprocess.Popen[str], timeout: float = 60.0) -> tuple[str, list[str]]:
    """The table id that a ``trutnet host --json`` process announces (its first
    ``table`` event; the id is bound to the host's key, 7.8, so only the host knows it
    in advance), and the lines it printed until then."""
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("event") == "table" and isinstance(event.get("table"), str):
                    return event["table"], lines
    raise RuntimeError("the host did not announce its table")


def cmd_selfplay_mqtt(args: argparse.Namespace, config: TrutConfig) -> int:
    """Bot peers as separate OS processes over the embedded broker or ``--broker``."""
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
                        "--players",
                        str(config.players),
                        "--variant",
                        config.variant,
                        *(["--sum-on-patte"] if config.sum_on_patte else []),
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
            for k in range(1, config.players):
                procs.append(
                    subprocess.Popen(
                        [
                            *base,
                            "join",
                            "--bot",
                            "heuristic",
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
                final = [x for x in lines if x["event"] == "result"]
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
                    f"game {number}: {config.players} processes agree on "
                    f"{finals[0]['state_hash'][:16]}, {finals[0]['hands']} hands"
                )
    finally:
        broker.stop()
    wins = [0] * len(config.teams)
    for r in results:
        wins[r["winner"]] += 1
    hands = sum(r["hands"] for r in results)
    summary = {
        "transport": "mqtt",
        "broker": endpoint.url if args.broker else "embedded",
        "players": config.players,
        "variant": config.variant,
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
            f"Trut over MQTT ({summary['broker']}), {config.players} peer processes: "
            f"games {summary['games']}, hands {hands}, wins {wins}"
        )
    return 0


def player_identity() -> Identity:
    """The player's own key, the same for every game (``~/.config/trutnet``), so that
    others can recognise its fingerprint. Created with mode 0600."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return load_or_create_identity(Path(base) / "trutnet" / "identity.key")


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    return Path(base) / "trutnet"


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
    from trutnet.client.app import TrutApp, play_with_ui

    config = TrutConfig(args.players, args.variant, args.sum_on_patte)
    if not 0 <= args.bots < config.players:
        print(f"trutnet play: --bots is 0..{config.players - 1}", file=sys.stderr)
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
    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    table_name = args.table_name or f"{args.name}'s table"
    announcer = None
    if args.announce:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(bind)

    def on_announce(message: dict[str, Any]) -> None:
        if announcer is not None:
            announcer.update(message, endpoint)

    ui = TrutApp(table_name, config.players)
    try:
        result = _run(
            play_with_ui(
                lambda hooks: host(
                    config,
                    [endpoint],
                    name=args.name,
                    table_name=table_name,
                    bots=args.bots,
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
    if result is not None:
        print(f"game over: winner team {result.winner}; transcript: {transcript}")
    return 0


def _join_with_ui(args: argparse.Namespace, table_id: bytes, endpoint: Endpoint) -> int:
    from trutnet.client.app import TrutApp, play_with_ui

    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    store = args.store or data_dir() / "tables" / f"{table_id.hex()}-join"
    store.mkdir(parents=True, exist_ok=True)
    ui = TrutApp(f"table {table_id.hex()[:8]}", 0)
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
            ),
            ui,
            transcript,
        )
    )
    if result is not None:
        print(f"game over: winner team {result.winner}; transcript: {transcript}")
    return 0


def _resume_with_ui(args: argparse.Namespace, endpoints: list[Endpoint] | None, loaded: Any) -> int:
    from trutnet.client.app import TrutApp, play_with_ui

    ui = TrutApp("resumed table", 0)
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
        print(f"game over: winner team {result.winner}; transcript: {transcript}")
    return 0


def cmd_tables(args: argparse.Namespace) -> int:
    from trutnet.discovery.browse import live_tables

    while True:
        tables = live_tables(args.timeout, args.interface or None)
        if args.json:
            print(json.dumps([t.to_dict() for t in tables]), flush=True)
        else:
            if not tables:
                print("no table found on the LAN", flush=True)
            for t in tables:
                d = t.to_dict()
                private = d["private"]
                print(
                    f"{d['name']:<24} {d['variant']:<10} seats {d['seats']:<5} {d['status']:<8}"
                    f"{' private' if private else ''}"
                    f" host {d['host']}  join: trutnet join --broker {d['broker']} "
                    f"--table {d['table']}{' --private' if private else ''}",
                    flush=True,
                )
        if not args.watch:
            return 0


def _seconds(text: str) -> float:
    """A duration from the command line: a finite number of seconds, above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 10**7:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"must be above 0 and finite, not {text}")
    return value


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
        help="vote to void the hand and give a bot the seat the table waited "
        "for longer than this (s)",
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
    """The table a host opens: players, variant, options, names, bots."""
    p.add_argument("--players", type=int, choices=(2, 3, 4, 6), default=players)
    p.add_argument("--variant", choices=("classic", "gatinaise"), default="classic")
    p.add_argument(
        "--sum-on-patte",
        action="store_true",
        help="6 players: a patté trick goes to the larger sum of values (T21)",
    )
    p.add_argument("--name", default=name, help="your name at the table")
    p.add_argument("--table-name", default="")
    p.add_argument(
        "--bots",
        type=int,
        default=0,
        help="seat K bots at once; the game starts when every seat is taken",
    )
    p.add_argument("--port", type=int, default=0, help="embedded broker port (0: any)")
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
        metavar="IP",
        help="search only on this interface address (repeatable; default: all)",
    )


def add_network_commands(sub: Any, seed_type: Any) -> None:
    def network_options(p: argparse.ArgumentParser, bot_default: str | None) -> None:
        p.add_argument("--store", type=Path, help="keep this seat's keys, log and secrets here")
        p.add_argument("--seed", help="deterministic keys and randomness (testing only)")
        _timing_options(p)
        p.add_argument("--json", action="store_true", help="one JSON object per line")
        p.add_argument(
            "--bot",
            default=bot_default,
            choices=("heuristic", "random"),
            help="a bot plays this seat (without it, you play on the screen)"
            if bot_default is None
            else "the bot that plays the host's seat",
        )

    hp = sub.add_parser("host", help="host a table without a UI (bots fill empty seats)")
    _table_options(hp, 4, "Host")
    hp.add_argument("--broker", help="use an external broker mqtt://host:port")
    hp.add_argument(
        "--bind",
        default="127.0.0.1",
        help="embedded broker address (LAN: the LAN interface's address)",
    )
    hp.add_argument("--inprocess-broker", action="store_true", help=argparse.SUPPRESS)
    network_options(hp, "heuristic")

    pp = sub.add_parser("play", help="host a table and play it on the terminal")
    _table_options(pp, 2, (os.environ.get("USER") or "Player")[:32])
    pp.add_argument("--bind", help="broker address (default: this machine's LAN address)")
    pp.add_argument("--store", type=Path, help="this seat's keys, log and secrets")
    pp.add_argument("--seed", help=argparse.SUPPRESS)
    _timing_options(pp)

    tp = sub.add_parser("tables", help="list the tables open on the LAN")
    _lan_search_options(tp)
    tp.add_argument("--watch", action="store_true", help="keep listing as tables change")
    tp.add_argument("--json", action="store_true")

    jp = sub.add_parser("join", help="join a table (found on the LAN, or --broker/--table)")
    jp.add_argument("table_name", nargs="?", help="name of a table found on the LAN")
    jp.add_argument("--broker", help="mqtt://host:port")
    jp.add_argument("--table", help="table id (32 hex digits)")
    jp.add_argument("--name", default="Player")
    jp.add_argument(
        "--fallback",
        metavar="URL",
        help="mqtt://address:port where this seat hosts the table if its broker "
        "is lost (docs/protocol.md 9.3)",
    )
    jp.add_argument("--resume", action="store_true", help="come back from --store after a crash")
    _private_option(jp, "the table is private (asked anyway for one found private on the LAN)")
    _lan_search_options(jp)
    network_options(jp, None)


def install_signal_exit() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


logging.getLogger("aiomqtt").setLevel(logging.CRITICAL)
