"""The engine interface that every game plugin implements.

Modelled on OpenSpiel's State API and python-chess's values:

* a :class:`Game` is built from a configuration and makes initial states;
* a :class:`GameState` says who acts (a seat, chance, or nobody when terminal),
  lists ``legal_actions(seat)``, and ``apply``-s one action at a time; an illegal
  action raises :class:`~trutnet.engine.errors.IllegalAction` and changes nothing;
* chance events (shuffles, deals, dice) are actions too, sampled with randomness
  that the caller passes in, so the engine itself is deterministic;
* hidden information is first-class: a state knows only the cards this replica has
  been shown; ``public_state()`` never depends on an unrevealed card, so every
  replica computes the same ``state_hash()``;
* ``observation(seat)`` is what that seat may see, and all a bot is given;
* a game serialises as its configuration plus the list of actions applied.

Actions are small immutable values whose ``str`` is their notation; ``parse_action``
turns the notation back into the same value.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from trutnet.engine.canonical import state_digest

CHANCE = -1
"""The pseudo-seat that acts at a chance node."""


class Action(ABC):
    """An immutable action value; ``str(action)`` is its notation."""

    @abstractmethod
    def public(self) -> Action:
        """This action as every seat may see it (hidden card identities removed)."""


class GameState(ABC):
    """A position of a game; mutable through :meth:`apply` only."""

    @property
    @abstractmethod
    def game(self) -> Game:
        """The game (and configuration) this state belongs to."""

    @abstractmethod
    def current_seat(self) -> int | None:
        """The seat that acts now, :data:`CHANCE` at a chance node, None when terminal."""

    def is_chance_node(self) -> bool:
        return self.current_seat() == CHANCE

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Legal actions of ``seat`` (default: the seat to act); empty if it may not act."""

    @abstractmethod
    def apply(self, action: Action | str) -> list[Any]:
        """Apply one action (value or notation); return the public events it caused."""

    @abstractmethod
    def sample_chance(self, rng: random.Random) -> Action:
        """At a chance node, draw an outcome with ``rng`` (uniform where the rules say so)."""

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """Parse action notation for this game."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-seat result: 1 for a winner, 0 otherwise; all 0 before the end."""

    @abstractmethod
    def observation(self, seat: int) -> Any:
        """What ``seat`` may see: public state, its own cards, its legal actions."""

    @abstractmethod
    def public_state(self) -> dict[str, Any]:
        """The state every replica agrees on, as plain data (no hidden card)."""

    def state_hash(self) -> str:
        """SHA-256 (hex) of the canonical msgpack of :meth:`public_state`."""
        return state_digest(self.public_state())

    @abstractmethod
    def history(self) -> list[Action]:
        """Every action applied since the configured start, in order."""

    @abstractmethod
    def clone(self) -> GameState:
        """An independent copy."""

    def serialise(self) -> dict[str, Any]:
        """The game as data: name, configuration, and the actions as notation."""
        return {
            "game": self.game.name,
            "config": self.game.config_dict(),
            "actions": [str(a) for a in self.history()],
        }


class Game(ABC):
    """A game with its configuration; a factory of states."""

    name: str

    @abstractmethod
    def config_dict(self) -> dict[str, Any]:
        """The configuration as plain data; ``from_config`` of it gives an equal game."""

    @classmethod
    @abstractmethod
    def from_config(cls, config: Mapping[str, Any]) -> Game:
        """Build the game from plain data, validating every field."""

    @abstractmethod
    def new_initial_state(self) -> GameState:
        """The state before anything happened (the first chance event, usually)."""

    def replay(self, actions: Sequence[str | Action]) -> GameState:
        """A new initial state with ``actions`` applied in order."""
        state = self.new_initial_state()
        for action in actions:
            state.apply(action)
        return state
