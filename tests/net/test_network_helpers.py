"""The helpers that run peers as separate processes (``tests/network_helpers.py``)."""

from __future__ import annotations

import subprocess
import sys

from tests.network_helpers import track


def test_a_tracked_process_is_not_stalled_by_output_nobody_has_read_yet():
    """A peer writes far more than a pipe's default 64 KiB before the test reads it
    (tests often read a peer only at its end): it must not block on the full pipe."""
    writes = "import sys; sys.stdout.write('x' * 400_000); sys.stdout.flush()"
    proc = track(subprocess.Popen([sys.executable, "-c", writes], stdout=subprocess.PIPE))
    assert proc.wait(timeout=60) == 0  # ended without anyone reading
    assert proc.stdout is not None and len(proc.stdout.read()) == 400_000
