"""The table's patience with a seat it waits for (trutnet.runtime.stall_policy, 7.7):
the steps come in order at the times the options give, with no clock read."""

from __future__ import annotations

import pytest

from trutnet.runtime.options import Options
from trutnet.runtime.stall_policy import StallPolicy

POLICY = Options(stall_timeout=30, void_timeout=120).policy


@pytest.mark.parametrize(
    ("waited", "steps"),
    [
        (0, set()),
        (29.9, set()),
        (30, {"report", "offer"}),
        (119.9, {"report", "offer"}),
        (120, {"report", "offer", "vote", "abandon alone"}),
        (239.9, {"report", "offer", "vote", "abandon alone"}),
        (240, {"report", "offer", "vote", "abandon alone", "abandon with partners", "release"}),
    ],
)
def test_each_step_comes_at_its_time(waited, steps):
    said = {
        "report": POLICY.report(waited),
        "offer": POLICY.offer(waited),
        "vote": POLICY.vote(waited),
        "abandon alone": POLICY.abandon(waited, team=False),
        "abandon with partners": POLICY.abandon(waited, team=True),
        "release": POLICY.release(waited),
    }
    assert {step for step, due in said.items() if due} == steps


def test_a_newcomer_offers_before_the_vote_when_the_timers_are_scaled_down():
    # tests scale the void timeout below the stall timeout: the offer still comes first
    quick = StallPolicy(stall_timeout=5, void_timeout=1)
    assert quick.offer(1) and quick.vote(1) and not quick.report(1)
    assert quick.abandon_after(team=True) == 2 and quick.abandon_after(team=False) == 1
