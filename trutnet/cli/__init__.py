"""The ``trutnet`` command line: :func:`main`, every command's arguments, and
``selfplay``, ``verify`` and ``bench`` themselves. The commands that sit at a table
over the network (``host``, ``join``, ``play``, ``tables``, ``selfplay --transport
mqtt``) live in :mod:`trutnet.cli.table_commands`.

Every argument is untrusted: a bad one gets a clear message and exit status 2. No
traceback reaches a person: Ctrl-C ends a command with one line and status 130, and
an unexpected error is one line too (``TRUTNET_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from trutnet.bots import BOT_KINDS
from trutnet.engine.errors import ConfigError
from trutnet.engine.games.trut import TrutConfig, TrutGame

MAX_GAMES = 1_000_000


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_GAMES}, not {value}")
    return value


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of milliseconds: {text!r}") from None
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be 0..1000 ms, not {text}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("must be 0..2^64-1")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trutnet", description="Peer-to-peer card games on a LAN: Trut."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from trutnet.cli.table_commands import (
        HelpFormatter,
        add_network_commands,
        broker_arg,
        folder_arg,
    )

    sp = sub.add_parser(
        "selfplay",
        help="bots play whole games with the engine alone",
        formatter_class=HelpFormatter,
    )
    sp.add_argument(
        "--players", type=int, choices=(2, 3, 4, 6), default=4, help="seats at the table"
    )
    sp.add_argument(
        "--variant", choices=("classic", "gatinaise"), default="classic", help="Trut variant"
    )
    sp.add_argument(
        "--sum-on-patte",
        action="store_true",
        help="6 players: a patté trick goes to the larger sum of values [T21]",
    )
    sp.add_argument("--games", type=_positive, default=1, help="how many games")
    sp.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help="the run's seed: the same seed and options give the same games",
    )
    sp.add_argument(
        "--bots",
        default="heuristic",
        help=f"bot kind for every seat, or one per seat, comma-separated ({', '.join(BOT_KINDS)})",
    )
    sp.add_argument(
        "--transport",
        choices=("none", "memory", "mqtt"),
        default="none",
        help="none: the engine alone; memory: peers with full crypto in memory; "
        "mqtt: one OS process per peer over a broker",
    )
    sp.add_argument(
        "--broker",
        type=broker_arg,
        help="with --transport mqtt: an external broker mqtt://host:port",
    )
    sp.add_argument(
        "--save",
        type=folder_arg,
        metavar="DIR",
        help="with --transport memory: save every peer's transcript in DIR",
    )
    sp.add_argument("--verbose", action="store_true", help="print every hand")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")

    bp = sub.add_parser("bench", help="print performance figures", formatter_class=HelpFormatter)
    bp.add_argument(
        "target", choices=("engine", "crypto", "protocol", "network"), help="what to measure"
    )
    bp.add_argument("--games", type=_positive, default=400, help="engine: games per row")
    bp.add_argument("--repeats", type=_positive, default=3, help="crypto: runs per row")
    bp.add_argument(
        "--hop-delay-ms",
        type=_delay,
        default=None,
        metavar="D",
        help="network: play the game alone, each hop between a peer and the broker "
        "delayed D ms by a proxy",
    )
    bp.add_argument("--json", action="store_true", help="print the figures as JSON")

    vp = sub.add_parser(
        "verify",
        help="check a saved game transcript offline",
        description="Check every signature, proof and move of a saved game, and print the "
        "table id and each seat's key fingerprint to compare with the other players.",
    )
    vp.add_argument("file", type=Path, help="a transcript (the game's .json file)")

    add_network_commands(sub, _seed)
    return parser


def _bots(text: str, players: int, parser: argparse.ArgumentParser) -> list[str]:
    kinds = text.split(",")
    if len(kinds) == 1:
        kinds = kinds * players
    if len(kinds) != players or any(k not in BOT_KINDS for k in kinds):
        parser.error(
            f"--bots: give one of {', '.join(BOT_KINDS)}, or {players} of them separated by commas"
        )
    return kinds


def _selfplay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from trutnet.selfplay import game_seeds, play_game, summarise

    try:
        config = TrutConfig(args.players, args.variant, args.sum_on_patte)
    except ConfigError as exc:
        parser.error(str(exc))
    bots = _bots(args.bots, args.players, parser)
    if args.save is not None and args.transport != "memory":
        parser.error("--save needs --transport memory")
    if args.broker is not None and args.transport != "mqtt":
        parser.error("--broker needs --transport mqtt")
    if args.transport == "memory":
        return _selfplay_memory(args, config, bots)
    if args.transport == "mqtt":
        from trutnet.cli.table_commands import cmd_selfplay_mqtt

        return cmd_selfplay_mqtt(args, TrutGame(config))
    echo = print if args.verbose and not args.json else None
    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        if echo:  # each game's own seed is derived from --seed: game N of --seed S
            echo(f"=== Game {number} of --seed {args.seed} ===")
        results.append(play_game(config, seed, bots, echo))
    summary = summarise(config, args.seed, results)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(
        f"Trut, {config.players} players, {config.variant}"
        + (", sum on patté" if config.sum_on_patte else "")
        + f", seed {args.seed}"
    )
    print(
        f"games: {summary['games']}  hands: {summary['hands']}  "
        f"mean hands per game: {summary['mean_hands_per_game']}"
    )
    from trutnet.selfplay import side_name

    teams = [list(t) for t in config.teams]
    for team, wins in enumerate(summary["wins"]):
        print(f"  {side_name(teams, team)}: {wins} win{'' if wins == 1 else 's'}")
    return 0


def _selfplay_memory(args: argparse.Namespace, config: TrutConfig, bots: list[str]) -> int:
    from trutnet.net.memory import play_memory_game
    from trutnet.selfplay import GameResult, game_seeds, summarise
    from trutnet.store import save_transcript

    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        table = play_memory_game(TrutGame(config), seed, bots)
        hashes = {p.replica.state.state_hash() for p in table.peers if p.replica.state}
        replica = table.peers[0].replica
        if replica.phase != "done" or len(hashes) != 1:
            print(
                f"game {number}: the table did not finish cleanly: {replica.halted}",
                file=sys.stderr,
            )
            return 1
        state = replica.state
        assert state is not None and state.winner is not None
        if args.save is not None:
            for peer in table.peers:
                path = args.save / f"game-{number}-seat-{peer.seat}.json"
                save_transcript(path, replica.table_id, [e.wire for e in peer.replica.log.entries])
        if args.verbose and not args.json:
            print(
                f"game {number}: {len(table.log)} entries, {state.hand_number + 1} hands, "
                f"state {state.state_hash()[:16]}, all {config.players} peers agree"
            )
        results.append(GameResult(state.winner, state.hand_number + 1, state.state_hash(), {}))
    summary = summarise(config, args.seed, results)
    summary["transport"] = "memory"
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    print(
        f"Trut over the table protocol (in memory, full crypto), {config.players} players, "
        f"{config.variant}, seed {args.seed}"
    )
    print(
        f"games: {summary['games']}  hands: {summary['hands']}  "
        f"mean hands per game: {summary['mean_hands_per_game']}  wins: {summary['wins']}"
    )
    if args.save is not None:
        print(f"transcripts saved in {args.save}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from trutnet.client.narration import narrate
    from trutnet.crypto.identity import fingerprint
    from trutnet.protocol.audit import audit
    from trutnet.selfplay import side_name
    from trutnet.store import StoreError, load_transcript

    try:
        table_id, wires = load_transcript(args.file)
    except StoreError as exc:
        print(f"trutnet verify: {exc}", file=sys.stderr)
        return 2
    report = audit(table_id, wires)
    state = report.replica.state
    print(f"table {table_id.hex()}")
    final = report.seated
    for seat, (name, key) in enumerate(report.opened):
        line = f"  seat {seat}: {name:<32} key {fingerprint(key)}"
        if seat < len(final) and final[seat][1] != key:
            line += f"  (replaced: now {final[seat][0]}, key {fingerprint(final[seat][1])})"
        print(line)
    if state is not None and state.game.name == "trut":  # the plugin's narration
        for event in state.events:  # type: ignore[attr-defined]
            for line in narrate(event, state, show_hands=False):  # type: ignore[arg-type]
                print(line)
    from trutnet.protocol.replace import describe

    for change in report.replica.changes:  # 7.7: replaced seats, an abandoned game
        print(describe(change))
    counts = report.counts
    print(
        f"entries checked: {report.entries} of {len(wires)} (signatures, chain, turns); "
        f"shuffle proofs: {counts['shuffle']}; share batches: {counts['shares']}; "
        f"decisions: {counts['act'] + counts['seal']}; checkpoints: {counts['checkpoint']}"
    )
    if report.failure is not None:
        where = f"entry {report.failed_at}: " if report.failed_at is not None else ""
        print(f"FAILED: {where}{report.failure}", file=sys.stderr)
        if report.blame is not None:
            print(f"blame: {report.blame}", file=sys.stderr)
        return 1
    assert state is not None
    if report.replica.abandoned is not None:
        print(f"OK: the transcript is valid; abandoned (seat {report.replica.abandoned.seat})")
        return 0
    teams = [list(t) for t in state.game.teams()]
    score = ""
    if state.game.name == "trut":
        score = f", Longs {state.longs}, Petits {state.petits}"  # type: ignore[attr-defined]
    print(f"OK: the transcript is valid; {side_name(teams, state.winning_team())} wins{score}")
    print("compare the table id and the key fingerprints with the other players")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.hop_delay_ms is not None and args.target != "network":
        print("trutnet bench: --hop-delay-ms is for the network benchmark", file=sys.stderr)
        return 2
    if args.target == "network":
        from trutnet.bench import network_bench as bench  # type: ignore[no-redef]

        figures = bench.run(hop_delay_ms=args.hop_delay_ms)
    elif args.target == "protocol":
        from trutnet.bench import protocol_bench as bench

        figures = bench.run()
    elif args.target == "crypto":
        from trutnet.bench import crypto_bench as bench  # type: ignore[no-redef]

        figures = bench.run(repeats=args.repeats)
    else:
        from trutnet.bench import engine_bench as bench  # type: ignore[no-redef]

        figures = bench.run(games=args.games)
    print(json.dumps(figures, sort_keys=True) if args.json else bench.report(figures))
    return 0


PLUGINS_VARIABLE = "TRUTNET_GAME_PLUGINS"


def load_game_plugins(value: str) -> str | None:
    """Import each module that ``value`` names (comma-separated, from
    ``$TRUTNET_GAME_PLUGINS``): a game plugin registers its games with
    :func:`trutnet.engine.register_game` when imported, so that this process can host,
    join, follow or verify a table of them. Returns what went wrong, or None."""
    import importlib

    for name in (n.strip() for n in value.split(",")):
        if not name:
            continue
        try:
            importlib.import_module(name)
        except Exception as exc:
            return f"${PLUGINS_VARIABLE}: cannot load {name!r}: {type(exc).__name__}: {exc}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    problem = load_game_plugins(os.environ.get(PLUGINS_VARIABLE, ""))
    if problem is not None:
        print(f"trutnet {args.command}: {problem[:300]}", file=sys.stderr)
        return 2
    try:
        return _command(args, parser)
    except KeyboardInterrupt:
        print(f"\ntrutnet {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("TRUTNET_DEBUG"):
            raise
        what = f"{type(exc).__name__}: {exc}"[:300]
        print(
            f"trutnet {args.command}: unexpected error: {what} (TRUTNET_DEBUG=1 shows where)",
            file=sys.stderr,
        )
        return 1


def _command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        if args.command == "selfplay":
            return _selfplay(args, parser)
        if args.command == "verify":
            return _verify(args)
        if args.command in ("host", "join", "tables", "play", "watch"):
            from trutnet.cli import table_commands

            table_commands.install_signal_exit()
            handler = {
                "host": table_commands.cmd_host,
                "join": table_commands.cmd_join,
                "tables": table_commands.cmd_tables,
                "play": table_commands.cmd_play,
                "watch": table_commands.cmd_watch,
            }[args.command]
            return handler(args)
        return _bench(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
