"""What one seat of Lutin & Troll sees (and all a bot is given)."""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.api import Action


@dataclass(frozen=True)
class LutinObservation:
    """One seat's view: the public state (L17) and its own hand.

    ``hand`` is (commitment label or position, kind) per unplayed card; ``unseen`` is,
    per seat, what its hand and pioche hold together (base: public, L17);
    ``pioche_sizes`` the cards left to take; ``table`` the combat in progress (attack,
    then riposte, as (seat, kind)); ``last`` the last combat: (attacking seat, attack,
    riposte, HP change of seat 0, of seat 1, winner)."""

    seat: int
    variant: str
    phase: str
    to_act: int | None
    attacker: int
    hp: tuple[int, ...]
    vp: tuple[int, ...]
    manche: int
    hand: tuple[tuple[str, str | None], ...]
    hand_sizes: tuple[int, ...]
    pioche_sizes: tuple[int, ...]
    unseen: tuple[tuple[str, ...], ...]
    defausse: tuple[tuple[str, ...], ...]
    table: tuple[tuple[int, str], ...]
    last: tuple[int, str, str, int, int, int | None] | None
    winner: int | None
    legal: tuple[Action, ...]
    # expert (L19-L30): the power set, this seat's tokens (position or "bonus", name),
    # each seat's count of tokens held, the face-up tokens, the tokens of the last window
    power: str | None = None
    tokens: tuple[tuple[str, str | None], ...] = ()
    token_counts: tuple[int, ...] = (0, 0)
    faceup: tuple[str, ...] = ()
    window: tuple[str, ...] = ()
