"""``trutnet sim``: whole tables of real peers on a simulated network and clock, with
faults injected from one seed, invariants checked after every step (issue 26).

:mod:`.network` owns the simulation (:class:`~.network.Sim`, :class:`~.network.Faults`,
:func:`~.network.run_seed`, :func:`~.network.shrink`); :mod:`.invariants` the checks
made after every step.
"""

from trutnet.sim.invariants import Violation
from trutnet.sim.network import (
    CLEAN,
    Faults,
    RunResult,
    Sim,
    format_numbers,
    parse_numbers,
    run_seed,
    shrink,
    summarise,
)

__all__ = [
    "CLEAN",
    "Faults",
    "RunResult",
    "Sim",
    "Violation",
    "format_numbers",
    "parse_numbers",
    "run_seed",
    "shrink",
    "summarise",
]
