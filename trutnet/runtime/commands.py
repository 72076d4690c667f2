"""The network commands behind the CLI: ``host``, ``join``, ``selfplay --transport mqtt``.

Each prints one JSON line per event with ``--json`` (for tests and scripts), or
readable lines otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
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
        takers=tuple(args.accept_taker),
        give_up_after=args.give_up_after,
        linger=args.linger,
    )


def cmd_host(args: argparse.Namespace) -> int:
    config = TrutConfig(args.players, args.variant, args.sum_on_patte)
    if args.inprocess_broker:
        args.broker, args.announce = f"mqtt://{args.bind}:{args.port}", False
    broker = ExternalBroker(args.broker) if args.broker else EmbeddedBroker(args.bind, args.port)
    try:
        endpoint = broker.start()
    except BrokerError as exc:
        print(f"trutnet host: {exc}", file=sys.stderr)
        return 2
    emit = _printer(args.json, "host")
    announcer = None
    if args.announce and not args.broker:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(args.bind)
    try:

        def on_announce(message: dict[str, Any]) -> None:
            emit("table", message)
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
                table_id=bytes.fromhex(args.table_id) if args.table_id else None,
                inprocess_broker=args.inprocess_broker,
                own_broker=isinstance(broker, EmbeddedBroker),
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        broker.stop()
    return _finish(result, args.json)


def cmd_join(args: argparse.Namespace) -> int:
    emit = _printer(args.json, args.name)
    if args.resume:
        if args.store is None:
            print("trutnet join: --resume needs --store DIR", file=sys.stderr)
            return 2
        try:
            endpoints = [ExternalBroker(args.broker).start()] if args.broker else None
            loaded = load_seat(args.store)  # checked before anything starts, read once
        except (BrokerError, StoreError) as exc:
            print(f"trutnet join: {exc}", file=sys.stderr)
            return 2
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
    else:
        found = choose_table(args)
        if found is None:
            print("trutnet join: no open table found on the LAN", file=sys.stderr)
            return 1
        endpoint, table_id = found
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
            )
        ),
        args.json,
    )


def choose_table(args: argparse.Namespace) -> tuple[Endpoint, bytes] | None:
    """List the open tables found on the LAN and take the one named, the one the person
    picks (on a terminal), or the first."""
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
                f"host {d['host']}",
                file=sys.stderr,
            )
    pick = 0
    if len(tables) > 1 and sys.stdin.isatty():
        answer = input(f"Join which table? [1-{len(tables)}, default 1] ").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            pick = int(answer) - 1
    chosen = tables[pick]
    return chosen.endpoint, bytes.fromhex(chosen.table)


def cmd_selfplay_mqtt(args: argparse.Namespace, config: TrutConfig) -> int:
    """Bot peers as separate OS processes over the embedded broker or ``--broker``."""
    broker = ExternalBroker(args.broker) if args.broker else EmbeddedBroker()
    endpoint: Endpoint = broker.start()
    workdir = Path(tempfile.mkdtemp(prefix="trutnet-selfplay-"))
    results = []
    try:
        for number in range(1, args.games + 1):
            seed = f"{args.seed}/{number}"
            table = os.urandom(16).hex()
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
                        "--table-id",
                        table,
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
            time.sleep(0.3)
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
            for proc in procs:
                out, err = proc.communicate(timeout=600)
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
    bind = args.bind or lan_address()
    broker = EmbeddedBroker(bind, args.port)
    try:
        endpoint = broker.start()
    except BrokerError as exc:
        print(f"trutnet play: {exc}", file=sys.stderr)
        return 2
    table_id = os.urandom(16)
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
                    table_id=table_id,
                    hooks=hooks,
                    on_announce=on_announce,
                    identity=player_identity(),
                    own_broker=True,
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
                print(
                    f"{d['name']:<24} {d['variant']:<10} seats {d['seats']:<5} {d['status']:<8}"
                    f" host {d['host']}  join: trutnet join --broker {d['broker']} "
                    f"--table {d['table']}",
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
    p.add_argument(
        "--no-announce",
        dest="announce",
        action="store_false",
        help="do not announce the table with zeroconf",
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
    hp.add_argument("--table-id", help=argparse.SUPPRESS)
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
    _lan_search_options(jp)
    network_options(jp, None)


def install_signal_exit() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


logging.getLogger("aiomqtt").setLevel(logging.CRITICAL)
