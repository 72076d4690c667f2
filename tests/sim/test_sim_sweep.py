"""The simulator's sweep (issue 26): seeded runs of every registered game, each seed
under one of several mixes of faults (the default mix, a harsh network with kills,
partitions with broker restarts, drifting clocks with seats gone for good and a
newcomer to take a partner's seat), every
invariant checked after every step. Every run is one hand of the game's short
configuration, so that the whole sweep fits the suite's time; ``trutnet sim --seeds N``
runs the same tables at any scale, and a failing seed here prints the command that
replays it alone.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

from tests.sim.test_sim import SHORT, bots, game_for
from trutnet.cli.sim_command import replay_command
from trutnet.sim import CLEAN, Faults, run_seed

MIXES = {
    "default": Faults(hands=1),
    "harsh": Faults(
        loss=0.15,
        dup=0.1,
        reorder=0.2,
        kill=0.01,
        gone=0.0,
        junk=0.05,
        down=10.0,
        torn=0.5,
        at_once=2,
    ),
    "split": dataclasses.replace(CLEAN, split=0.02, restart=0.01, loss=0.02, junk=0.01),
    "gone": dataclasses.replace(
        CLEAN, kill=0.01, gone=1.0, void_timeout=30.0, drift=0.05, newcomers=1
    ),
}
# How many runs, in all: 400 in the suite; ``TRUTNET_SIM_SWEEP=2000`` (any multiple of
# 100) for a larger sweep, split 50/35/15 between Lutin & Troll, Trut (2 players) and
# Truco (four players). A run's CPU time on the 2-core machine, one hand each: 0.044,
# 0.082 and 0.22 s, so 400 runs take about 35 CPU-seconds and 2,000 about 210 (105 s
# on two quiet cores, 3.5 minutes beside another job: the whole suite then went past
# its 15 minutes, which is why the suite runs 400). The runs are split in CHUNKS tests
# so that the suite's workers share them; ``trutnet sim --seeds N`` runs the same
# tables at any scale.
CHUNKS = 20
TOTAL = int(os.environ.get("TRUTNET_SIM_SWEEP", "400"))
assert TOTAL > 0 and TOTAL % 100 == 0, "TRUTNET_SIM_SWEEP: a multiple of 100"
SHARES = {"lutin": 50, "trut": 35, "truco": 15}  # in hundredths
RUNS = {name: TOTAL * share // 100 for name, share in SHARES.items()}
assert set(RUNS) == set(SHORT)  # every registered game (test_sim checks SHORT)


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", sorted(SHORT))
def test_seeded_runs_keep_every_invariant(name, chunk):
    game = game_for(name)
    mixes = list(MIXES.items())
    ended = []
    seeds = range(RUNS[name])[chunk::CHUNKS]  # every CHUNKS-th seed, from this chunk's
    if not seeds:
        pytest.skip(f"TRUTNET_SIM_SWEEP={TOTAL} leaves this chunk of {name} no seed")
    for seed in seeds:
        mix, faults = mixes[seed % len(mixes)]
        faults = dataclasses.replace(faults, hands=1)
        result = run_seed(game, seed, faults, bots(game))
        replay = replay_command(game, bots(game), faults, seed)
        assert result.violation is None, f"{mix} mix, {replay}: {result.violation}"
        ended.append(result.status)
    # gave_up: a seat gone for good where no abandon is possible (before the table
    # opens, or in its last round); the sim fails a run that gave up where it could
    # have abandoned (seed 675 of Lutin and of Trut: the host gone before the open)
    assert len(ended) == len(seeds) and set(ended) <= {"cut", "finished", "abandoned", "gave_up"}
    if len(seeds) >= len(MIXES):  # every mix once at least: not only abandoned tables
        assert "cut" in ended or "finished" in ended, ended
