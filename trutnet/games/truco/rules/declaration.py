"""Truco's declaration (:class:`~trutnet.engine.declaration.GameType`): its title, player
counts (K5) and every option of K31 with its default, allowed values and help. The
game's configuration (:mod:`.game`) takes its allowed values from here; the package
registers it with :class:`~trutnet.games.truco.rules.game.TrucoGame`."""

from __future__ import annotations

from trutnet.engine.declaration import PLAYERS, GameType, Option

PLAYER_COUNTS = (2, 3, 4, 6, 8)  # K5

TRUCO = GameType(
    name="truco",
    title="Truco",
    players=PLAYER_COUNTS,
    # The first allowed value of each option but players is its default (K31).
    options=(
        Option(
            PLAYERS,
            4,
            "how many play: alone at 2, the gallo against two at 3, in two teams at 4, 6 or 8",
            rule="K5, K6, K9",
            choices=PLAYER_COUNTS,
        ),
        Option(
            "flor",
            False,
            "the flor round and its bets",
            choices=(False, True),
            rule="K16, K17, K31",
        ),
        Option(
            "falta_wins_chico",
            False,
            "an accepted falta envido wins the chico",
            rule="KD7, K31",
            choices=(False, True),
        ),
        Option(
            "gallo",
            "fixed",
            "with 3 players, the gallo is seat 0 (fixed) or the dealer (rotating)",
            rule="K9, K10, K31",
            choices=("fixed", "rotating"),
            needs=((PLAYERS, 3),),
        ),
        Option(
            "pica_pica",
            True,
            "with 6 or 8 players, redondo and pica-pica duels alternate",
            rule="K11, K31",
            choices=(True, False),
            needs=((PLAYERS, 6),),
        ),
        Option(
            "pica_pica_until",
            25,
            "with 6 or 8 players, the duels go on until a team has 25 or both are in the buenas",
            rule="K11, K31",
            choices=(25, "both_buenas"),
            needs=((PLAYERS, 6),),
        ),
        Option(
            "senas",
            True,
            "with 4 or 6 players, partners tell each other their cards by signs, "
            "and an opponent may catch one",
            rule="K15",
            choices=(True, False),
            needs=((PLAYERS, 4),),
        ),
        Option(
            "senas_catch",
            1,
            "the chance, in quarters, that each opponent catches a sign",
            rule="K15",
            choices=(1, 0, 2, 3, 4),
            needs=((PLAYERS, 4),),
        ),
        Option(
            "chicos",
            3,
            "the match: the best of 3 chicos, or 1",
            rule="K30, K31",
            choices=(3, 1),
        ),
    ),
)
