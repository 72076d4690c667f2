"""``trutnet sim``: its arguments, the runs, the progress line and the summary.

The simulation itself is :mod:`trutnet.sim`. Seeds ``S .. S+N-1`` are run
(``--seed S --seeds N``); a run that breaks an invariant is printed with the command
that replays it alone, and the command exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

from trutnet.cli.arguments import add_jobs_option, bounded, whole
from trutnet.cli.games import (
    bots_of,
    config_arguments,
    describe,
    game_argument,
    game_of,
    game_options,
)
from trutnet.i18n import N_, _, ngettext
from trutnet.i18n import number as decimal
from trutnet.sim import (
    Faults,
    RunResult,
    WorkerDied,
    format_numbers,
    parse_numbers,
    run_seeds,
    shrink,
    summarise,
)

MAX_SEEDS = 1_000_000
_rate = bounded(float, N_("a probability"), lambda p: 0 <= p <= 1, N_("must be 0..1, not {text}"))
_drift = bounded(
    float, N_("a clock rate"), lambda d: 0 <= d < 1, N_("must be 0 to below 1, not {text}")
)
_newcomers = whole(0, 4)
_seconds = bounded(
    float, N_("a number of seconds"), lambda s: 0 <= s <= 3600, N_("must be 0..3600 s, not {text}")
)
_bound = bounded(
    float, N_("a number of seconds"), lambda s: 1 <= s <= 10**7, N_("must be 1..10^7 s, not {text}")
)
_at_once = bounded(
    int, N_("a number of seats"), lambda n: 1 <= n <= 6, N_("must be 1..6, not {text}")
)
_timeout = bounded(
    float, N_("a number of seconds"), lambda s: 1 <= s <= 3600, N_("must be 1..3600 s, not {text}")
)
# the order of the faults in the summary line
SAID = (
    "lost",
    "duplicated",
    "reordered",
    "killed",
    "killed_while_down",
    "restarted",
    "gone",
    "torn",
    "junk",
    "partitioned",
    "cut_off",
    "broker_restarted",
    "lost_in_restart",
    "resent",
)
# each fault of SAID, and each way a run ends early, with its count, as the summary says it
FAULT_SAID = {
    "lost": N_("lost {count}"),
    "duplicated": N_("duplicated {count}"),
    "reordered": N_("reordered {count}"),
    "killed": N_("killed {count}"),
    "killed_while_down": N_("killed_while_down {count}"),
    "restarted": N_("restarted {count}"),
    "gone": N_("gone {count}"),
    "torn": N_("torn {count}"),
    "junk": N_("junk {count}"),
    "partitioned": N_("partitioned {count}"),
    "cut_off": N_("cut_off {count}"),
    "broker_restarted": N_("broker_restarted {count}"),
    "lost_in_restart": N_("lost_in_restart {count}"),
    "resent": N_("resent {count}"),
}
# how the runs ended, each count with its word in the language's number (one, many);
# the first two and the last always said, the others when some ended so
ENDED_SAID: dict[str, Callable[[int], str]] = {
    "finished": lambda n: ngettext("{count} finished", "{count} finished", n),
    "abandoned": lambda n: ngettext("{count} abandoned", "{count} abandoned", n),
    "cut": lambda n: ngettext("{count} cut", "{count} cut", n),
    "gave_up": lambda n: ngettext("{count} gave_up", "{count} gave_up", n),
    "stopped": lambda n: ngettext("{count} stopped", "{count} stopped", n),
    "failed": lambda n: ngettext("{count} failed", "{count} failed", n),
}
ALWAYS_SAID = ("finished", "abandoned", "failed")


def add_sim_command(sub: Any, seed_type: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "sim",
        help=_("many tables of bots on a simulated network, with seeded faults"),
        description=_(
            "Run whole tables of real peers (full crypto, the table protocol, each "
            "seat's files) on a simulated network and clock, inject faults from each seed, and "
            "check after every step that the replicas agree and that no seat knows a card it "
            "may not see. The same seed and options replay the same run."
        ),
        formatter_class=formatter,
    )
    game_argument(p)
    game_options(p, players=4)
    default = Faults()
    p.add_argument("--seed", type=seed_type, default=0, help=_("the first seed"))
    p.add_argument(
        "--seeds", type=whole(1, MAX_SEEDS), default=1, help=_("how many seeds, from --seed")
    )
    p.add_argument(
        "--bots",
        metavar="KIND|K1,K2,...",
        help=_("bot kind for every seat, or one per seat (default: the game's best bot)"),
    )
    _fault_rates(p, default)
    _fault_times(p, default)
    p.add_argument(
        "--hands",
        type=whole(0, 10_000),
        default=default.hands,
        help=_("stop each table once this many hands are over (0: play the game out)"),
    )
    p.add_argument(
        "--bound",
        type=_bound,
        default=default.bound,
        help=_("simulated seconds a table may take to end (%(default)s)"),
    )
    add_jobs_option(p, _("processes running seeds at once (%(default)s); the runs are the same"))
    p.add_argument(
        "--shrink",
        type=whole(0, 10_000),
        default=20,
        metavar="N",
        help=_(
            "for a failing seed, try up to N runs leaving faults out, and print the "
            "shorter schedule that still fails (%(default)s; 0: do not)"
        ),
    )
    p.add_argument(
        "--without",
        type=_numbers,
        default=frozenset(),
        metavar="N,N-M,...",
        help=_("leave out the faults of these numbers (a shrunk schedule, as printed)"),
    )
    p.add_argument("--json", action="store_true", help=_("print the summary as JSON"))


def _fault_rates(p: argparse.ArgumentParser, default: Faults) -> None:
    """How often each fault happens, and how far the clocks drift."""
    for flag, field, what in (
        ("--loss", "loss", _("probability that a copy of a message is lost (%(default)s)")),
        ("--dup", "dup", _("probability that a copy of a message comes twice (%(default)s)")),
        (
            "--reorder",
            "reorder",
            _("probability that a copy is held back up to 1 s more (%(default)s)"),
        ),
        (
            "--kill",
            "kill",
            _("probability, per entry written, that a seat's process dies (%(default)s)"),
        ),
        (
            "--gone",
            "gone",
            _("probability that a killed seat never comes back (one per run) (%(default)s)"),
        ),
        ("--junk", "junk", _("probability, per entry written, of a hostile message (%(default)s)")),
        (
            "--split",
            "split",
            _(
                "probability, per entry written, that the processes split in "
                "two groups that hear nothing of each other (%(default)s)"
            ),
        ),
        (
            "--broker-restart",
            "restart",
            _(
                "probability, per entry written, that the broker restarts (what is in flight "
                "is lost) (%(default)s)"
            ),
        ),
    ):
        p.add_argument(flag, type=_rate, default=getattr(default, field), help=what)
    p.add_argument(
        "--torn",
        type=_rate,
        default=default.torn,
        help=_(
            "probability that a kill comes while the seat writes its log, tearing its "
            "last record (one it had not sent) (%(default)s)"
        ),
    )
    p.add_argument(
        "--newcomers",
        type=_newcomers,
        default=default.newcomers,
        help=_(
            "processes that follow the table and offer to take a stalled seat that has "
            "partners, who accept any newcomer (7.7) (%(default)s)"
        ),
    )
    p.add_argument(
        "--drift",
        type=_drift,
        default=default.drift,
        help=_(
            "each process's clock runs fast or slow by up to this rate, so that its "
            "timers (sync, votes, giving up) fire early or late: 0.05 is 5%% (%(default)s)"
        ),
    )


def _fault_times(p: argparse.ArgumentParser, default: Faults) -> None:
    """How long delays, downtimes and the runtime's timers last."""
    p.add_argument(
        "--delay",
        type=_seconds,
        default=default.delay,
        help=_("mean of a message's exponential delay, seconds (%(default)s)"),
    )
    p.add_argument(
        "--base-delay",
        type=_seconds,
        default=default.base,
        help=_("fixed part of every message's delay, seconds (%(default)s)"),
    )
    p.add_argument(
        "--down",
        type=_seconds,
        default=default.down,
        help=_("a killed seat restarts after up to this many seconds (%(default)s)"),
    )
    p.add_argument(
        "--down-at-once",
        type=_at_once,
        default=default.at_once,
        help=_("how many seats may be down together, killed and not yet back (%(default)s)"),
    )
    p.add_argument(
        "--split-for",
        type=_seconds,
        default=default.split_for,
        help=_("a partition heals after up to this many seconds (%(default)s)"),
    )
    p.add_argument(
        "--broker-down",
        type=_seconds,
        default=default.restart_for,
        help=_("a restarting broker is back after up to this many seconds (%(default)s)"),
    )
    p.add_argument(
        "--void-timeout",
        type=_timeout,
        default=default.void_timeout,
        help=_(
            "seconds the others wait for a seat before voting to abandon (%(default)s; "
            "twice that in a team game)"
        ),
    )
    p.add_argument(
        "--give-up",
        type=_bound,
        default=default.give_up,
        help=_("a peer without progress this long stops, as the runtime does (%(default)s)"),
    )


def _numbers(text: str) -> frozenset[int]:
    try:
        return parse_numbers(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("not fault numbers like 1-4,7: {text}").format(text=repr(text))
        ) from None


def faults_of(args: argparse.Namespace) -> Faults:
    return Faults(
        delay=args.delay,
        base=args.base_delay,
        loss=args.loss,
        dup=args.dup,
        reorder=args.reorder,
        kill=args.kill,
        gone=args.gone,
        junk=args.junk,
        down=args.down,
        void_timeout=args.void_timeout,
        give_up=args.give_up,
        bound=args.bound,
        hands=args.hands,
        split=args.split,
        split_for=args.split_for,
        restart=args.broker_restart,
        restart_for=args.broker_down,
        drift=args.drift,
        newcomers=args.newcomers,
        torn=args.torn,
        at_once=args.down_at_once,
    )


def replay_command(
    game: Any, bots: list[str], faults: Faults, seed: int, without: frozenset[int] = frozenset()
) -> str:
    """The command that runs ``seed`` alone, with the same game, bots and faults
    (``without``: leaving out those faults)."""
    words = ["trutnet", "sim", *config_arguments(game), "--seed", str(seed)]
    if len(set(bots)) > 1 or bots[0] != bots_of(None, game)[0]:
        words += ["--bots", ",".join(bots)]
    words += faults.flags()
    if without:
        words += ["--without", format_numbers(without)]
    return shlex.join(words)


def cmd_sim(args: argparse.Namespace) -> int:
    game = game_of(args)
    bots = bots_of(args.bots, game)
    faults = faults_of(args)
    progress = sys.stderr.isatty() and not args.json
    results: list[RunResult] = []
    started = time.perf_counter()
    replays: list[tuple[int, str]] = []  # (seed, the command that replays it)
    seeds = range(args.seed, args.seed + args.seeds)
    runs = run_seeds(game, seeds, faults, bots, args.jobs, without=args.without)
    died: WorkerDied | None = None
    interrupted = False
    try:
        _follow(args, game, bots, faults, runs, results, replays, started)
    except WorkerDied as exc:  # said after the summary of the runs that ended
        died = exc
    except KeyboardInterrupt:  # Ctrl-C: the runs that ended are summed up, not lost
        interrupted = True
    finally:
        close = getattr(runs, "close", None)
        if close is not None:
            close()  # the workers are told to stop, and leave
    if progress:
        print("\r\033[K", end="", file=sys.stderr)
    results.sort(key=lambda r: r.seed)  # the summary's digest: in seed order
    summary = summarise(results, time.perf_counter() - started)
    summary["game"] = game.name
    summary["config"] = game.config_dict()
    summary["first_seed"] = args.seed
    summary["replay"] = [replay for _seed, replay in sorted(replays)]
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(summary_line(game, summary))
    if died is not None:
        said = _("trutnet sim: a worker process died (killed?) before these runs ended: {seeds}")
        print(said.format(seeds=died.shown), file=sys.stderr)
        return 1
    if interrupted:
        said = _("trutnet sim: interrupted after {ended} of {runs} runs (the summary counts those)")
        print(said.format(ended=len(results), runs=len(seeds)), file=sys.stderr)
        return 130
    return 1 if summary["failed"] else 0


def _follow(
    args: argparse.Namespace,
    game: Any,
    bots: Any,
    faults: Any,
    runs: Any,
    results: list[RunResult],
    replays: list[tuple[int, str]],
    started: float,
) -> None:
    """Each run as it ends: a failing seed's replay (and its shrunk schedule), and the
    progress line on a terminal."""
    progress = sys.stderr.isatty() and not args.json
    for number, result in enumerate(runs, start=1):
        seed = result.seed
        results.append(result)
        if result.status == "failed":
            if progress:
                print("\r\033[K", end="", file=sys.stderr)
            replay = replay_command(game, bots, faults, seed, args.without)
            print(
                _("seed {seed} failed: {violation}").format(seed=seed, violation=result.violation),
                file=sys.stderr,
            )
            print(_("  replay: {command}").format(command=replay), file=sys.stderr)
            if args.shrink:
                without, shrunk, runs = shrink(
                    game, result, faults, bots, args.shrink, without=args.without
                )
                if without != args.without:
                    replay = replay_command(game, bots, faults, seed, without)
                    print(
                        _("  shrunk in {runs} runs to {left} of {faults} faults: {command}").format(
                            runs=runs,
                            left=len(shrunk.injected),
                            faults=len(result.injected),
                            command=replay,
                        ),
                        file=sys.stderr,
                    )
            replays.append((seed, replay))
        if progress:
            failed = sum(r.status == "failed" for r in results)
            rate = number / (time.perf_counter() - started)
            said = _("sim: {number}/{seeds} runs, {failed} failed, {rate} runs/s").format(
                number=number, seeds=args.seeds, failed=failed, rate=decimal(rate, 2)
            )
            print(
                "\r" + said,
                end="",
                file=sys.stderr,
                flush=True,
            )


def summary_line(game: Any, summary: dict[str, Any]) -> str:
    name, details = describe(game)
    counts = summary["counts"]
    said = ", ".join(_(FAULT_SAID[k]).format(count=counts[k]) for k in SAID if counts.get(k))
    faults = _("faults: {faults}; ").format(faults=said) if said else _("faults: none; ")
    ended = ", ".join(
        ENDED_SAID[k](summary[k]).format(count=summary[k])
        for k in ENDED_SAID
        if summary[k] or k in ALWAYS_SAID
    )
    runs = ngettext("{count} run", "{count} runs", summary["runs"]).format(count=summary["runs"])
    taken = counts.get("took_seat", 0)  # 7.7: by a newcomer (--newcomers)
    seats = (
        ngettext(
            "{count} seat taken by a newcomer; ", "{count} seats taken by a newcomer; ", taken
        ).format(count=taken)
        if taken
        else ""
    )
    away = counts.get("away", 0)  # 9.2: back once the others had left
    if away:
        seats += ngettext(
            "{count} process back after the others left (the game ended while it was away); ",
            "{count} processes back after the others left (the game ended while they were away); ",
            away,
        ).format(count=away)
    return _(
        "{name}, {details}: {runs}: {ended}; {seats}{faults}{runs_per_second} runs/s, "
        "{hands_per_second} hands/s ({hands_per_sim_second} hands per simulated s); "
        "a hand: {steps_per_hand} sequential steps, {kib:.0f} KiB published"
    ).format(
        name=name,
        details=details,
        runs=runs,
        ended=ended,
        seats=seats,
        faults=faults,
        runs_per_second=decimal(summary["runs_per_second"]),
        hands_per_second=decimal(summary["hands_per_second"]),
        hands_per_sim_second=decimal(summary["hands_per_sim_second"]),
        steps_per_hand=decimal(summary["steps_per_hand"]),
        kib=summary["bytes_per_hand"] / 1024,
    )
