"""Run peers as separate OS processes against a broker, for the network tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from trutnet.runtime.seat_process import announced_table

TRUTNET = [sys.executable, "-m", "trutnet"]


SPAWNED: list[subprocess.Popen[str]] = []  # killed after each test (conftest.py)
EARLY: dict[int, list[str]] = {}  # what a host printed before its table id was read


def spawn(args: list[str]) -> subprocess.Popen[str]:
    return track(
        subprocess.Popen(
            [*TRUTNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    )


def track(proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
    SPAWNED.append(proc)
    return proc


def start_table(
    url: str, players: int, store: Path, seed: str, extra: list[str] | None = None
) -> tuple[str, list[subprocess.Popen[str]]]:
    """A host process and ``players - 1`` joining processes; returns the table id."""
    common = ["--seed", seed, "--json", *(extra or [])]
    procs = [
        spawn(
            [
                "host",
                "--players",
                str(players),
                "--broker",
                url,
                "--no-announce",
                "--store",
                str(store / "host"),
                *common,
            ]
        )
    ]
    table, early = announced_table(procs[0])
    EARLY[procs[0].pid] = early
    for k in range(1, players):
        procs.append(
            spawn(
                [
                    "join",
                    "--bot",
                    "heuristic",
                    "--broker",
                    url,
                    "--table",
                    table,
                    "--name",
                    f"p{k}",
                    "--store",
                    str(store / f"p{k}"),
                    *common,
                ]
            )
        )
    return table, procs


def result_of(proc: subprocess.Popen[str], timeout: float = 300) -> dict:
    """The peer's final result, with every JSON event it printed under ``events``."""
    out, err = proc.communicate(timeout=timeout)
    out = "".join(EARLY.pop(proc.pid, [])) + out
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    results = [e for e in events if e.get("event") == "result"]
    assert proc.returncode == 0 and results, f"exit {proc.returncode}: {err[-3000:]}"
    return {**results[-1], "events": events}
