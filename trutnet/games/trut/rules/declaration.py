"""Trut's declaration (:class:`~trutnet.engine.declaration.GameType`): its title, player
counts, variants, and every option of its configuration with its default, allowed
values, help and command-line flag, the Deluxe options among them (T23). The package
registers it with :class:`~trutnet.games.trut.rules.game.TrutGame`; a start position
(``start``) is a configuration field, not an option a person sets."""

from __future__ import annotations

from trutnet.engine.declaration import PLAYERS, VARIANT, GameType, Option
from trutnet.games.trut.rules.config import PLAYER_COUNTS, VARIANTS, TrutConfig

_DEFAULT = TrutConfig()

TRUT = GameType(
    name="trut",
    title="Trut",
    players=PLAYER_COUNTS,
    variants=VARIANTS,
    options=(
        Option(
            PLAYERS,
            _DEFAULT.players,
            "how many play: alone at 2 or 3, in two teams at 4 or 6",
            rule="T2",
            choices=PLAYER_COUNTS,
        ),
        Option(
            VARIANT,
            _DEFAULT.variant,
            "classic: first to 7 Longs; gatinaise: first to 5",
            rule="T14, T17",
            choices=VARIANTS,
        ),
        Option(
            "sum_on_patte",
            _DEFAULT.sum_on_patte,
            "with 6 players, a patté trick goes to the larger sum of values",
            rule="T21",
            needs=((PLAYERS, 6),),
            flag="--sum-on-patte",
            said="sum on patté",
        ),
        Option(
            "deluxe",
            _DEFAULT.deluxe,
            "the 13 special cards of Deluxe",
            rule="T23-T47",
            flag="--deluxe",
            said="Deluxe",
        ),
        Option(
            "bonus_cards",
            _DEFAULT.bonus_cards,
            "with deluxe, the 5 bonus cards N-R too",
            rule="T23",
            needs=(("deluxe", True),),
            flag="--bonus-cards",
        ),
        Option(
            "michao_hare",
            _DEFAULT.michao_hare,
            "with deluxe, Wolf + Fox + Hare also sings Michao",
            rule="T23, T44",
            needs=(("deluxe", True),),
            flag="--michao-hare",
            said="Michao with the Hare",
        ),
    ),
)
