"""Helpers shared by the Trut tests: random playouts and a hidden-knowledge replica."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from trutnet.engine.api import CHANCE
from trutnet.games.trut.rules import Deal, Keep, StartPosition, TrutConfig, TrutGame, TrutState
from trutnet.games.trut.rules.cards import Card

CONFIGS = [
    TrutConfig(players, variant, sum_on_patte)
    for players in (2, 3, 4, 6)
    for variant in ("classic", "gatinaise")
    for sum_on_patte in ((False, True) if players == 6 else (False,))
]
MAX_STEPS = 20_000


def random_step(state: TrutState, rng: random.Random) -> str:
    """Apply one random legal action (or chance outcome); return its notation."""
    if state.current_seat() == CHANCE:
        action = state.sample_chance(rng)
    else:
        action = rng.choice(state.legal_actions())
    state.apply(action)
    return str(state.history()[-1])


def playout(
    state: TrutState, rng: random.Random, after: Callable[[TrutState], None] | None = None
) -> int:
    """Play random legal actions to the end; return the number of steps."""
    steps = 0
    while not state.is_terminal():
        random_step(state, rng)
        steps += 1
        if after is not None:
            after(state)
        assert steps < MAX_STEPS, "a game did not end"
    return steps


def start_position(config: TrutConfig, rng: random.Random) -> StartPosition:
    """A random start position, weighted towards the special hands (Fortial, 2 Petits)."""
    teams = len(config.teams)
    longs = tuple(
        rng.choice([0, config.target - 1, rng.randrange(config.target)]) for _ in range(teams)
    )
    petits = tuple(rng.choice([0, 1, 2, 2]) for _ in range(teams))
    return StartPosition(longs, petits, rng.randrange(config.players))


class HiddenReplica:
    """Follows a full-knowledge game as one seat of a networked table would.

    It is told only the public form of each action (a deal without the deck, kept
    cards by position) and the identities of its own seat's cards.
    """

    def __init__(self, game: TrutGame, seat: int) -> None:
        self.seat = seat
        self.state: TrutState = game.new_initial_state()

    def follow(self, full: TrutState, action_text: str) -> None:
        action = full.parse_action(action_text)
        if isinstance(action, Deal | Keep):
            action = action.public()
        self.state.apply(action)
        for pos in full.holdings[self.seat]:
            if pos not in self.state.known:
                self.state.learn(pos, full.known[pos])


def visible_cards(data: object) -> Iterator[str]:
    """Every string in plain data that names a card (``7h`` or ``7h@12``)."""
    if isinstance(data, str):
        head = data.split("@")[0]
        for token in head.split(" "):
            try:
                Card.parse(token)
            except ValueError:
                continue
            yield token
    elif isinstance(data, dict):
        for value in data.values():
            yield from visible_cards(value)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from visible_cards(value)
