"""Lutin & Troll's declaration (:class:`~trutnet.engine.declaration.GameType`): its
title, its two players (L1) and its one option, the variant (L4). The package
registers it with :class:`~trutnet.games.lutin.rules.state.LutinGame`."""

from __future__ import annotations

from trutnet.engine.declaration import VARIANT, GameType, Option
from trutnet.games.lutin.rules.state import SEATS, VARIANTS

LUTIN = GameType(
    name="lutin",
    title="Lutin & Troll",
    players=(SEATS,),
    variants=VARIANTS,
    options=(
        Option(
            VARIANT,
            VARIANTS[0],
            "base; expert-white or expert-black: with power tokens (L19); "
            "initiation: the initiation decks (L31)",
            rule="L4",
            choices=VARIANTS,
        ),
    ),
)
