"""Run peers as separate OS processes against a broker, for the network tests."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from trutnet.runtime.events import announced_table

TRUTNET = [sys.executable, "-m", "trutnet"]


# Protocol timers that a test gives its peers (stall, void, give-up, linger, lobby) are
# chosen so that the event under test comes first even on a loaded machine; a slower
# machine multiplies them all with TRUTNET_TEST_TIMER_SCALE (README, "Tests").
TIMER_SCALE = float(os.environ.get("TRUTNET_TEST_TIMER_SCALE") or 1)


def seconds(value: float) -> float:
    """A protocol timer of a test: ``value`` seconds times ``TRUTNET_TEST_TIMER_SCALE``."""
    return value * TIMER_SCALE


def timer(value: float) -> str:
    """:func:`seconds` as a command-line argument (``--void-timeout``, ``--linger``...)."""
    return f"{seconds(value):g}"


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


def spawn_person(
    args: list[str], home: Path, variable: str, secret: str | None
) -> subprocess.Popen[str]:
    """``trutnet ARGS`` as a person at ``home`` (its own HOME, no terminal), with the
    environment ``variable`` (a password's) set to ``secret``, or unset for None."""
    env = {k: v for k, v in os.environ.items() if k != variable}
    env["PYTHONUNBUFFERED"], env["HOME"] = "1", str(home)
    if secret is not None:
        env[variable] = secret
    return track(
        subprocess.Popen(
            [*TRUTNET, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
    )


PIPE_BYTES = 1 << 20  # Linux's default ceiling for a pipe (/proc/sys/fs/pipe-max-size)


def track(proc: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """Kill ``proc`` after the test; widen its output pipes to 1 MiB first. A test
    reads a peer's output when it needs it (often only at its end, several peers in
    turn): a peer whose 64 KiB pipe filled meanwhile would block on its next line and
    stall the whole table (a spectator did, in a test that never read it)."""
    SPAWNED.append(proc)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
            with contextlib.suppress(OSError):  # over the ceiling: the pipe keeps its size
                fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    return proc


def start_table(
    url: str,
    players: int,
    store: Path,
    seed: str,
    extra: list[str] | None = None,
    host_extra: list[str] | None = None,
) -> tuple[str, list[subprocess.Popen[str]]]:
    """A host process and ``players - 1`` joining processes; returns the table id.
    ``extra``: arguments for every process; ``host_extra``: for the host alone (the
    game's options, ``--option KEY=VALUE``)."""
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
                *(host_extra or []),
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


def wait_for_event(
    proc: subprocess.Popen[str], match: Callable[[dict], bool], timeout: float = 120
) -> dict:
    """Read ``proc``'s ``--json`` lines until an event for which ``match`` is true, and
    return it; the lines read are kept for :func:`result_of`. AssertionError when the
    process ends, or ``timeout`` seconds pass, first."""
    assert proc.stdout is not None
    lines = EARLY.setdefault(proc.pid, [])
    found: list[dict] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in iter(proc.stdout.readline, ""):
            lines.append(line)
            if not line.startswith("{"):
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if match(event):
                found.append(event)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if reader.is_alive() or not found:
        raise AssertionError(f"no such event within {timeout} s; it printed:\n{''.join(lines)}")
    return found[0]


def result_of(proc: subprocess.Popen[str], timeout: float = 300) -> dict:
    """The peer's final result, with every JSON event it printed under ``events``."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:  # say what it was doing, rather than hang the test
        proc.kill()
        out, err = proc.communicate(timeout=30)
        out = "".join(EARLY.pop(proc.pid, [])) + out
        raise AssertionError(
            f"no result within {timeout} s; its last lines:\n{out[-3000:]}\n{err[-3000:]}"
        ) from None
    out = "".join(EARLY.pop(proc.pid, [])) + out
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    results = [e for e in events if e.get("event") == "result"]
    assert proc.returncode == 0 and results, f"exit {proc.returncode}: {err[-3000:]}"
    return {**results[-1], "events": events}
