"""Truco's bets: the flor round and its bets (K16, K17), the declarations (K20), the
envido chain (K18, K19, K24), the truco calls and their answers (K22, K23) and the
mazo (K25). A mixin of :class:`~trutnet.games.truco.rules.state.TrucoState`: what
a seat's words do to the hand."""

from __future__ import annotations

from typing import Any

from trutnet.engine.api import Action
from trutnet.games.truco.rules.actions import ENVIDO_BETS, TRUCO_CALLS, Declare

CHICO = 30  # K30
QUIERO_POINTS = {"envido": 2, "real envido": 3}  # K18


def envido_refused(chain: list[str]) -> int:
    """K18: refused, the points accepted before the last bet, at least 1."""
    before = chain[:-1]
    if not before:
        return 1
    return sum(QUIERO_POINTS[b] for b in before)


class TrucoBets:
    """The words of a hand (mixed into ``TrucoState``, whose fields and seat helpers
    it uses: ``seg``, ``asked``, ``flor_said``, ``side()``, ``_others()``...)."""

    # Fields of TrucoState read and written here.
    phase: str
    seg: list[int]
    folded: list[int]
    asked: list[int]
    calls: list[list[Any]]
    flor_said: dict[int, bool]
    flor_stage: str
    flor_resto_side: int
    flor_amount: int
    flor_pts: list[list[int]]
    flor_winner: int | None
    decl_kind: str
    decl_queue: list[int]
    declared: list[list[int]]
    best: list[int] | None
    envido_chain: list[str]
    envido_bettor: int | None
    envido_points: int
    envido_pts: list[int] | None
    envido_winner: int | None
    truco_called: bool
    truco_call: list[int] | None
    truco_level: int
    truco_owner: int | None
    truco_pts: list[int] | None

    # ------------------------------------------------------------ flor

    def _flor_round_over(self) -> None:
        """K16, K17: one side alone scores 3 per flor; both sides bet."""
        flores = [s for s in self.seg if self.flor_said.get(s)]
        self.phase = "play"
        if not flores:
            return
        sides = {self.side(s) for s in flores}
        if len(sides) == 1:
            self.flor_pts = [[self.side(flores[0]), 3 * len(flores)]]
            self._maybe_end_early()
            return
        self.phase, self.flor_stage = "florbet", "B"
        self.asked = self._others(flores[0], flores)

    def _flores(self) -> list[int]:
        return [s for s in self.seg if self.flor_said.get(s)]

    def _flor_answer(self, seat: int, word: str) -> None:
        self.calls.append([seat, word])
        if word == "paso":
            self.asked.pop(0)
            return
        flores = self._flores()
        side = self.side(seat)
        three_f = 3 * len(flores)
        if word == "con flor me achico":
            if self.flor_stage == "B":  # A scores 3 per A flor
                other = 1 - side
                self.flor_pts = [[other, 3 * sum(1 for s in flores if self.side(s) == other)]]
            else:
                self.flor_pts = [[1 - side, three_f]]
            self.asked = []
            self.phase = "play"
            self._maybe_end_early()
            return
        if word == "con flor quiero":
            amount = three_f + (self.resto() if self.flor_stage == "resto" else 0)
            self.asked = []
            self._start_declarations("flor", flores)
            self.flor_amount = amount
            return
        if word == "contraflor":
            self.flor_stage = "contra"
        else:  # contraflor al resto
            self.flor_stage, self.flor_resto_side = "resto", side
        self.asked = self._others(seat, flores)

    # ------------------------------------------------------------ declarations

    def _start_declarations(self, kind: str, seats: list[int]) -> None:
        self.phase, self.decl_kind = "declare", kind
        self.decl_queue = [s for s in seats if s not in self.folded]
        self.declared, self.best = [], None

    def _declare(self, seat: int, action: Action) -> None:
        """K20 (amended): declare a strictly greater value, or son buenas, each seat
        once; the first from the mano wins ties. ``decl_queue`` holds the seats yet to
        speak, in turn order from the one asked now. A seat whose side holds the best
        is passed over for now, not dropped: the turn goes round again and asks it
        once an opponent has beaten its side, so a side's best value is never lost to
        a lower one. Declarations end when every seat left is of the best's side."""
        self.decl_queue.pop(0)
        if isinstance(action, Declare):
            self.best = [action.value, seat]
            self.declared.append([seat, action.value])
        else:
            self.declared.append([seat, -1])
        assert self.best is not None
        best_side = self.side(self.best[1])
        waiting = self.decl_queue  # in turn order from the seat after ``seat``
        ask = next((i for i, s in enumerate(waiting) if self.side(s) != best_side), None)
        if ask is not None:  # the seats passed over go round to the end, still waiting
            self.decl_queue = waiting[ask:] + waiting[:ask]
            return
        self.decl_queue = []
        _, winner = self.best
        side = self.side(winner)
        if self.decl_kind == "flor":
            self.flor_pts, self.flor_winner = [[side, self.flor_amount]], winner
            self.phase = "play"
            self._maybe_end_early()
            return
        self.envido_pts, self.envido_winner = [side, self.envido_points], winner
        self._envido_settled()

    # ------------------------------------------------------------ calls

    def _word(self, seat: int, word: str) -> None:
        self.calls.append([seat, word])
        if word == "paso":
            self.asked.pop(0)
        elif self.envido_bettor is not None:
            self._envido_answer(seat, word)
        elif word in ENVIDO_BETS:
            self._envido_bet(seat, word)  # opens it (K19, K24)
        elif self.truco_call is not None:
            self._truco_answer(seat, word)
        elif word in TRUCO_CALLS:
            self._truco_call(seat, TRUCO_CALLS[word])
        else:
            assert word == "mazo"
            self._mazo(seat)

    def _envido_bet(self, seat: int, word: str) -> None:
        self.envido_chain.append(word)
        self.envido_bettor = seat
        self.asked = self._others(seat)

    def _envido_answer(self, seat: int, word: str) -> None:
        if word in ENVIDO_BETS:
            self._envido_bet(seat, word)
            return
        chain = self.envido_chain
        bettor = self.envido_bettor
        assert bettor is not None
        self.envido_bettor, self.asked = None, []
        if word == "no quiero":
            self.envido_pts = [self.side(bettor), envido_refused(chain)]
            self._envido_settled()
            return
        if "falta envido" in chain:
            self.envido_points = CHICO if self._game.falta_wins_chico else self.falta()
        else:
            self.envido_points = sum(QUIERO_POINTS[b] for b in chain)
        self._start_declarations("envido", self.seg)

    def _envido_settled(self) -> None:
        """After the envido: end the hand if a side reached 30 (K28), else answer the
        waiting truco call, asked again from after its caller (K24)."""
        self.phase = "play"
        if self._maybe_end_early():
            return
        if self.truco_call is not None:
            self.asked = self._others(self.truco_call[1])

    def _truco_call(self, seat: int, step: int) -> None:
        self.truco_called = True
        self.truco_call = [step, seat]
        self.asked = self._others(seat)

    def _truco_answer(self, seat: int, word: str) -> None:
        assert self.truco_call is not None
        step, caller = self.truco_call
        self.truco_call, self.asked = None, []
        if word == "no quiero":  # K22: the caller's side scores the step below
            self.truco_pts = [self.side(caller), step - 1]
            self._end_segment()
            return
        self.truco_level, self.truco_owner = step, self.side(seat)
        if word != "quiero":  # K23: quiero and the next step in one action
            self._truco_call(seat, step + 1)

    def _mazo(self, seat: int) -> None:
        """K25: fold; the side's last seat to fold ends the hand."""
        self.folded.append(seat)
        side = self.side(seat)
        if all(s in self.folded for s in self.seg if self.side(s) == side):
            self.truco_pts = [1 - side, self.truco_level]
            self._end_segment()
            return
        self._after_card(seat)
