"""A minimal front-end and a bot for the test game Tokens, to show that the terminal
client's frame and the bot factory take any game: its table area (scores, stake, the
cards played, the seat's cards), its keys (``0``-``3`` a bet, ``1``-``3`` a card), its
prompts and a plain narration of its actions."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press
from trutnet.client.view import Line, TableInfo, seat_name

from .tokens import (
    Bet,
    Dealt,
    Die,
    First,
    Pick,
    Seal,
    Show,
    TokensObservation,
    TokensState,
    value,
)


class TokensFrontend(Frontend):
    game = "tokens"
    long_name = "Tokens"
    keys = tuple("0123456")
    chance_step = "Drawing"

    def spectator_observation(self, state: TokensState) -> TokensObservation:
        return dataclasses.replace(state.observation(0), seat=-1, hand=(), legal=())

    def title(self, obs: TokensObservation) -> str:
        return f"Tokens — round {obs.round}, stake {obs.stake}"

    def table_area(self, obs: TokensObservation, info: TableInfo, width: int) -> list[Line]:
        scores = ", ".join(f"{seat_name(info, s)} {n}" for s, n in enumerate(obs.scores))
        played = ", ".join(f"{seat_name(info, s)} {card}" for s, _, card in obs.played[-2:])
        lines: list[Line] = [[("class:bold", " Scores: "), ("", scores)]]
        lines.append([("", f" Played: {played or '—'}")])
        if info.me is None:
            sizes = ", ".join(f"{seat_name(info, s)} {n}" for s, n in enumerate(obs.hand_sizes))
            lines.append([("class:bold", " Cards in hand: "), ("", sizes)])
        else:
            cards = " ".join(f"[{i + 1}]{card or '??'}" for i, (_, card) in enumerate(obs.hand))
            lines.append([("class:bold", " Your cards: "), ("", cards or "—")])
        return lines

    def prompt(self, obs: TokensObservation, info: TableInfo) -> str:
        if obs.phase == "bet":
            return f"Your bet: how many rounds you win (0-{len(obs.legal) - 1}), in secret"
        return f"Your card for this round: 1-{len(obs.hand)}, in secret"

    def deciding(self, obs: TokensObservation) -> str:
        return "to bet" if obs.phase == "bet" else "to choose a card"

    def key_hints(self, obs: TokensObservation, info: TableInfo) -> list[str]:
        if obs.phase == "bet":
            return [f"0-{len(obs.legal) - 1} bet"]
        return [f"1-{len(obs.hand)} card"]

    def press(self, key: str, obs: TokensObservation, info: TableInfo) -> Press:
        if obs.phase == "bet":
            return Press(f"bet {key}")
        index = int(key) - 1
        if obs.phase == "pick" and 0 <= index < len(obs.hand):
            pos, card = obs.hand[index]
            return Press(str(Pick(pos, card)))
        return Press(say=f"no card {key} to choose now")

    def help(self, spectator: bool) -> str:
        keys = "q stop watching" if spectator else "0-3 bet, 1-3 a card, q quit"
        return f"Tokens — the test game\nKeys: {keys}, ? this help\nPress ? or Esc to go back."

    def narrate(
        self,
        event: Any,
        state: TokensState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        def who(seat: int) -> str:
            return names[seat] if names else f"seat {seat}"

        if isinstance(event, First):
            return [f"{who(event.seat)} goes first"]
        if isinstance(event, Dealt):
            return [f"{event.deck} is shuffled and dealt"]
        if isinstance(event, Die):
            return [f"the stake is {event.value}"]
        if isinstance(event, Seal):
            return ["a choice is sealed"]
        if isinstance(event, Bet):
            return [f"a bet opens: {event.rounds}"]
        if isinstance(event, Pick):
            return [f"a card is shown: {event.card}"]
        if isinstance(event, Show):
            return ["the cards left are shown: " + " ".join(str(c) for _, c in event.cards)]
        return [f"{event}"]

    def follow(self, event: Any, state: TokensState, info: TableInfo) -> Cue | None:
        return Cue.ROUND_STARTS if isinstance(event, Die) else None

    def end_title(self, obs: TokensObservation, info: TableInfo) -> str:
        top = max(obs.scores)
        best = [s for s, n in enumerate(obs.scores) if n == top]
        if len(best) > 1:
            return "nobody wins"
        return "you win!" if best[0] == info.me else f"{seat_name(info, best[0])} wins"

    def end_table(
        self, obs: TokensObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        rows: list[Line] = [
            [("", f" {seat_name(info, s)}: {n} points, bet {obs.bets[s]}")]
            for s, n in enumerate(obs.scores)
        ]
        return [[("class:bold", " Final scores:")]], rows

    def score(self, state: TokensState) -> str:
        return f"scores {state.scores}"


class GreedyBot:
    """Tokens' own bot: bets one round, plays its highest card."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, observation: TokensObservation) -> Any:
        legal = observation.legal
        picks = [a for a in legal if isinstance(a, Pick) and a.card is not None]
        if picks:
            return max(picks, key=lambda a: value(a.card or "r0"))
        return next((a for a in legal if isinstance(a, Bet) and a.rounds == 1), legal[0])
