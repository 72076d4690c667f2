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
from trutnet.cli.language import LanguageError, add_lang_option, name_placeholders, speak
from trutnet.i18n import N_, _, ngettext
from trutnet.i18n import number as decimal
from trutnet.plugins import load_plugins

MAX_GAMES = 1_000_000


_positive = whole(1, MAX_GAMES)
_delay = bounded(
    float,
    N_("a number of milliseconds"),
    lambda ms: 0 <= ms <= 1000,
    N_("must be 0..1000 ms, not {text}"),
)
_seed = whole(0, 2**64 - 1, N_("must be 0..2^64-1"))


class Parser(argparse.ArgumentParser):
    """argparse's parser, but a bad argument gets one line, never the whole usage:
    ``trutnet join: error: ...``, where ``--help`` shows the rest, and status 2."""

    def error(self, message: str) -> NoReturn:
        # argparse's words are the person's language's: its refusal of a choice too
        invalid = _("invalid choice: %(value)r (choose from %(choices)s)").split("%(")[0]
        if invalid in message:  # a misspelt command or choice: the likely one
            words = re.findall(r"'([^']+)'", message)
            message += meant(words[0], words[1:]) if words else ""
        self.exit(2, _error_line(self.prog, message) + "\n")


def _error_line(prog: str, message: str) -> str:
    """``trutnet join: error: ...``, as argparse says it, and where to read more."""
    return _("{prog}: error: {message} ({prog} --help shows every option)").format(
        prog=prog, message=message
    )


def _parser(*, named: bool = True) -> argparse.ArgumentParser:
    """Every command's parser; ``named``: with the placeholders' words in this language
    (False: as the code writes them)."""
    from trutnet import __version__
    from trutnet.engine import game_names, game_type

    titles = [t.title for t in map(game_type, game_names()) if t is not None]
    parser = Parser(
        prog="trutnet",
        description=_("Peer-to-peer card games on a LAN, with no server: {games}.").format(
            games=", ".join(titles)
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"trutnet {__version__}",
        help=_("show program's version number and exit"),  # argparse 3.11's is not translated
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from trutnet.cli.running import HelpFormatter
    from trutnet.cli.table_arguments import add_network_commands

    _selfplay_parser(sub, HelpFormatter)
    _bench_parser(sub, HelpFormatter)
    from trutnet.cli.saved_games import add_saved_game_commands

    add_saved_game_commands(sub)
    add_network_commands(sub, _seed)
    from trutnet.cli.sim_command import add_sim_command

    add_sim_command(sub, _seed, HelpFormatter)
    from trutnet.cli.arena_command import add_arena_command

    add_arena_command(sub, _seed, HelpFormatter)
    add_lang_option(parser)
    if named:
        name_placeholders(parser)
    return parser


def _selfplay_parser(sub: Any, formatter: Any) -> None:
    from trutnet.cli.table_arguments import broker_arg, folder_arg

    sp = sub.add_parser(
        "selfplay",
        help=_("bots play whole games with the engine alone"),
        formatter_class=formatter,
    )
    game_argument(sp)
    game_options(sp, players=4)
    sp.add_argument("--games", type=_positive, default=1, help=_("how many games"))
    sp.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help=_("the run's seed: the same seed and options give the same games"),
    )
    sp.add_argument(
        "--bots",
        metavar="KIND|K1,K2,...",
        help=_(
            "bot kind for every seat, or one per seat, comma-separated (default: the "
            "game's best bot; Trut's: heuristic; every game has random)"
        ),
    )
    sp.add_argument(
        "--transport",
        choices=("none", "memory", "mqtt"),
        default="none",
        help=_(
            "none: the engine alone; memory: peers with full crypto in memory; "
            "mqtt: one OS process per peer over a broker"
        ),
    )
    sp.add_argument(
        "--broker",
        type=broker_arg,
        help=_("with --transport mqtt: an external broker mqtt://host:port"),
    )
    sp.add_argument(
        "--save",
        type=folder_arg,
        metavar="DIR",
        help=_("with --transport memory: save every peer's transcript in DIR"),
    )
    sp.add_argument("--verbose", action="store_true", help=_("print every hand"))
    sp.add_argument("--json", action="store_true", help=_("print the summary as JSON"))


def _bench_parser(sub: Any, formatter: Any) -> None:
    bp = sub.add_parser("bench", help=_("print performance figures"), formatter_class=formatter)
    bp.add_argument(
        "target",
        choices=("engine", "crypto", "protocol", "network", "bots"),
        help=_("what to measure (bots: each bot's time per decision)"),
    )
    game_argument(bp, N_("engine, protocol, network, bots: the game to measure"))
    bp.add_argument(
        "--games",
        type=_positive,
        default=None,
        help=_("engine: games per row (400); bots: games per bot (4)"),
    )
    variant_option(bp)
    config_options(bp)
    bp.add_argument("--repeats", type=_positive, default=3, help=_("crypto: runs per row"))
    bp.add_argument(
        "--hop-delay-ms",
        type=_delay,
        default=None,
        metavar="MS",
        help=_(
            "network: play the game alone, each hop between a peer and the broker "
            "delayed MS milliseconds by a proxy"
        ),
    )
    bp.add_argument(
        "--sealed",
        action="store_true",
        help=_("network: play the game alone on a sealed table (host --invite, join CODE)"),
    )
    bp.add_argument("--json", action="store_true", help=_("print the figures as JSON"))


def _selfplay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from trutnet.selfplay import game_seeds, play_game, side_name, summarise

    game = game_of(args)
    bots = bots_of(args.bots, game)
    if args.save is not None and args.transport != "memory":
        _subparser(parser, "selfplay").error(_("--save needs --transport memory"))
    if args.broker is not None and args.transport != "mqtt":
        _subparser(parser, "selfplay").error(_("--broker needs --transport mqtt"))
    if args.transport == "memory":
        return _selfplay_memory(args, game, bots)
    if args.transport == "mqtt":
        from trutnet.cli.selfplay_mqtt import cmd_selfplay_mqtt

        return cmd_selfplay_mqtt(args, game, bots)
    echo = print if args.verbose and not args.json else None
    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        if echo:  # each game's own seed is derived from --seed: game N of --seed S
            echo(_("=== Game {number} of --seed {seed} ===").format(number=number, seed=args.seed))
        results.append(play_game(game, seed, bots, echo))
    summary = summarise(game, args.seed, results)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    name, details = describe(game)
    print(_("{name}, {details}, seed {seed}").format(name=name, details=details, seed=args.seed))
    print(
        _("games: {games}  hands: {hands}  mean hands per game: {mean}").format(
            games=summary["games"],
            hands=summary["hands"],
            mean=decimal(summary["mean_hands_per_game"]),
        )
    )
    teams = [list(t) for t in game.teams()]
    for team, wins in enumerate(summary["wins"]):
        said = ngettext("  {side}: {count} win", "  {side}: {count} wins", wins)
        print(said.format(side=side_name(teams, team), count=wins))
    if summary.get("draws"):
        draws = summary["draws"]
        print(
            ngettext("  nobody: {count} game", "  nobody: {count} games", draws).format(count=draws)
        )
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
                _("game {number}: the table did not finish cleanly: {why}").format(
                    number=number, why=replica.halted
                ),
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
                _(
                    "game {number}: {entries} entries, {hands} hands, "
                    "state {state}, all {peers} peers agree"
                ).format(
                    number=number,
                    entries=len(table.log),
                    hands=hands,
                    state=state.state_hash()[:16],
                    peers=game.num_players(),
                )
            )
        results.append(GameResult(state.winning_team(), hands, state.state_hash(), {}))
    summary = summarise(game, args.seed, results)
    summary["transport"] = "memory"
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    name, details = describe(game)
    print(
        _("{name} over the table protocol (in memory, full crypto), {details}, seed {seed}").format(
            name=name, details=details, seed=args.seed
        )
    )
    print(
        _("games: {games}  hands: {hands}  mean hands per game: {mean}  wins: {wins}").format(
            games=summary["games"],
            hands=summary["hands"],
            mean=summary["mean_hands_per_game"],
            wins=summary["wins"],
        )
    )
    if args.save is not None:
        print(_("transcripts saved in {folder}").format(folder=args.save))
    return 0


def _bench(args: argparse.Namespace) -> int:
    if (args.hop_delay_ms is not None or args.sealed) and args.target != "network":
        raise ChoiceError(_("--hop-delay-ms and --sealed are for the network benchmark"))
    if args.target == "crypto" and args.game != DEFAULT_GAME:
        raise ChoiceError(_("the crypto benchmark plays no game (no --game)"))
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
            sealed=args.sealed,
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
    try:  # first: --help, and every line below, speak the person's language
        speak(sys.argv[1:] if argv is None else argv, os.environ)
    except LanguageError as exc:
        print(f"trutnet: {exc}", file=sys.stderr)
        return 2
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser, not by trutnet's
        command = _subparser(parser, args.command)
        said = _("unrecognized arguments: %s") % " ".join(extra)
        command.error(said + _meant(command, extra))
    # A module of $TRUTNET_GAME_PLUGINS was asked for: it must load. An installed
    # plugin that does not is reported, and its game is unknown to this command.
    if hasattr(signal, "SIGUSR1"):  # where a stuck command is, on request
        signal.signal(signal.SIGUSR1, _print_stacks)
    problems = load_plugins()
    for problem in problems:
        print(
            _("trutnet {command}: {problem}").format(command=args.command, problem=problem),
            file=sys.stderr,
        )
    if any(problem.from_variable for problem in problems):
        return 2
    try:
        return _command(args, parser)
    except KeyboardInterrupt:
        print(
            "\n" + _("trutnet {command}: interrupted").format(command=args.command), file=sys.stderr
        )
        return 130
    except Exception as exc:
        if os.environ.get("TRUTNET_DEBUG"):
            raise
        what = f"{type(exc).__name__}: {exc}"[:300]
        print(
            _("trutnet {command}: unexpected error: {what} (TRUTNET_DEBUG=1 shows where)").format(
                command=args.command, what=what
            ),
            file=sys.stderr,
        )
        return 1


def _command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        if wants_listing(args):  # --option help: the game's options, from its declaration
            game = getattr(args, "game", DEFAULT_GAME)
            print(options_listing(game, players=getattr(args, "players", None)))
            return 0
        if args.command == "selfplay":
            return _selfplay(args, parser)
        if args.command in ("verify", "replay"):
            from trutnet.cli.saved_games import cmd_replay, cmd_verify

            return cmd_verify(args) if args.command == "verify" else cmd_replay(args)
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
            from trutnet.cli.passwords import ask_broker_password
            from trutnet.cli.play_command import cmd_play
            from trutnet.cli.running import install_signal_exit
            from trutnet.cli.watch_command import cmd_watch

            install_signal_exit()
            ask_broker_password(args)  # a broker given with a user, on a terminal
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
    except Refused as exc:  # a table command's one line (said already when empty)
        if str(exc):
            print(exc, file=sys.stderr)
        return exc.status
    except ChoiceError as exc:  # an argument that cannot be had: said as argparse says it
        print(_error_line(f"trutnet {args.command}", str(exc)), file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
