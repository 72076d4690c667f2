"""``trutnet arena``: its arguments, the progress bar and the report.

The games themselves are :mod:`trutnet.arena`: two bots, seeded games in both seat
orders (teams in 4 and 6 players), in parallel processes, wins with a 95% interval
and an Elo difference.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from typing import Any

from trutnet.cli.arguments import add_jobs_option, whole
from trutnet.cli.games import ChoiceError, bots_of, describe, game_argument, game_of
from trutnet.i18n import _, ngettext
from trutnet.i18n import number as decimal

MAX_GAMES = 1_000_000


def add_arena_command(sub: Any, seed_type: Any, formatter: Any) -> None:
    from trutnet.cli.games import game_options

    p = sub.add_parser(
        "arena",
        help=_("two bots play each other: wins with a 95%% interval and Elo"),
        description=_(
            "Two bots play seeded games of one game against each other, in both "
            "seat orders (each deal twice, each bot on each side; a team game has each bot "
            "on every seat of its team), in parallel processes, and the wins of the first "
            "are given with a 95% confidence interval (Wilson) and the Elo difference. A "
            "bot may carry its budget: search:samples=16, search:ms=100."
        ),
        formatter_class=formatter,
    )
    game_argument(p)
    game_options(p, players=2)
    p.add_argument(
        "--bots",
        required=True,
        metavar="A,B",
        help=_("the two bots, comma-separated (e.g. search,heuristic)"),
    )
    p.add_argument(
        "--games", type=whole(1, MAX_GAMES), default=100, help=_("how many games (%(default)s)")
    )
    p.add_argument(
        "--seed",
        type=seed_type,
        default=0,
        help=_("the run's seed: the same seed and options give the same games"),
    )
    add_jobs_option(p, _("processes playing games at once (%(default)s); the result is the same"))
    p.add_argument("--json", action="store_true", help=_("print the summary as JSON"))


def cmd_arena(args: argparse.Namespace) -> int:
    from trutnet.arena import run, summarise

    game = game_of(args)
    if len(args.bots.split(",")) != 2:
        raise ChoiceError(
            _("--bots: give two bots separated by a comma, not {bots}").format(bots=repr(args.bots))
        )
    first, second = bots_of(args.bots, game, count=2)  # each by kind, a level resolved
    bots = (first, second)
    bar = sys.stderr.isatty() and not args.json
    started = time.perf_counter()

    def progress(done: list[Any]) -> None:
        a = sum(1 for o in done if o.winner is not None and o.winner == o.a_team)
        b = sum(1 for o in done if o.winner is not None and o.winner != o.a_team)
        filled = 30 * len(done) // args.games
        rate = len(done) / max(time.perf_counter() - started, 1e-9)
        said = _("{done}/{games} games  {a} {a_wins}  {b} {b_wins}  {rate} games/s").format(
            done=len(done),
            games=args.games,
            a=bots[0],
            a_wins=a,
            b=bots[1],
            b_wins=b,
            rate=decimal(rate, 2),
        )
        line = f"[{'#' * filled}{'.' * (30 - filled)}] {said}"
        width = shutil.get_terminal_size((80, 24)).columns - 1  # one line, or \r cannot
        print("\r" + line[:width], end="", file=sys.stderr, flush=True)  # draw it again

    outcomes = run(game, bots, args.games, args.seed, args.jobs, progress if bar else None)
    if bar:
        print("\r\033[K", end="", file=sys.stderr)
    summary = summarise(game, bots, args.seed, outcomes)
    summary["seconds"] = round(time.perf_counter() - started, 2)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return 0
    for line in report(game, summary):
        print(line)
    return 0


def report(game: Any, summary: dict[str, Any]) -> list[str]:
    """The summary in a few lines."""
    name, details = describe(game)
    a, b = summary["bots"]
    wins = summary["wins"]
    low, high = summary["ci95"]
    wins_line = "  " + "   ".join(
        ngettext("{bot}: {n} win", "{bot}: {n} wins", won).format(bot=bot, n=won)
        for bot, won in ((a, wins["a"]), (b, wins["b"]))
    )
    if wins["none"]:
        wins_line += _("   nobody: {draws}").format(draws=wins["none"])
    lines = [
        _("{name}, {details}, seed {seed}: {games} games, both seat orders").format(
            name=name, details=details, seed=summary["seed"], games=summary["games"]
        ),
        wins_line,
        _("  {bot} scores {share}% (95% CI {low}-{high}%)").format(
            bot=a,
            share=decimal(100 * summary["share"], 1),
            low=decimal(100 * low, 1),
            high=decimal(100 * high, 1),
        ),
    ]
    if summary["elo"] is not None:
        elo_low, elo_high = summary["elo_ci95"]
        span = (
            _(" (95% CI {low} to {high})").format(low=_signed(elo_low), high=_signed(elo_high))
            if None not in (elo_low, elo_high)
            else ""
        )
        lines.append(
            _("  Elo difference: {elo}{span}").format(elo=_signed(summary["elo"]), span=span)
        )
    for kind, timing in zip((a, b), summary["decisions"], strict=True):
        if timing["count"]:
            lines.append(
                _("  {bot}: {count} decisions, median {median} ms, p99 {p99} ms of CPU").format(
                    bot=kind,
                    count=timing["count"],
                    median=decimal(timing["median_ms"]),
                    p99=decimal(timing["p99_ms"]),
                )
            )
    return lines


def _signed(value: float | None) -> str:
    return _("n/a") if value is None else f"{value:+.0f}"
