"""The fuzz harnesses in CI: each runs briefly (coverage-guided, atheris), and every
saved reproducer under ``tests/fuzz/crashes/`` is replayed. A finding (an exception
other than the project's own error types) fails the test that met it.

A harness that finds something is listed in ``KNOWN`` (xfail, not strict) with what
it finds until the decoder is fixed. The saved reproducers are regression tests: the
RecursionErrors on nested bodies and files (bounded decoding, ``docs/protocol.md``
7.1), and the discovery crashes on malformed TXT records and lobby messages.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SECONDS = int(os.environ.get("TRUTNET_FUZZ_SECONDS", "1"))

KNOWN: dict[str, str] = {}  # harness -> what it still finds (xfail until fixed)
HARNESSES = [
    "envelope",
    "replica",
    "crypto",
    "lobby",
    "runtime",
    "discovery",
    "transcript",
    "invitation",
]


def run(harness: str, args: list[str], tmp_path: Path, timeout: float) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TRUTNET_FUZZ_CRASHES": str(tmp_path / "crashes"),
    }
    proc = subprocess.run(
        [sys.executable, str(HERE / f"fuzz_{harness}.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=tmp_path,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    return out


def marked(harness: str):
    if harness in KNOWN:
        return pytest.param(harness, marks=pytest.mark.xfail(strict=False, reason=KNOWN[harness]))
    return harness


@pytest.mark.parametrize("harness", [marked(h) for h in HARNESSES])
def test_harness_finds_nothing(harness, tmp_path):
    out = run(
        harness,
        [f"-max_total_time={SECONDS}", "-timeout=20", str(tmp_path / "corpus")],
        tmp_path,
        timeout=SECONDS + 120,
    )
    findings = [line for line in out.splitlines() if line.startswith("FINDING")]
    assert not findings, "\n".join(findings)
    assert "Done " in out  # libFuzzer ran to its time limit


def reproducers(harness: str) -> list[Path]:
    return sorted((HERE / "crashes").glob(f"{harness}-*.bin"))


@pytest.mark.parametrize("harness", [marked(h) for h in HARNESSES if reproducers(h)] or ["none"])
def test_saved_reproducers_no_longer_crash(harness, tmp_path):
    files = reproducers(harness)
    if not files:
        pytest.skip("no saved reproducer")
    out = run(harness, [str(f) for f in files], tmp_path, timeout=300)
    findings = [line for line in out.splitlines() if line.startswith("FINDING")]
    assert not findings, "\n".join(findings)
