"""What a Truco seat (or its bot, or its screen) is given: the public state and its
own cards only (K15: nothing of a partner's hand)."""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.api import Action
from trutnet.engine.hidden import Pos


@dataclass(frozen=True)
class TrucoObservation:
    seat: int
    phase: str
    to_act: int | None
    legal: tuple[Action, ...]
    players: int
    sides: tuple[int, ...]  # each seat's side in this hand (K6, K9)
    dealer: int
    mano: int
    hand_no: int
    scores: tuple[int, ...]
    chicos: tuple[int, ...]
    winner: int | None
    seg: tuple[int, ...]  # the seats of the redondo or duel in play (K12)
    pica: bool
    folded: tuple[int, ...]
    hand: tuple[tuple[Pos, str | None], ...]  # unplayed
    kept: tuple[tuple[Pos, str | None], ...]  # the three kept cards, played or not
    tricks: tuple[tuple[tuple[int, str], ...], ...]
    results: tuple[int, ...]  # a side, or -1 for a parda
    truco_level: int
    truco_call: tuple[int, ...] | None  # (step called, caller) awaiting an answer
    envido_chain: tuple[str, ...]
    envido_waiting: bool  # an envido bet awaits its answer
    declared: tuple[tuple[int, int], ...]  # (seat, value or -1: son buenas)
    calls: tuple[tuple[int, str], ...]
    last_scored: tuple[tuple[int, int], ...]
