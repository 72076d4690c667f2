"""Trut's words: the Trut and its answers, the Fortial and la Chanson.

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`: the calls a seat makes
instead of playing a card, and what they do to the hand. Rulings T9-T12 and T18-T20
(the Trut, its answers, Trut d'office, la Chanson, three players), T15 (the Fortial),
and the project decisions D4, D7-D9 and D15 (``docs/games/trut.md``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.errors import IllegalAction
from trutnet.games.trut.rules.actions import CardRef, Keep, SingCount
from trutnet.games.trut.rules.cards import Card
from trutnet.games.trut.rules.observation import TrutView
from trutnet.games.trut.rules.tricks import POURRIE, UNDECIDED, hand_winner

HAND_SIZE = 3
"""Cards in a hand once dealt, and once la Chanson's extra cards are given up [T4, T19]."""

PHASE_RULE = {
    "draw": "T3",
    "deal": "T4",
    "fortial": "T15",
    "answer": "T10",
    "play": "T5",
    "sing_ask": "T19",
    "sing_agree": "T19",
    "sing_count": "T19",
    "keep": "T19",
    "over": "T14",
    "prepare": "T25",  # Deluxe
    "choose": "T25",
    "falcon": "T33",
    "hedgehog": "T42",
    "die": "T30",
    "power": "T30",
    "hare": "T34",
    "michao": "T44",
    "nutria": "T35",
    "swap": "T37",
}
"""The ruling that says what a phase allows, for the refusal of a move out of place."""


class TrutCall:
    """The (single) Trut of a hand [T9]: who called it, how, and the answers so far."""

    __slots__ = ("accepted_by", "caller", "folded_by", "kind", "status")

    def __init__(self, caller: int | None, kind: str, status: str = "pending") -> None:
        self.caller = caller
        self.kind = kind
        self.status = status
        self.accepted_by: list[int] = []
        self.folded_by: list[int] = []

    def copy(self) -> TrutCall:
        other = TrutCall(self.caller, self.kind, self.status)
        other.accepted_by = list(self.accepted_by)
        other.folded_by = list(self.folded_by)
        return other

    def view(self) -> TrutView:
        return TrutView(
            self.caller, self.kind, self.status, tuple(self.accepted_by), tuple(self.folded_by)
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "caller": self.caller,
            "kind": self.kind,
            "status": self.status,
            "accepted_by": list(self.accepted_by),
            "folded_by": list(self.folded_by),
        }


class TrutWords:
    """Trut, answers, the Fortial and la Chanson (mixed into ``TrutState``)."""

    # Fields of TrutState read and written here.
    n: int
    teams: tuple[tuple[int, ...], ...]
    team_of: tuple[int, ...]
    phase: str
    to_act: int | None
    dealer: int
    marker: int
    events: list[dict[str, Any]]
    known: dict[int, Card]
    holdings: list[list[int]]
    next_stock: int
    discarded: list[int]
    results: list[int | None]
    trut: TrutCall | None
    queue: list[int]
    folded: set[int]
    singer: int | None
    fortial_team: int | None
    deluxe: bool

    if TYPE_CHECKING:  # DeluxeFalcon's own (trutnet/games/trut/rules/deluxe/falcon.py)

        def _falcon_gate(self) -> None: ...

        def _powers_resume(self) -> None: ...

    # ---- Trut [T9-T12, T18, T20]

    def _opponents_in_order(self, caller: int) -> list[int]:
        team = self.team_of[caller]
        return [
            s for s in self._order_from(caller) if self.team_of[s] != team and s not in self.folded
        ]

    def _call_trut(self, caller: int, kind: str) -> None:
        self.trut = TrutCall(caller, kind)
        self.queue = self._opponents_in_order(caller)
        self.phase = "answer"
        self.to_act = self.queue[0]
        self.events.append({"event": "trut", "seat": caller, "kind": kind})
        if kind in ("office", "fortial") and self.deluxe:
            self._falcon_gate()  # T33: the Falcon shows before any answer

    def _apply_word(self, seat: int, word: str) -> None:
        phase = self.phase
        if word == "trut" and phase not in ("play", "fortial"):
            raise IllegalAction("T9", "Trut is called on one's turn to play, once per hand")
        if phase == "play":
            self._require(word == "trut", "T5", f"'{word}' is not a move while playing")
            self._require(self.trut is None, "T9", "at most one Trut per hand")
            self._call_trut(seat, "call")
        elif phase == "answer":
            self._require(word in ("accept", "fold"), "T10", "answer a Trut with accept or fold")
            self._answer(seat, word)
        elif phase == "fortial":
            self._require(word in ("trut", "pass"), "T15", "au Fortial: trut or pass")
            self._fortial(seat, word)
        elif phase == "sing_ask":
            self._require(word in ("sing", "pass"), "T19", "asked to sing: sing or pass")
            self._sing_ask(word)
        elif phase == "sing_agree":
            self._require(word in ("agree", "refuse"), "T19", "agree or refuse to sing")
            self._sing_agree(word)
        else:
            raise IllegalAction(PHASE_RULE.get(phase, "turn"), f"'{word}' in phase {phase}")

    def _answer(self, seat: int, word: str) -> None:
        trut = self.trut
        assert trut is not None
        self.queue.pop(0)
        self.events.append({"event": "answer", "seat": seat, "word": word})
        (trut.accepted_by if word == "accept" else trut.folded_by).append(seat)
        caller = trut.caller
        assert caller is not None
        caller_team = self.team_of[caller]
        if self.n != 3:  # T10: the first accept accepts for the team; all must fold
            if word == "accept":
                trut.status = "accepted"
                self.queue = []
                self._resume_after_trut()
            elif not self.queue:
                trut.status = "folded"
                self._end_by_fold(caller_team, 1)
            else:
                self.to_act = self.queue[0]
            return
        # 3 players [T10, T20, D15]: each opponent answers for himself, and each fold
        # scores the caller 1 Petit as it is said (so the game may end at once, T14).
        if word == "fold":
            self._add_petits(caller_team, 1)
            if self.phase == "over":
                self._close_hand("fold", caller_team, self.marker)
                return
        if self.queue:
            self.to_act = self.queue[0]
            return
        if len(trut.folded_by) == 2:  # both folded: 2 Petits in all, the hand ends
            trut.status = "folded"
            self._close_hand("fold", caller_team, self.marker)
            return
        trut.status = "accepted"
        if trut.folded_by:  # T20, D8: the hand goes on between the two others
            folded = trut.folded_by[0]
            self.folded.add(folded)
            self.results = [None if r == self.team_of[folded] else r for r in self.results]
            self.events.append({"event": "folded_out", "seat": folded})
            outcome = hand_winner(self.results)
            if outcome not in (UNDECIDED, POURRIE):
                assert isinstance(outcome, int)
                self._end_by_win(outcome)
                return
        self._resume_after_trut()

    def _resume_after_trut(self) -> None:
        trut = self.trut
        assert trut is not None
        self.events.append({"event": "trut_accepted", "kind": trut.kind})
        if trut.kind == "call":
            self.phase = "play"
            self.to_act = trut.caller  # T9: the caller still has to play his card
        elif trut.kind == "weasel":  # T37 (5): the Weasel's effects go on
            self._powers_resume()
        else:
            self._begin_play()

    # ---- Fortial [T15, D9]

    def _fortial(self, seat: int, word: str) -> None:
        self.queue.pop(0)
        self.events.append({"event": "fortial_decision", "seat": seat, "word": word})
        if word == "trut":
            self.queue = []
            self._call_trut(seat, "fortial")
            return
        if self.queue:
            self.to_act = self.queue[0]
            return
        fortial_team = self.fortial_team
        # Everyone au Fortial passed: each opponent team scores 1 Petit, no play (D4).
        for s in self._order_from(self.dealer):
            team = self.team_of[s]
            if team != fortial_team and s == self.teams[team][0]:
                self._add_petits(team, 1)
        self._close_hand("fortial_pass", None, self.marker)

    # ---- la Chanson [T19, D7]

    def _ask_singer(self) -> None:
        assert self.singer is not None
        if self.stock_left() >= self.n:
            self.phase = "sing_ask"
            self.to_act = self.singer
        else:
            self._start_keep()

    def _sing_ask(self, word: str) -> None:
        singer = self.singer
        assert singer is not None
        self.events.append({"event": "sing_ask", "seat": singer, "word": word})
        if word == "pass":
            self._start_keep()
            return
        self.phase = "sing_agree"
        self.queue = self._order_from(singer)[1:]
        self.to_act = self.queue[0]

    def _sing_agree(self, word: str) -> None:
        seat = self.queue.pop(0)
        self.events.append({"event": "sing_agree", "seat": seat, "word": word})
        if word == "refuse":
            self.queue = []
            self._start_keep()
        elif self.queue:
            self.to_act = self.queue[0]
        else:
            self.phase = "sing_count"
            self.to_act = self.singer

    def _apply_sing_count(self, seat: int, action: SingCount) -> None:
        self._require(self.phase == "sing_count", "T19", "the count comes after everyone agreed")
        count = action.count
        self._require(
            count * self.n <= self.stock_left(),
            "T19",
            f"the stock holds {self.stock_left()} cards: too few for {count} each",
        )
        singer = self.singer
        assert singer is not None
        order = self._order_from(singer)
        for _ in range(count):
            for s in order:
                self.holdings[s].append(self.next_stock)
                self.next_stock += 1
        self.events.append({"event": "sing_draw", "seat": seat, "count": count})
        self._ask_singer()

    def _start_keep(self) -> None:
        assert self.singer is not None
        self.queue = [s for s in self._order_from(self.singer) if len(self.holdings[s]) > HAND_SIZE]
        if self.queue:
            self.phase = "keep"
            self.to_act = self.queue[0]
        else:
            self._chanson_play()

    def _apply_keep(self, seat: int, action: Keep) -> Keep:
        self._require(self.phase == "keep", "T19", "cards are kept only after la Chanson")
        self._require(len(action.refs) == HAND_SIZE, "T19", "keep exactly 3 cards")
        positions = [self._resolve(seat, ref, "T19") for ref in action.refs]
        self._require(len(set(positions)) == HAND_SIZE, "T19", "keep 3 different cards")
        kept = set(positions)
        dropped = [p for p in self.holdings[seat] if p not in kept]
        self.holdings[seat] = [p for p in self.holdings[seat] if p in kept]
        self.discarded.extend(dropped)
        self.queue.pop(0)
        self.events.append({"event": "keep", "seat": seat, "discarded": len(dropped)})
        if self.queue:
            self.to_act = self.queue[0]
        else:
            self._chanson_play()
        return Keep(tuple(CardRef(self.known.get(p), p) for p in positions))

    def _chanson_play(self) -> None:
        # T19: played as an accepted Trut with no fold; no caller, no further Trut.
        self.trut = TrutCall(None, "chanson", "accepted")
        self.events.append({"event": "trut", "seat": None, "kind": "chanson"})
        self._begin_play()
