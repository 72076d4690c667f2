"""``trutnet sim``: whole tables of real peers on a simulated network and clock, with
faults injected from one seed, invariants checked after every step (issue 26).

:mod:`.network` owns the simulation (:class:`~.network.Sim`), :mod:`.faults` what goes
wrong (:class:`~.faults.Faults`), :mod:`.records` a simulated process and a run's
result, :mod:`.runs` many runs (:func:`~.runs.run_seed`, :func:`~.runs.summarise`,
:func:`~.runs.shrink`); :mod:`.invariants` the checks made after every step.
"""

from trutnet.sim.faults import CLEAN, Faults, format_numbers, parse_numbers
from trutnet.sim.invariants import Violation
from trutnet.sim.network import Sim
from trutnet.sim.records import RunResult
from trutnet.sim.runs import WorkerDied, run_seed, run_seeds, shrink, summarise

__all__ = [
    "CLEAN",
    "Faults",
    "RunResult",
    "Sim",
    "Violation",
    "WorkerDied",
    "format_numbers",
    "parse_numbers",
    "run_seed",
    "run_seeds",
    "shrink",
    "summarise",
]
