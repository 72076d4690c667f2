"""The ``trutnet`` command line: :func:`main`, every command's arguments, and
``selfplay``, ``verify`` and ``bench`` themselves (``sim`` and ``arena`` in modules of
their own). The commands that sit at a table
over the network have a module each (``host_command``, ``join_command``,
``play_command``, ``watch_command``, ``lan_tables``, ``selfplay_mqtt``), their
arguments in :mod:`trutnet.cli.table_arguments`; which game a command plays
(``--game``, its options, its bots) in :mod:`trutnet.cli.games`. The game plugins
are loaded first (:mod:`trutnet.plugins`); no game is named here.

Every argument is untrusted: a bad one gets a clear message and exit status 2. No
traceback reaches a person: Ctrl-C ends a command with one line and status 130, and
an unexpected error is one line too (``TRUTNET_DEBUG=1`` shows the traceback). A
command that seems stuck prints where each of its threads is on ``kill -USR1 PID``
and of each of its asyncio tasks, and goes on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import json
import os
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from trutnet.cli.arguments import Refused, bounded, meant, whole
from trutnet.cli.games import (
    DEFAULT_GAME,
    ChoiceError,
    bots_of,
    config_options,
    describe,
    game_argument,
    game_of,
    game_options,
    options_listing,
    variant_option,
    wants_listing,
)
from trutnet.plugins import load_plugins

MAX_GAMES = 1_000_000


_positive = whole(1, MAX_GAMES)
_delay = bounded(
    float, "a number of milliseconds", lambda ms: 0 <= ms <= 1000, "must be 0..1000 ms, not {text}"
)
_seed = whole(0, 2**64 - 1, "must be 0..2^64-1")


class Parser(argparse.ArgumentParser):
    """argparse's parser, but a bad argument gets one line, never the whole usage:
    ``trutnet join: error: ...``, where ``--help`` shows the rest, and status 2."""

    def error(self, message: str) -> NoReturn:
        if "invalid choice: " in message:  # a misspelt command or choice: the likely one
            words = re.findall(r"'([^']+)'", message)
            message += meant(words[0], words[1:]) if words else ""
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help shows every option)\n")


def _parser() -> argparse.ArgumentParser:
    from trutnet import __version__
    from trutnet.engine import game_names, game_type

    titles = [t.title for t in map(game_type, game_names()) if t is not None]
    parser = Parser(
        prog="trutnet",
        description=f"Peer-to-peer card games on a LAN, with no server: {', '.join(titles)}.",
    )
    parser.add_argument("--version", action="version", version=f"trutnet {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from trutnet.cli.running import HelpFormatter
    from trutnet.cli.table_arguments import add_network_commands

    _selfplay_parser(sub, HelpFormatter)
    _bench_parser(sub, HelpFormatter)
    _saved_game_parsers(sub)
    add_network_commands(sub, _seed)
    from trutnet.cli.sim_command import add_sim_command

    add_sim_command(sub, _seed, HelpFormatter)
    from trutnet.cli.arena_command import add_arena_command

    add_arena_command(sub, _seed, HelpFormatter)
    return parser


def _selfplay_parser(sub: Any, formatter: Any) -> None:
    from trutnet.cli.table_arguments import broker_arg, folder_arg

    sp = sub.add_parser(
        "selfplay",
        help="bots play whole games with the engine alone",
        formatter_class=formatter,
    )
    game_argument(sp)
    game_options(sp, players=4)
    sp.add_argument("--games", type=_positive, default=1, help="how many games")
    sp.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help="the run's seed: the same seed and options give the same games",
    )
    sp.add_argument(
        "--bots",
        metavar="KIND|K1,K2,...",
        help="bot kind for every seat, or one per seat, comma-separated (default: the "
        "game's best bot; Trut's: heuristic; every game has random)",
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


def _bench_parser(sub: Any, formatter: Any) -> None:
    bp = sub.add_parser("bench", help="print performance figures", formatter_class=formatter)
    bp.add_argument(
        "target",
        choices=("engine", "crypto", "protocol", "network", "bots"),
        help="what to measure (bots: each bot's time per decision)",
    )
    game_argument(bp, "engine, protocol, network, bots: the game to measure")
    bp.add_argument(
        "--games",
        type=_positive,
        default=None,
        help="engine: games per row (400); bots: games per bot (4)",
    )
    variant_option(bp)
    config_options(bp)
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


def _saved_game_parsers(sub: Any) -> None:
    """``verify`` and ``replay``: a saved game's transcript."""
    vp = sub.add_parser(
        "verify",
        help="check a saved game transcript offline",
        description="Check every signature, proof and move of a saved game, and print the "
        "table id and each seat's key fingerprint to compare with the other players.",
    )
    vp.add_argument("file", type=Path, help="a transcript (the game's .json file)")

    rp = sub.add_parser(
        "replay",
        help="step through a saved game on the spectator's screen",
        description="Read a saved game as a spectator (every signature, proof and move "
        "checked) and step through it move by move: ←/→ a move, ↑/↓ a round, Home/End, "
        "q leaves. Only what a spectator sees is shown: no hand.",
    )
    rp.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="a transcript (the game's .json file); without it, the newest saved game "
        "(trutnet games lists them)",
    )
    rp.add_argument("--at", type=_move_number, default=1, help="start at this move (1: the first)")
    rp.add_argument(
        "--print",
        action="store_true",
        help="print that move's screen and stop (what it does when the output is not a terminal)",
    )


def _selfplay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from trutnet.selfplay import game_seeds, play_game, side_name, summarise

    game = game_of(args)
    bots = bots_of(args.bots, game)
    if args.save is not None and args.transport != "memory":
        _subparser(parser, "selfplay").error("--save needs --transport memory")
    if args.broker is not None and args.transport != "mqtt":
        _subparser(parser, "selfplay").error("--broker needs --transport mqtt")
    if args.transport == "memory":
        return _selfplay_memory(args, game, bots)
    if args.transport == "mqtt":
        from trutnet.cli.selfplay_mqtt import cmd_selfplay_mqtt

        return cmd_selfplay_mqtt(args, game, bots)
    echo = print if args.verbose and not args.json else None
    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        if echo:  # each game's own seed is derived from --seed: game N of --seed S
            echo(f"=== Game {number} of --seed {args.seed} ===")
        results.append(play_game(game, seed, bots, echo))
    summary = summarise(game, args.seed, results)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    name, details = describe(game)
    print(f"{name}, {details}, seed {args.seed}")
    print(
        f"games: {summary['games']}  hands: {summary['hands']}  "
        f"mean hands per game: {summary['mean_hands_per_game']}"
    )
    teams = [list(t) for t in game.teams()]
    for team, wins in enumerate(summary["wins"]):
        print(f"  {side_name(teams, team)}: {wins} win{'' if wins == 1 else 's'}")
    if summary.get("draws"):
        print(f"  nobody: {summary['draws']} game{'' if summary['draws'] == 1 else 's'}")
    return 0


def _selfplay_memory(args: argparse.Namespace, game: Any, bots: list[str]) -> int:
    from trutnet.memory_table import play_memory_game
    from trutnet.selfplay import GameResult, game_seeds, summarise
    from trutnet.store import save_transcript

    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        table = play_memory_game(game, seed, bots)
        hashes = {p.replica.state.state_hash() for p in table.peers if p.replica.state}
        replica = table.peers[0].replica
        if replica.phase != "done" or len(hashes) != 1:
            print(
                f"game {number}: the table did not finish cleanly: {replica.halted}",
                file=sys.stderr,
            )
            return 1
        state = replica.state
        assert state is not None
        if args.save is not None:
            for peer in table.peers:
                path = args.save / f"game-{number}-seat-{peer.seat}.json"
                save_transcript(path, replica.table_id, [e.wire for e in peer.replica.log.entries])
        hands = state.round_number() + 1
        if args.verbose and not args.json:
            print(
                f"game {number}: {len(table.log)} entries, {hands} hands, "
                f"state {state.state_hash()[:16]}, all {game.num_players()} peers agree"
            )
        results.append(GameResult(state.winning_team(), hands, state.state_hash(), {}))
    summary = summarise(game, args.seed, results)
    summary["transport"] = "memory"
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    name, details = describe(game)
    print(f"{name} over the table protocol (in memory, full crypto), {details}, seed {args.seed}")
    print(
        f"games: {summary['games']}  hands: {summary['hands']}  "
        f"mean hands per game: {summary['mean_hands_per_game']}  wins: {summary['wins']}"
    )
    if args.save is not None:
        print(f"transcripts saved in {args.save}")
    return 0


def _say(line: str, width: int = 80) -> None:
    """A line of ``verify``'s report, wrapped at a terminal's 80 columns: the rest of a
    long line goes on under it, indented."""
    import textwrap

    indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
    print(textwrap.fill(line, width, subsequent_indent=indent, break_long_words=False))


_move_number = bounded(
    int, "a move number", lambda n: 1 <= n <= 1_000_000, "a move from 1, not {text}"
)


def _replay(args: argparse.Namespace) -> int:
    from trutnet.client.replay import ReplayScreen, frame_text, load_replay
    from trutnet.store import StoreError, load_transcript

    if args.file is None:  # the newest saved game
        from trutnet.cli.folders import data_dir

        saved = sorted((data_dir() / "games").glob("*.json"), key=lambda p: p.stat().st_mtime)
        if not saved:
            print(f"trutnet replay: no saved game in {data_dir() / 'games'}", file=sys.stderr)
            return 2
        args.file = saved[-1]
        print(f"trutnet replay: the newest saved game, {args.file}", file=sys.stderr)
    try:
        table_id, wires = load_transcript(args.file)
        replay = load_replay(table_id, wires)
    except (StoreError, ValueError) as exc:
        print(f"trutnet replay: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, StoreError) else 1
    if replay.failure is not None:
        print(
            f"trutnet replay: the transcript stops verifying at {replay.failure}; "
            "replayed up to there",
            file=sys.stderr,
        )
    at = min(args.at, len(replay.frames)) - 1
    if args.print or not sys.stdout.isatty():
        print(frame_text(replay, at))
    else:
        ReplayScreen(replay, at).app.run()
    return 1 if replay.failure is not None else 0


def _verify(args: argparse.Namespace) -> int:
    from trutnet.client.frontend import NoFrontend, frontend_for
    from trutnet.crypto.identity import fingerprint
    from trutnet.protocol.audit import audit
    from trutnet.selfplay import who_won
    from trutnet.store import StoreError, read_transcript

    try:
        transcript = read_transcript(args.file)
    except StoreError as exc:
        print(f"trutnet verify: {exc}", file=sys.stderr)
        return 2
    table_id, wires = transcript.table_id, transcript.entries
    report = audit(table_id, wires)
    state = report.replica.state
    print(f"table {table_id.hex()}")
    final = report.seated
    for seat, (name, key) in enumerate(report.opened):
        line = f"  seat {seat}: {name:<32} key {fingerprint(key)}"
        if seat < len(final) and final[seat][1] != key:
            line += f"  (replaced: now {final[seat][0]}, key {fingerprint(final[seat][1])})"
        _say(line)
    frontend = None
    if state is not None:
        with contextlib.suppress(NoFrontend):  # the game's narration, if it has one
            frontend = frontend_for(state.game.name)
    names = [name for name, _ in report.opened]  # who played each seat from the start
    if frontend is not None:
        for event in frontend.events(state):
            for line in frontend.narrate(event, state, names or None):
                _say(line)
    from trutnet.protocol.replace import describe

    for change in report.replica.changes:  # 7.7: replaced seats, an abandoned game
        _say(describe(change))
    counts = report.counts
    # at most 80 columns a line
    _say(f"entries checked: {report.entries} of {len(wires)} (signatures, chain, turns)")
    _say(
        f"shuffle proofs: {counts['shuffle']}; share batches: {counts['shares']}; "
        f"decisions: {counts['act'] + counts['seal']}; checkpoints: {counts['checkpoint']}"
    )
    if counts["blind"]:
        _say(f"equality tests: {counts['blind']} blindings, {counts['unblind']} shares")
    if report.failure is not None:
        where = f"entry {report.failed_at}: " if report.failed_at is not None else ""
        print(f"FAILED: {where}{report.failure}", file=sys.stderr)
        if report.blame is not None:
            print(f"blame: {report.blame}", file=sys.stderr)
        return 1
    if transcript.chat and not _chat_verified(table_id, transcript.chat, report):
        return 1
    assert state is not None
    if report.replica.abandoned is not None:
        seat = report.replica.abandoned.seat
        who = f"{names[seat]} (seat {seat})" if 0 <= seat < len(names) else f"seat {seat}"
        _say(f"OK: the transcript is valid; the game was abandoned waiting for {who}")
        return 0
    teams = [list(t) for t in state.game.teams()]
    score = frontend.score(state) if frontend is not None else ""
    score = f", {score}" if score else ""
    winner = who_won(teams, state.winning_team(), report.replica.names)
    _say(f"OK: the transcript is valid; {winner}{score}")
    print("compare the table id and the key fingerprints with the other players")
    return 0


def _chat_verified(table_id: bytes, wires: list[bytes], report: Any) -> bool:
    """The transcript's chat (9.6): one line for what was said, or FAILED."""
    from trutnet.protocol.chat import audit_chat

    lines, failure = audit_chat(table_id, wires, [report.opened, report.seated])
    if failure is not None:
        print(f"FAILED: {failure}", file=sys.stderr)
        return False
    by_seats = sum(1 for line in lines if line.seat is not None)
    said = f"{by_seats} from seats, {len(lines) - by_seats} from spectators"
    count = f"{len(lines)} message{'' if len(lines) == 1 else 's'}"
    _say(f"chat: {count} ({said}), each signed by its author")
    return True


def _bench(args: argparse.Namespace) -> int:
    if args.hop_delay_ms is not None and args.target != "network":
        raise ChoiceError("--hop-delay-ms is for the network benchmark")
    if args.target == "crypto" and args.game != DEFAULT_GAME:
        raise ChoiceError("the crypto benchmark plays no game (no --game)")
    game = game_of(args)
    if args.target == "bots":
        from trutnet.arena import decision_report, decision_times
        from trutnet.bots import bot_kinds

        kinds = bot_kinds(game.name)
        figures = decision_times(game, kinds, args.games or 4, seed=1)
        print(json.dumps(figures, sort_keys=True) if args.json else decision_report(figures))
        return 0
    if args.target == "network":
        from trutnet.bench import network_bench as bench  # type: ignore[no-redef]
        from trutnet.cli.games import bot_of, config_arguments

        figures = bench.run(
            hop_delay_ms=args.hop_delay_ms,
            game=game,
            game_args=config_arguments(game),
            bot=bot_of(game, None),
        )
    elif args.target == "protocol":
        from trutnet.bench import protocol_bench as bench

        figures = bench.run(game)
    elif args.target == "crypto":
        from trutnet.bench import crypto_bench as bench  # type: ignore[no-redef]

        figures = bench.run(repeats=args.repeats)
    else:
        from trutnet.bench import engine_bench as bench  # type: ignore[no-redef]

        options = {k: v for k, v in game.config_dict().items() if k != "players"}
        figures = bench.run(game.name, games=args.games or 400, config=options)
    print(json.dumps(figures, sort_keys=True) if args.json else bench.report(figures))
    return 0


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of ``command`` (``trutnet join``), for an error in its own name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]  # type: ignore[no-any-return]
    return parser


def _meant(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """``; did you mean --resume?`` for a misspelt option, or nothing."""
    known = [o for action in parser._actions for o in action.option_strings]
    for word in extra:
        said = meant(word.split("=", 1)[0], known) if word.startswith("--") else ""
        if said:
            return said
    return ""


def _print_stacks(signum: int, frame: Any) -> None:
    """``kill -USR1``: every thread's stack, then every asyncio task's (what each one
    awaits), on standard error; the command goes on."""
    faulthandler.dump_traceback(all_threads=True)
    with contextlib.suppress(RuntimeError):  # no event loop runs: the threads say it all
        for task in asyncio.all_tasks(asyncio.get_running_loop()):
            print(f"task {task.get_name()}:", file=sys.stderr)
            task.print_stack(limit=12, file=sys.stderr)
    print("(end of the stacks)", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser, not by trutnet's
        command = _subparser(parser, args.command)
        command.error(f"unrecognized arguments: {' '.join(extra)}{_meant(command, extra)}")
    # A module of $TRUTNET_GAME_PLUGINS was asked for: it must load. An installed
    # plugin that does not is reported, and its game is unknown to this command.
    if hasattr(signal, "SIGUSR1"):  # where a stuck command is, on request
        signal.signal(signal.SIGUSR1, _print_stacks)
    problems = load_plugins()
    for problem in problems:
        print(f"trutnet {args.command}: {problem}", file=sys.stderr)
    if any(problem.from_variable for problem in problems):
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
        if wants_listing(args):  # --option help: the game's options, from its declaration
            print(options_listing(getattr(args, "game", DEFAULT_GAME)))
            return 0
        if args.command == "selfplay":
            return _selfplay(args, parser)
        if args.command == "verify":
            return _verify(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "sim":
            from trutnet.cli.sim_command import cmd_sim

            return cmd_sim(args)
        if args.command == "arena":
            from trutnet.cli.arena_command import cmd_arena

            return cmd_arena(args)
        if args.command in ("host", "join", "tables", "play", "watch", "games"):
            from trutnet.cli.folders import cmd_games
            from trutnet.cli.host_command import cmd_host
            from trutnet.cli.join_command import cmd_join
            from trutnet.cli.lan_tables import cmd_tables
            from trutnet.cli.play_command import cmd_play
            from trutnet.cli.running import install_signal_exit
            from trutnet.cli.watch_command import cmd_watch

            install_signal_exit()
            handler = {
                "host": cmd_host,
                "join": cmd_join,
                "tables": cmd_tables,
                "play": cmd_play,
                "watch": cmd_watch,
                "games": cmd_games,
            }[args.command]
            return handler(args)
        return _bench(args)
    except Refused as exc:  # a table command's one line
        print(exc, file=sys.stderr)
        return exc.status
    except ChoiceError as exc:  # an argument that cannot be had: said as argparse says it
        prog = f"trutnet {args.command}"
        print(f"{prog}: error: {exc} ({prog} --help shows every option)", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
