"""Whole tables in one process for the tests, as :mod:`trutnet.memory_table` plays
them, but with every seat's replica sharing one :class:`CheckedProofs` that trusts no
seat's own proofs: every shuffle and share proof is still checked, once instead of
once per replica. Accepting or refusing an entry cannot change: a statement's digest
covers everything its check reads (context, keys, decks, the proof), a check is a pure
function of them, and a proof that fails is never remembered, so each replica refuses
a cheat as before. The CPU-bound protocol tests run about a third faster.

Tests that count checks or need replicas that share nothing call
:mod:`trutnet.memory_table` directly, or pass ``together=()``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from trutnet import memory_table
from trutnet.engine.api import Game
from trutnet.memory_table import MemoryTable

ALL = range(64)  # every seat of any table


def new_memory_table(
    game: Game, seed: int | str, bots: Sequence[str], together: Collection[int] = ALL
) -> MemoryTable:
    return memory_table.new_memory_table(game, seed, bots, together, trust_own=False)


def play_memory_game(
    game: Game,
    seed: int | str,
    bots: Sequence[str],
    until: Callable[[MemoryTable], bool] | None = None,
    together: Collection[int] = ALL,
) -> MemoryTable:
    return memory_table.play_memory_game(game, seed, bots, until, together, trust_own=False)


def make_table(players: int, seed: int | str):
    """The peers of a new table (:func:`trutnet.memory_table.make_table`), their
    replicas sharing one :class:`CheckedProofs` as above."""
    return memory_table.make_table(players, seed, ALL, trust_own=False)
