"""A table's turn clock (``docs/protocol.md`` 7.11), sans-I/O: the host's rule
(:class:`ClockRule`: so long a decision, or a chess clock with a bank and an
increment) and one peer's reading of it (:class:`TurnClock`), on times the caller
passes in.

There is no trusted time at a table of peers: each peer runs the clock on its own,
from when the table began to wait for a seat's decision as it saw it. So the clock
is a shared rule, not a shared fact: two peers' readings differ by the network's
delays. What it drives is what each peer does on its own: the late seat's own peer
may let its bot decide (the person allowed it), and the others report the seat as
stalled when its time has run out by their reading, and then may replace it or
abandon the game after their void timeout, as for any stalled seat (7.7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PER_MOVE = (5, 3600)  # seconds a decision may take, at least and at most
BANK = (10, 7200)  # a chess clock's bank, seconds
INCREMENT = (0, 600)  # seconds added after each decision
MAX_SPEC = 16  # characters of a rule as the lobby carries it


class ClockError(ValueError):
    """A clock rule that cannot be; the text says what is allowed, and ``what`` which
    part is wrong (``form``, ``per_move``, ``bank``, ``increment``) with its ``bounds``,
    so that a screen can say it in the person's language."""

    def __init__(self, message: str, what: str, bounds: tuple[int, int] = (0, 0)) -> None:
        super().__init__(message)
        self.what, self.bounds = what, bounds


@dataclass(frozen=True)
class ClockRule:
    """``per_move`` seconds for each decision; or a chess clock: ``bank`` seconds for
    the whole game per seat, and ``increment`` seconds more after each decision."""

    per_move: int | None = None
    bank: int | None = None
    increment: int = 0

    @staticmethod
    def parse(text: object) -> ClockRule:
        """``"30"`` (30 seconds a decision) or ``"300+5"`` (5 minutes each, 5 seconds
        more a decision); :class:`ClockError` for anything else."""
        if not isinstance(text, str) or len(text) > MAX_SPEC:
            raise ClockError(
                "a clock is SECONDS (a decision) or BANK+INCREMENT (30, 300+5)", "form"
            )
        match = re.fullmatch(r"(\d{1,5})(?:\+(\d{1,4}))?", text.strip())
        if match is None:
            raise ClockError(
                f"a clock is SECONDS or BANK+INCREMENT (30, 300+5), not {text!r}", "form"
            )
        first, plus = int(match.group(1)), match.group(2)
        if plus is None:
            if not PER_MOVE[0] <= first <= PER_MOVE[1]:
                raise ClockError(
                    f"a decision's clock is {PER_MOVE[0]}..{PER_MOVE[1]} seconds",
                    "per_move",
                    PER_MOVE,
                )
            return ClockRule(per_move=first)
        if not BANK[0] <= first <= BANK[1]:
            raise ClockError(f"a chess clock's bank is {BANK[0]}..{BANK[1]} seconds", "bank", BANK)
        if not INCREMENT[0] <= int(plus) <= INCREMENT[1]:
            raise ClockError(
                f"a chess clock's increment is {INCREMENT[0]}..{INCREMENT[1]} s",
                "increment",
                INCREMENT,
            )
        return ClockRule(bank=first, increment=int(plus))

    def spec(self) -> str:
        """The rule as :meth:`parse` reads it (the lobby's ``clock``)."""
        if self.per_move is not None:
            return str(self.per_move)
        return f"{self.bank}+{self.increment}"


def clock_text(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour), never below zero."""
    whole = max(0, int(seconds + 0.999))  # 0.2 s left still shows 0:01
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


@dataclass
class TurnClock:
    """One peer's reading of the table's clock: whose decision the table waits for
    since when, and each seat's bank (a chess clock)."""

    rule: ClockRule
    seats: int
    banks: list[float] = field(default_factory=list)
    turn: tuple[int, float] | None = None  # the seat that decides, since when

    def __post_init__(self) -> None:
        if not self.banks:
            self.banks = [float(self.rule.bank or 0)] * self.seats

    def waiting(self, seat: int | None, now: float) -> None:
        """The table now waits for ``seat``'s decision (None: for no decision, such as
        a shuffle): the seat that was deciding is charged for its time. The same seat
        still deciding keeps its turn (the others' sealed choices came meanwhile)."""
        if self.turn is not None and self.turn[0] == seat:
            return
        if self.turn is not None and self.rule.bank is not None:
            decided, since = self.turn
            spent = max(0.0, now - since)
            self.banks[decided] = max(0.0, self.banks[decided] - spent) + self.rule.increment
        self.turn = None if seat is None else (seat, now)

    def allowed(self, seat: int) -> float:
        """The time ``seat`` has for a decision, from its start."""
        if self.rule.per_move is not None:
            return float(self.rule.per_move)
        return self.banks[seat]

    def left(self, seat: int, now: float) -> float:
        """The time ``seat`` has left now (its whole allowance when it is not its turn)."""
        if self.turn is not None and self.turn[0] == seat:
            return self.allowed(seat) - (now - self.turn[1])
        return self.allowed(seat)

    def ran_out(self, now: float) -> int | None:
        """The seat whose time has run out, deciding now; None if none."""
        if self.turn is None:
            return None
        seat = self.turn[0]
        return seat if self.left(seat, now) <= 0 else None
