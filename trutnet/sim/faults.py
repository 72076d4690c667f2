"""What a simulated network and its peers do wrong (:class:`Faults`, and :data:`CLEAN`,
which has none), with the command-line flags that give them, and the numbers of the
faults a run leaves out (``--without 1-4,7``: :func:`format_numbers`,
:func:`parse_numbers`).

The faults: a delay per message (a fixed part plus an exponential one), loss and
duplication per copy, reordering (a further delay of up to a second), a peer killed (its
memory lost, its files kept; sometimes between saving an entry it wrote and sending it,
sometimes while it wrote its log: the last record torn) and restarted from its store, a
peer that never comes back, hostile messages (random bytes, damaged or replayed entries)
on every topic, a partition (the processes split in two groups that hear nothing of each
other for a while), a broker that restarts (every message in flight lost, and none
passes until it is back), and clocks that drift (each process's timers count on its own
clock, which runs fast or slow by up to ``Faults.drift``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields
from typing import ClassVar


@dataclass(frozen=True)
class Faults:
    """What the simulated network and peers do wrong, and the timeouts and bound.

    Rates are probabilities: ``loss``, ``dup`` and ``reorder`` per copy of a message
    (one copy per receiver); ``kill`` and ``junk`` per entry a seat writes; ``gone``
    that a killed peer never comes back (at most one per run). The defaults are a
    mild mix of every fault (``trutnet sim``'s); :data:`CLEAN` has none."""

    delay: float = 0.02  # mean of the exponential part of a message's delay, seconds
    base: float = 0.002  # the fixed part
    loss: float = 0.02
    dup: float = 0.01
    reorder: float = 0.02
    kill: float = 0.002
    gone: float = 0.2
    junk: float = 0.005
    down: float = 30.0  # a killed peer restarts after up to this many seconds
    void_timeout: float = 120.0  # the runtime's default
    give_up: float = 900.0  # a peer without progress this long stops (give_up_after)
    bound: float = 3600.0  # simulated seconds a table may take to end
    hands: int = 0  # stop each table once this many hands are over (0: play it out)
    split: float = 0.0  # per entry written: the processes split in two groups...
    split_for: float = 20.0  # ...for up to this many seconds
    restart: float = 0.0  # per entry written: the broker restarts...
    restart_for: float = 5.0  # ...and is back after up to this many seconds
    drift: float = 0.0  # each process's clock runs at 1 ± up to this rate
    # processes that follow the table and offer to take a stalled seat that has
    # partners (7.7), who accept any newcomer (``--accept-taker any``)
    newcomers: int = 0
    # of the kills of a seat that has just saved its own entry, the share that tear it:
    # the process died while it appended that record, which is cut short on disk
    torn: float = 0.0
    at_once: int = 1  # seats that may be down together (killed, not yet back)

    # the command-line flag of each field (``trutnet sim``)
    FLAGS: ClassVar[dict[str, str]] = {
        "delay": "--delay",
        "base": "--base-delay",
        "loss": "--loss",
        "dup": "--dup",
        "reorder": "--reorder",
        "kill": "--kill",
        "gone": "--gone",
        "junk": "--junk",
        "down": "--down",
        "void_timeout": "--void-timeout",
        "give_up": "--give-up",
        "bound": "--bound",
        "hands": "--hands",
        "split": "--split",
        "split_for": "--split-for",
        "restart": "--broker-restart",
        "restart_for": "--broker-down",
        "drift": "--drift",
        "newcomers": "--newcomers",
        "torn": "--torn",
        "at_once": "--down-at-once",
    }

    def flags(self) -> list[str]:
        """The command-line options that give these faults (those not at their default)."""
        out: list[str] = []
        default = Faults()
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name):
                out += [self.FLAGS[f.name], f"{value:g}"]
        return out


CLEAN = Faults(loss=0, dup=0, reorder=0, kill=0, gone=0, junk=0)


def format_numbers(numbers: frozenset[int]) -> str:
    """``1-4,7,9-10``: fault numbers for ``--without``."""
    out: list[str] = []
    for number in sorted(numbers):
        if out and out[-1].split("-")[-1] == str(number - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{number}"
        else:
            out.append(str(number))
    return ",".join(out)


def parse_numbers(text: str) -> frozenset[int]:
    """The numbers of ``1-4,7,9-10`` (ValueError when it is not that)."""
    numbers: set[int] = set()
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if not 1 <= first <= last or last - first > 1_000_000:
            raise ValueError(part)
        numbers.update(range(first, last + 1))
    return frozenset(numbers)


def hostile_payload(rng: random.Random, wire: bytes) -> bytes:
    """A hostile message made from a real entry: random bytes, the entry with one byte
    changed, cut short, or replayed as it is (maybe on the wrong topic)."""
    kind = rng.randrange(4)
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 200))
    if kind == 1:  # one byte of a real entry changed
        at = rng.randrange(len(wire))
        return wire[:at] + bytes([wire[at] ^ (1 + rng.randrange(255))]) + wire[at + 1 :]
    if kind == 2:
        return wire[: rng.randrange(len(wire))]
    return wire


def clock_rates(seed: int, drift: float, count: int) -> list[float]:
    """Each process's clock rate, from a stream of its own: with no drift, no draw (and
    every other fault as drawn before drift existed)."""
    clocks = random.Random(f"sim/{seed}/drift")
    return [1.0 + clocks.uniform(-drift, drift) if drift else 1.0 for _ in range(count)]
