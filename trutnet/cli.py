"""The ``trutnet`` command line: ``selfplay`` and ``bench`` (more commands come later).

Every argument is untrusted: a bad one gets a clear message and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from trutnet.bots import BOT_KINDS
from trutnet.engine.errors import ConfigError
from trutnet.engine.games.trut import TrutConfig

MAX_GAMES = 1_000_000


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_GAMES:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_GAMES}, not {value}")
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

    sp = sub.add_parser("selfplay", help="bots play whole games with the engine alone")
    sp.add_argument("--players", type=int, choices=(2, 3, 4, 6), default=4)
    sp.add_argument("--variant", choices=("classic", "gatinaise"), default="classic")
    sp.add_argument(
        "--sum-on-patte",
        action="store_true",
        help="6 players: a patté trick goes to the larger sum of values [T21]",
    )
    sp.add_argument("--games", type=_positive, default=1)
    sp.add_argument("--seed", type=_seed, default=0)
    sp.add_argument(
        "--bots",
        default="heuristic",
        help=f"bot kind for every seat, or one per seat, comma-separated ({', '.join(BOT_KINDS)})",
    )
    sp.add_argument("--verbose", action="store_true", help="print every hand")
    sp.add_argument("--json", action="store_true", help="print the summary as JSON")

    bp = sub.add_parser("bench", help="print performance figures")
    bp.add_argument("target", choices=("engine", "crypto"))
    bp.add_argument("--games", type=_positive, default=400, help="engine: games per row")
    bp.add_argument("--repeats", type=_positive, default=3, help="crypto: runs per row")
    bp.add_argument("--json", action="store_true")
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
    echo = print if args.verbose and not args.json else None
    results = []
    for number, seed in enumerate(game_seeds(args.seed, args.games), start=1):
        if echo:
            echo(f"=== Game {number} (seed {seed}) ===")
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
    for team, wins in enumerate(summary["wins"]):
        seats = "+".join(map(str, config.teams[team]))
        print(f"  {'seat' if len(config.teams[team]) == 1 else 'team'} {seats}: {wins} wins")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.target == "crypto":
        from trutnet.bench import crypto_bench as bench

        figures = bench.run(repeats=args.repeats)
    else:
        from trutnet.bench import engine_bench as bench  # type: ignore[no-redef]

        figures = bench.run(games=args.games)
    print(json.dumps(figures, sort_keys=True) if args.json else bench.report(figures))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "selfplay":
            return _selfplay(args, parser)
        return _bench(args)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
