"""The Weasel of Trut Deluxe: a target, a die, six outcomes [T37, T46].

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`, run by the powers
(:mod:`.powers`) when the Weasel lands in a trick (T30: its own effect, in the order its
text gives). Its player names an opposing seat still in the hand (``target 2``), then
the die is drawn jointly (``die k``), then the outcome acts:

1. exchange: the player gives a hand card of his choice by position (``give @3``, no
   card shown), then the table draws one of the target's hand positions jointly
   (``swap @7``, a chance node); each card changes hands and enters its new owner's
   sight only (the description's ``sight``). An empty hand on either side: nothing.
2. the target's card in this trick gets -2, played already or later in the trick.
3. the target's hand is discarded unrevealed and replaced by as many stock cards
   (fewer if the stock runs short), each in the target's sight only.
4. the player picks one of the target's hand positions blind (``force @5``): the
   target's next card must be that one; he may still call Trut first (T9).
5. Trut d'Office: no Trut yet, the target calls one at once and the Weasel's side
   answers as to any Trut (T10, T20); the target's team called this hand's Trut, it
   folds and the hand ends at once, the Weasel's team scores 1 Petit (T11, T46: the
   prizes on the table go to nobody); otherwise (another team's Trut, la Chanson)
   nothing.
6. the target's team gives all its unprotected Petits (T42) to the Weasel's team, as
   one gain (T45).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.api import Action
from trutnet.engine.errors import IllegalAction
from trutnet.games.trut.rules.actions import CardRef, Power, Swap
from trutnet.games.trut.rules.deluxe.cards import AnyCard

WEASEL = "H"
TARGET, GIVE, FORCE = 0, 1, 4  # the pending value of each of the Weasel's choices


class DeluxeWeasel:
    """The Weasel's target, die and outcomes (mixed into ``TrutState``)."""

    n: int
    phase: str
    to_act: int | None
    marker: int
    team_of: tuple[int, ...]
    petits: list[int]
    events: list[dict[str, Any]]
    holdings: list[list[int]]
    known: dict[int, AnyCard]
    folded: set[int]
    discarded: list[int]
    next_stock: int
    deck_size: int
    trick: list[tuple[int, int, AnyCard]]
    pending: list[tuple[str, str, int]]
    power_seat: int | None
    weasel_target: int | None
    weasel_given: int | None
    weasel_minus: list[int]
    forced: dict[int, int]

    def _weasel_init(self) -> None:
        self.weasel_target = None  # T37: the seat the Weasel names
        self.weasel_given = None  # T37 (1): the position its player gives
        self.weasel_minus = []  # T37 (2): seats whose card in this trick gets -2
        self.forced = {}  # T37 (4): seat -> the position it must play next

    def _weasel_public(self) -> dict[str, Any]:
        return {
            "weasel_target": self.weasel_target,
            "weasel_given": self.weasel_given,
            "weasel_minus": list(self.weasel_minus),
            "forced": sorted([s, p] for s, p in self.forced.items()),
        }

    def _weasel_targets(self, seat: int) -> list[int]:
        """T37, T47: an opposing seat still in the hand (not folded under T20)."""
        team = self.team_of[seat]
        return [s for s in range(self.n) if self.team_of[s] != team and s not in self.folded]

    def _weasel_legal(self, seat: int, step: int) -> list[Action]:
        if step == TARGET:
            return [Power("target", (str(s),)) for s in self._weasel_targets(seat)]
        if step == GIVE:
            return [Power("give", (self._give_ref(p),)) for p in self.holdings[seat]]
        target = self.weasel_target
        assert target is not None
        return [Power("force", (f"@{p}",)) for p in self.holdings[target]]

    def _give_ref(self, pos: int) -> str:
        card = self.known.get(pos)
        return f"@{pos}" if card is None else f"{card}@{pos}"

    def _apply_weasel(self, seat: int, action: Power, step: int) -> Action:
        """One of the Weasel's choices (the caller has popped its pending entry)."""
        if step == TARGET:
            target = self.weasel_target = int(action.args[0])
            self.events.append({"event": "weasel_target", "seat": seat, "target": target})
            self.pending.insert(0, ("die", WEASEL, 0))  # T37: the target, then the die
            return action
        pos = CardRef.parse(action.args[0]).pos
        assert pos is not None
        if step == GIVE:
            self.weasel_given = pos
            self.pending.insert(0, ("swap", WEASEL, 0))  # T37 (1): then the joint pick
            return Power("give", (f"@{pos}",))
        target = self.weasel_target
        assert target is not None
        self.forced[target] = pos  # T37 (4): his next card
        self.events.append({"event": "weasel_force", "seat": target})
        return action

    def _check_weasel(self, seat: int, action: Power, step: int) -> None:
        """The refusals of the Weasel's choices, each citing T37."""
        verb = {TARGET: "target", GIVE: "give", FORCE: "force"}[step]
        if action.verb != verb:
            raise IllegalAction("T37", f"the Weasel waits for '{verb}', not {action}")
        if step == TARGET:
            target = int(action.args[0])
            if target not in self._weasel_targets(seat):
                raise IllegalAction("T37", f"seat {target} is not an opponent still in the hand")
            return
        ref = CardRef.parse(action.args[0])
        owner = seat if step == GIVE else self.weasel_target
        assert owner is not None
        if ref.pos not in self.holdings[owner]:
            whose = "your hand" if step == GIVE else f"seat {owner}'s hand"
            raise IllegalAction("T37", f"position {ref.pos} is not in {whose}")
        known = self.known.get(ref.pos)
        if ref.card is not None and known is not None and known != ref.card:
            raise IllegalAction("T37", f"position {ref.pos} does not hold {ref.card}")

    # ---- the die [T37]

    def _weasel_die(self, k: int) -> bool:
        """Apply outcome ``k``; True if the hand no longer waits on the powers (a Trut
        d'Office waits for its answers, or a fold ended the hand)."""
        seat, target = self.power_seat, self.weasel_target
        assert seat is not None and target is not None
        self.events.append({"event": "weasel", "seat": seat, "target": target, "outcome": k})
        if k == 1:
            if self.holdings[seat] and self.holdings[target]:
                self.pending.insert(0, ("turn", WEASEL, GIVE))
        elif k == 2:
            self.weasel_minus.append(target)
        elif k == 3:
            self._weasel_replace(target)
        elif k == 4:
            if self.holdings[target]:
                self.pending.insert(0, ("turn", WEASEL, FORCE))
        elif k == 5:
            return self._trut_d_office(seat, target)
        else:
            self._weasel_petits(seat, target)
        return False

    def _weasel_replace(self, target: int) -> None:
        """T37 (3): the hand discarded unrevealed, as many stock cards in its place."""
        old = self.holdings[target]
        count = min(len(old), self.deck_size - self.next_stock)
        self.discarded.extend(old)
        self.holdings[target] = list(range(self.next_stock, self.next_stock + count))
        self.next_stock += count
        self.forced.pop(target, None)
        self.events.append(
            {
                "event": "weasel_replace",
                "seat": target,
                "discarded": len(old),
                "drawn": count,
                "positions": list(self.holdings[target]),
            }
        )

    def _trut_d_office(self, seat: int, target: int) -> bool:
        """T37 (5), T46: the target calls Trut, or his team's Trut folds, or nothing."""
        trut = getattr(self, "trut", None)
        if trut is None:  # an effect: T9's limits on turn and last card do not apply
            self._call_trut(target, "weasel")
            return True
        if trut.caller is not None and self.team_of[trut.caller] == self.team_of[target]:
            trut.status = "folded"
            trut.folded_by.append(target)
            self.events.append({"event": "weasel_fold", "seat": target})
            self._end_by_fold(self.team_of[seat], 1)  # T11: 1 Petit, nothing else
            return True
        return False  # another team's Trut, or la Chanson's: nothing happens

    def _weasel_petits(self, seat: int, target: int) -> None:
        """T37 (6), T45: every unprotected Petit of the target's team, as one gain."""
        victim, team = self.team_of[target], self.team_of[seat]
        count = 0 if self._protected(victim) else self.petits[victim]
        self.events.append({"event": "weasel_petits", "from": victim, "to": team, "petits": count})
        if count:
            self.petits[victim] = 0
            self._gain(team, count, 0)

    # ---- the exchange [T37 (1)]

    def _swap_positions(self) -> tuple[int, ...]:
        target = self.weasel_target
        return () if target is None else tuple(self.holdings[target])

    def _apply_swap(self, action: Swap) -> Swap:
        if self.phase != "swap":
            raise IllegalAction("T30", "no Weasel exchange is waited for now")
        if action.pos not in self._swap_positions():
            raise IllegalAction("T37", f"position {action.pos} is not in the target's hand")
        seat, target, given = self.power_seat, self.weasel_target, self.weasel_given
        assert seat is not None and target is not None and given is not None
        self.pending.pop(0)
        self.holdings[seat].remove(given)
        self.holdings[target].remove(action.pos)
        self.holdings[seat].append(action.pos)
        self.holdings[target].append(given)
        for who in (seat, target):  # T37 (4): a forced position that left its hand
            if self.forced.get(who) not in self.holdings[who]:
                self.forced.pop(who, None)
        self.weasel_given = None
        self.events.append(
            {
                "event": "weasel_swap",
                "seat": seat,
                "target": target,
                "given": given,
                "taken": action.pos,
            }
        )
        self._powers_resume()
        return action

    def _weasel_end(self) -> None:
        """The Weasel's choices are over (its card's effects done)."""
        self.weasel_target = None
        self.weasel_given = None

    if TYPE_CHECKING:  # TrutState's, TrutWords', TrutScoring's and DeluxeRules' own

        def _call_trut(self, caller: int, kind: str) -> None: ...

        def _end_by_fold(self, caller_team: int, petits: int) -> None: ...

        def _gain(self, team: int, petits: int, longs: int) -> None: ...

        def _protected(self, team: int) -> bool: ...

        def _powers_resume(self) -> None: ...
