"""Pure Trut trick arithmetic: who wins a trick [T6, T21, D3, D8] and a hand [T7, T20].

Nothing here holds state; the state machine calls these with plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trutnet.games.trut.rules.cards import Card

UNDECIDED = "undecided"
POURRIE = "pourrie"


@dataclass(frozen=True, slots=True)
class TrickOutcome:
    """A finished trick: the winning team (None when patté), the seat credited with the
    win (None when patté), and the seat that leads the next trick."""

    team: int | None
    winner: int | None
    next_leader: int
    by_sum: bool = False


def resolve_trick(
    cards: Sequence[tuple[int, Card]],
    team_of: Sequence[int],
    folded: frozenset[int] | set[int] = frozenset(),
    sum_on_patte: bool = False,
) -> TrickOutcome:
    """Resolve a trick given ``(seat, card)`` in play order.

    T6: the highest strength wins; two different teams tied on the strongest card make
    a patté, partners tied do not (the first of them wins). After a patté the next
    trick is led by the first seat that played a tied strongest card.
    T21 (option): a patté is won by the team with the larger sum of printed values
    in the trick; D3: that team's first seat among the tied strongest then leads.
    D8 (3 players): a trick whose strongest card is a folded seat's counts as patté.
    """
    top = max(card.strength for _, card in cards)
    tops = [seat for seat, card in cards if card.strength == top]
    n = len(team_of)
    if any(seat in folded for seat in tops):
        active = [seat for seat in tops if seat not in folded]
        if active:
            return TrickOutcome(None, None, active[0])
        seat = tops[0]
        for step in range(1, n + 1):
            nxt = (seat + step) % n
            if nxt not in folded:
                return TrickOutcome(None, None, nxt)
    top_teams = {team_of[seat] for seat in tops}
    if len(top_teams) == 1:
        return TrickOutcome(team_of[tops[0]], tops[0], tops[0])
    if sum_on_patte:
        sums: dict[int, int] = {}
        for seat, card in cards:
            sums[team_of[seat]] = sums.get(team_of[seat], 0) + card.value
        best = max(sums[t] for t in top_teams)
        leaders = [t for t in top_teams if sums[t] == best]
        if len(leaders) == 1:
            seat = next(s for s in tops if team_of[s] == leaders[0])
            return TrickOutcome(leaders[0], seat, seat, by_sum=True)
    return TrickOutcome(None, None, tops[0])


def hand_winner(results: Sequence[int | None]) -> int | str:
    """The team that wins the hand from trick results so far (None = patté) [T7, T20].

    Returns a team index, :data:`POURRIE` (three pattés), or :data:`UNDECIDED` while
    another trick must be played.
    """
    if not results:
        return UNDECIDED
    first = results[0]
    if first is not None:
        if len(results) < 2:
            return UNDECIDED
        second = results[1]
        if second is None or second == first:
            return first
        if len(results) < 3:
            return UNDECIDED
        # Another team took t2: it must take t3 too; otherwise the t1 winner has priority.
        return second if results[2] == second else first
    for result in results[1:]:
        if result is not None:
            return result
    return POURRIE if len(results) >= 3 else UNDECIDED
