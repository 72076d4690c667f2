"""The public views of a Trut game: the fields its state hash covers, in canonical
order (:func:`public_state_of`), and what one seat sees (:func:`observation_of`).
Neither reads a card this replica was not shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.errors import IllegalAction
from trutnet.games.trut.rules.observation import TrickView, TrutObservation

if TYPE_CHECKING:
    from trutnet.games.trut.rules.state import TrutState


def public_state_of(state: TrutState) -> dict[str, Any]:
    """Every public field of ``state``, in canonical order: what its hash covers
    (docs/games/trut.md). No unrevealed card's identity is read."""
    return {
        "game": "trut",
        "config": state.game.config_dict(),
        "phase": state.phase,
        "to_act": state.to_act,
        "hand": state.hand_number,
        "dealer": state.dealer,
        "marker": state.marker,
        "longs": list(state.longs),
        "petits": list(state.petits),
        "winner": state.winner,
        "draws": [[s, str(c)] for s, c in state.draws],
        "draw_contenders": list(state.draw_contenders),
        "holdings": [list(h) for h in state.holdings],
        "stock_next": state.next_stock,
        "discarded": list(state.discarded),
        "trick": [[s, p, str(c)] for s, p, c in state.trick],
        "tricks": [
            {"cards": [[s, p, str(c)] for s, p, c in cards], "team": team, "winner": winner}
            for cards, team, winner in state.tricks
        ],
        "results": list(state.results),
        "leader": state.leader,
        "trut": None if state.trut is None else state.trut.to_data(),
        "queue": list(state.queue),
        "folded": sorted(state.folded),
        "singer": state.singer,
        "fortial_team": state.fortial_team,
        **({"deluxe": state.deluxe_public()} if state.deluxe else {}),
    }


def observation_of(state: TrutState, seat: int) -> TrutObservation:
    """What ``seat`` sees of ``state``: its own cards (unless a rule hides them from
    it), every card shown, the score and what it may do."""
    if not 0 <= seat < state.n:
        raise IllegalAction("T2", f"no seat {seat}")
    blind = state.hidden_from_owner(seat)
    hand = tuple((pos, None if blind else state.known.get(pos)) for pos in state.holdings[seat])
    if state.deluxe and state.phase == "over":  # T37: cards got as the game ended, unseen
        hand = ()
    return TrutObservation(
        seat=seat,
        players=state.n,
        variant=state.game.config.variant,
        target=state.target,
        teams=state.teams,
        team=state.team_of[seat],
        phase=state.phase,
        to_act=state.to_act,
        hand_number=state.hand_number,
        dealer=state.dealer,
        marker=state.marker,
        longs=tuple(state.longs),
        petits=tuple(state.petits),
        hand=hand,
        hand_sizes=tuple(len(h) for h in state.holdings),
        trick=tuple((s, c) for s, _, c in state.trick),
        tricks=tuple(
            TrickView(tuple((s, c) for s, _, c in cards), team, winner)
            for cards, team, winner in state.tricks
        ),
        results=tuple(state.results),
        trut=None if state.trut is None else state.trut.view(),
        folded=tuple(sorted(state.folded)),
        stock=state.stock_left() if state.phase not in ("draw", "deal") else 0,
        singer=state.singer,
        fortial_team=state.fortial_team,
        winner=state.winner,
        legal=tuple(state.legal_actions(seat)),
        deluxe=state.deluxe,
        falcon_seen=state.falcon_seen(seat) if state.deluxe else (),
        jay_pot=state.jay_pot if state.deluxe else 0,
        protected=state.hedgehog_team if state.deluxe else None,
        weasel_target=state.weasel_target if state.deluxe else None,
        forced=state.forced.get(seat) if state.deluxe else None,
    )
