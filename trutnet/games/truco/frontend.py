"""Truco's front-end: the screen (:mod:`.screen`), the keys turned into notation, and
the narration of its events for the log and for ``selfplay --verbose``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press
from trutnet.client.view import Line, TableInfo
from trutnet.engine.games.truco.actions import Deal, Dealer, Declare, Discard, Play, Show, Word
from trutnet.engine.games.truco.observation import TrucoObservation
from trutnet.engine.games.truco.state import TrucoState
from trutnet.games.truco import screen


class TrucoFrontend(Frontend):
    game = "truco"
    long_name = "Truco"
    keys = (*screen.CARD_KEYS, *screen.WORD_KEYS, "d", "w")
    round_word = "hand"
    chance_step = "Dealing"
    chance_wait = "the cards are being dealt"
    not_ready = "your cards are being dealt"

    def spectator_observation(self, state: TrucoState) -> TrucoObservation:
        return dataclasses.replace(state.observation(0), seat=-1, hand=(), kept=(), legal=())

    def title(self, obs: TrucoObservation) -> str:
        return screen.title(obs)

    def table_area(self, obs: TrucoObservation, info: TableInfo, width: int) -> list[Line]:
        return screen.table_area(obs, info)

    def prompt(self, obs: TrucoObservation, info: TableInfo) -> str:
        return screen.prompt(obs)

    def deciding(self, obs: TrucoObservation) -> str:
        return {"discard": "to discard", "flor": "to say flor", "declare": "to declare"}.get(
            obs.phase, "to show" if obs.phase == "show" else "to play or call"
        )

    def ready(self, obs: TrucoObservation, info: TableInfo) -> bool:
        return obs.phase not in ("draw", "shuffle") and all(c for _, c in obs.hand)

    def key_hints(self, obs: TrucoObservation, info: TableInfo) -> list[str]:
        return screen.key_hints(obs)

    def round_label(self, obs: TrucoObservation) -> str:
        return f"hand {obs.hand_no + 1}"

    def press(self, key: str, obs: TrucoObservation, info: TableInfo) -> Press:
        action = screen.legal_for_key(key, obs)
        if action is None:
            return Press(say=f"'{key}' does nothing now (the keys you may use are shown)")
        return Press(str(action))

    def why_not(self, action: str, obs: Any) -> str:
        return f"'{action}' is not possible now (K13: on your turn, or when asked)"

    def help(self, spectator: bool) -> str:
        return screen.WATCH_HELP if spectator else screen.HELP

    def narrate(
        self,
        event: Any,
        state: TrucoState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        def who(seat: int) -> str:
            return names[seat] if names else f"seat {seat}"

        if isinstance(event, Dealer):
            return [f"{who(event.seat)} deals first"]
        if isinstance(event, Deal):
            lines = [f"hand {state.hand_no + 1}: {who(state.dealer)} deals"]
            if show_hands:
                for seat in range(state.n):
                    cards = [state.identity_of(p) for p in state.dealt[seat]]
                    lines.append(f"  {who(seat)}: " + " ".join(screen.card_text(c) for c in cards))
            return lines
        if isinstance(event, Discard):
            return [f"{who(state.gallo() or 0)}, the gallo, discards a card"]
        seat = self._actor(state)
        if isinstance(event, Play):
            return [f"{who(seat)} plays {screen.card_text(event.card)}"]
        if isinstance(event, Declare):
            return [f"{who(seat)} declares {event.value}"]
        if isinstance(event, Show):
            shown = " ".join(screen.card_text(c) for _, c in event.cards)
            return [f"{who(seat)} shows {shown}"]
        if isinstance(event, Word):
            return [f"{who(seat)}: {event.word}"]
        return [str(event)]

    def _actor(self, state: TrucoState) -> int:
        return state.actor

    def follow(self, event: Any, state: TrucoState, info: TableInfo) -> Cue | None:
        return Cue.ROUND_STARTS if isinstance(event, Deal) else None

    def end_title(self, obs: TrucoObservation, info: TableInfo) -> str:
        if obs.winner is None:
            return "nobody wins"
        name = screen.unit_name(obs, info, obs.winner)
        mine = info.me is not None and (
            obs.winner == info.me
            if len(obs.scores) == 3
            else screen._unit_of(obs, info.me) == obs.winner
        )
        verb = "win" if "+" in name else "wins"
        return "you win!" if mine else f"{name} {verb}"

    def end_table(
        self, obs: TrucoObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        rows: list[Line] = [
            [("", f" {screen.unit_name(obs, info, u)}: {c} chicos, {screen.malas_buenas(p)}")]
            for u, (c, p) in enumerate(zip(obs.chicos, obs.scores, strict=True))
        ]
        return [[("class:bold", " Final score:")]], rows

    def score(self, state: TrucoState) -> str:
        return f"chicos {state.chicos}, points {state.scores}"
