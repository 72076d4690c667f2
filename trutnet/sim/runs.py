"""Many simulated runs: one seed in a temporary folder (:func:`run_seed`), many in
parallel processes (:func:`run_seeds`), the one
summary of many (:func:`summarise`), and a failing seed's fault schedule made shorter
by delta debugging (:func:`shrink`).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import signal
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from trutnet.engine.api import Game
from trutnet.engine.registry import make_game
from trutnet.sim.faults import Faults
from trutnet.sim.network import Sim
from trutnet.sim.records import RunResult


def run_seed(
    game: Game,
    seed: int,
    faults: Faults,
    bots: Sequence[str],
    spectator: bool = True,
    sim_class: type[Sim] = Sim,
    on_sim: Callable[[Sim], None] | None = None,
    without: frozenset[int] = frozenset(),
) -> RunResult:
    """One seeded run of ``game`` in a temporary folder (on ``/dev/shm`` when there is
    one: the stores fsync every entry); ``without``: the numbers of the faults drawn
    that are not injected (:func:`shrink`)."""
    shm = Path("/dev/shm")
    base = str(shm) if shm.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="trutnet-sim-", dir=base) as folder:
        sim = sim_class(game, seed, faults, bots, Path(folder), spectator, without)
        if on_sim is not None:
            on_sim(sim)
        return sim.run()


class WorkerDied(RuntimeError):
    """A worker process died (killed, or crashed) before its runs ended: ``seeds``, the
    runs lost with it (the others' results came before)."""

    def __init__(self, seeds: Sequence[int]) -> None:
        self.seeds = sorted(seeds)
        more = " ..." if len(self.seeds) > 10 else ""
        self.shown = ", ".join(map(str, self.seeds[:10])) + more  # at most ten of them
        super().__init__(f"a worker process died (killed?) before these runs ended: {self.shown}")


def run_seeds(
    game: Game,
    seeds: Sequence[int],
    faults: Faults,
    bots: Sequence[str],
    jobs: int = 1,
    without: frozenset[int] = frozenset(),
) -> Iterator[RunResult]:
    """:func:`run_seed` of each seed, in ``jobs`` processes at once; each result as its
    run ends (in seed order with one job). A run is the same in any process: its seed
    decides everything. A worker that dies mid-run raises :class:`WorkerDied` once the
    runs still going have ended (never a wait for ever)."""
    if jobs <= 1 or len(seeds) <= 1:
        for seed in seeds:
            yield run_seed(game, seed, faults, bots, without=without)
        return
    named = (game.name, game.config_dict())
    pool = ProcessPoolExecutor(jobs, multiprocessing.get_context("fork"), initializer=_worker)
    ended = False
    try:
        running = {
            pool.submit(_run_task, (*named, seed, faults, tuple(bots), without)): seed
            for seed in seeds
        }
        lost: list[int] = []
        while running:  # a wait with no timeout would not hear a Ctrl-C
            done, _ = wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in done:
                seed = running.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    lost.append(seed)
                    continue
                yield result
        if lost:
            raise WorkerDied(lost)
        ended = True
    finally:
        if not ended:  # a Ctrl-C, the caller stopped reading, or a worker died: no run
            _stop_workers()  # goes on
        pool.shutdown(wait=True, cancel_futures=True)  # every run in: the workers leave


STOP_SECONDS = 5.0  # a worker told to stop has this long to unwind its run


def _stop_workers() -> None:
    """Stop this process's workers: each is told (SIGTERM: it unwinds its run, so its
    temporary folder goes too), and one that has not left :data:`STOP_SECONDS` later
    (one caught waiting on a queue's lock that a stopped worker held) is killed."""
    workers = multiprocessing.active_children()
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(STOP_SECONDS)
        if worker.is_alive():
            worker.kill()
            worker.join()


def _worker() -> None:
    """A worker process leaves Ctrl-C to the command, which stops every worker; told
    to stop, a worker unwinds its run, so its temporary folder goes too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(1)


def _run_task(task: tuple[Any, ...]) -> RunResult:
    """One run in a worker process, its game made again from its name and options."""
    name, config, seed, faults, bots, without = task
    return run_seed(make_game(name, config), seed, faults, bots, without=without)


def summarise(results: Sequence[RunResult], wall: float) -> dict[str, Any]:
    """The one summary of many runs (``trutnet sim``)."""
    statuses = Counter(r.status for r in results)
    faults: Counter[str] = Counter()
    for r in results:
        faults.update(r.counts)
    hands = sum(r.hands for r in results)
    sim_seconds = sum(r.sim_seconds for r in results)
    # every run's every log, in order: the same seeds and options, the same digest
    digest = hashlib.sha256("".join(r.digest for r in results).encode()).hexdigest()
    return {
        "digest": digest,
        "runs": len(results),
        "finished": statuses["finished"],
        "abandoned": statuses["abandoned"],
        "cut": statuses["cut"],
        "gave_up": statuses["gave_up"],
        "stopped": statuses["stopped"],
        "failed": statuses["failed"],
        "failed_seeds": [r.seed for r in results if r.status == "failed"],
        "hands": hands,
        "entries": sum(r.entries for r in results),
        "steps_per_hand": round(sum(r.steps for r in results) / hands, 1) if hands else 0.0,
        "bytes_per_hand": round(faults["bytes"] / hands) if hands else 0,
        "counts": dict(sorted(faults.items())),
        "sim_seconds": round(sim_seconds, 3),
        "hands_per_sim_second": round(hands / sim_seconds, 3) if sim_seconds else 0.0,
        "wall_seconds": round(wall, 3),
        "runs_per_second": round(len(results) / wall, 3) if wall else 0.0,
        "hands_per_second": round(hands / wall, 3) if wall else 0.0,
    }


def shrink(
    game: Game,
    failed: RunResult,
    faults: Faults,
    bots: Sequence[str],
    budget: int = 20,
    sim_class: type[Sim] = Sim,
    without: frozenset[int] = frozenset(),
) -> tuple[frozenset[int], RunResult, int]:
    """A shorter fault schedule for a failing seed: the faults it drew that can be left
    out (by number, :meth:`Sim._inject`) while the run still fails with the same kind of
    violation with fewer faults injected, by delta debugging over the faults injected,
    within ``budget`` runs.
    Returns the numbers left out, the shrunk run and the runs made. A fault left out
    changes what comes after it (the numbers are drawn in a new order), so the result
    is a smaller failing schedule, not the smallest."""
    assert failed.violation is not None
    kind = failed.violation.split(":", 1)[0]
    best, runs, chunks = failed, 0, 2
    while runs < budget and len(best.injected) >= 1:
        candidates = list(best.injected)
        size = max(1, len(candidates) // chunks)
        parts = [candidates[i : i + size] for i in range(0, len(candidates), size)]
        for part in parts:
            if runs >= budget:
                break
            trial = without | frozenset(part)
            runs += 1
            result = run_seed(game, failed.seed, faults, bots, sim_class=sim_class, without=trial)
            same = result.violation is not None and result.violation.split(":", 1)[0] == kind
            if same and len(result.injected) < len(best.injected):  # smaller, not just other
                without, best = trial, result
                chunks = max(chunks - 1, 2)
                break
        else:
            if size == 1:
                break  # no single fault can be left out
            chunks = min(chunks * 2, len(candidates))
    return without, best, runs
