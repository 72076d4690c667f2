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
* a game serialises as its configuration plus the list of actions applied;
* a game describes its hidden information without crypto (:mod:`trutnet.engine.hidden`):
  its decks, who holds each position, who may see it and when, and what the table must
  run next (``next_step()``, ``sight()``, ``table_requests()``), so that a table of
  peers can play any game from this description alone;
* what a table needs besides hidden cards is generic too: the seats and teams
  (``Game.num_players()``, ``Game.teams()``), the round in progress (``round_number()``:
  crypto contexts, checkpoints, votes), the winning team (``winning_team()``) and the
  action that voids a round when a seat is replaced (``void_round()``).

Actions are small immutable values whose ``str`` is their notation; ``parse_action``
turns the notation back into the same value.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from typing import Any, TypeVar

from trutnet.engine.canonical import state_digest
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import (
    Deck,
    Holder,
    Pos,
    Request,
    Signs,
    Step,
    Told,
    Turn,
    pending_disclosures,
)

CHANCE = -1
"""The pseudo-seat that acts at a chance node."""


class Action:
    """An immutable action value; ``str(action)`` is its notation.

    A plain class, not an ``ABC``: telling actions apart with ``isinstance`` is what the
    engines do most, and a class made by ``ABCMeta`` turns each such test into a
    Python-level call. Every game's action overrides :meth:`public`."""

    def public(self) -> Action:
        """This action as every seat may see it (hidden card identities removed)."""
        raise NotImplementedError(f"{type(self).__name__} does not say its public form")


StateT = TypeVar("StateT", bound="GameState")


def copy_fields(state: StateT, also: tuple[type, ...] = ()) -> StateT:
    """An independent copy of ``state`` made field by field, for ``clone``: lists (and
    the lists they hold), sets, dicts and values of the types ``also`` (which have a
    ``copy()``) are copied; every other field is an immutable value, shared. A search
    bot clones thousands of times a decision, and most lists (a game's history) hold
    no list: those are copied whole, the test for a nested list made in C."""
    other = object.__new__(type(state))
    for name, value in state.__dict__.items():
        if isinstance(value, list):
            if list in map(type, value):
                value = [list(v) if isinstance(v, list) else v for v in value]
            else:
                value = list(value)
        elif isinstance(value, (set, dict, *also)):
            value = value.copy()
        other.__dict__[name] = value
    return other


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

    # ------------------------------------------------ what a table reads besides cards
    # (docs/engine.md, "What a table reads besides hidden cards").

    def round_number(self) -> int:
        """The round (a hand, a deal) in progress, from 0; it only grows. A table signs
        a checkpoint of the state hash each time it moves on and when the game ends,
        and names the round in its crypto contexts and votes. Public. Default: 0 (the
        whole game is one round)."""
        return 0

    def winning_team(self) -> int | None:
        """The index in ``game.teams()`` of the team that won, None before the end or
        when nobody won. Default: the one team whose seats alone have a positive
        return."""
        returns = self.returns()
        winners = {s for s, r in enumerate(returns) if r > 0}
        teams = self.game.teams()
        return next((t for t, seats in enumerate(teams) if set(seats) == winners), None)

    def void_round(self) -> Action | None:
        """The action that abandons the round in progress with no score, so that the
        table can shuffle again for a seat that a newcomer took (a game's ``void``);
        None when no round is in progress (the next step is already a ``Shuffle``) or
        when the game cannot void one. Only the table applies it, never a seat."""
        return None

    # ------------------------------------------------ what a search may ask
    # (trutnet.bots.search: a bot that samples what its seat cannot see).

    def determinise(self, seat: int, rng: random.Random, told: Sequence[Told] = ()) -> GameState:
        """A state that ``seat`` cannot tell from this one, every card in it known: an
        independent copy in which each card ``seat`` has not been shown (privately or
        with everyone) is drawn anew with ``rng`` from the cards the seat cannot place,
        every public fact kept (hand sizes, cards played or located, values declared,
        sealed choices it knows), and the history in its public form. ``told``: the
        signs ``seat`` was shown (:meth:`signs`); a game with signs draws each signer's
        hidden cards to agree with those of the current period where it can (a game
        without signs has none to heed). The result depends on what ``seat`` may see,
        ``told`` and ``rng`` alone, never on the hidden cards of this replica, so a bot
        that searches its samples cannot peek. Raises ``NotImplementedError`` for a game
        (or configuration) that does not say how."""
        raise NotImplementedError(f"{type(self).__name__} cannot sample what a seat cannot see")

    def outlook(self, seat: int) -> float:
        """How the game stands for ``seat``, from 0 (lost) to 1 (won), from the public
        state alone: a search that stops at the end of a round scores it with this.
        Default: the seat's return (0.5 before the end)."""
        if not self.is_terminal():
            return 0.5
        return 1.0 if self.returns()[seat] > 0 else 0.0

    def serialise(self) -> dict[str, Any]:
        """The game as data: name, configuration, and the actions as notation."""
        return {
            "game": self.game.name,
            "config": self.game.config_dict(),
            "actions": [str(a) for a in self.history()],
        }

    # ------------------------------------------------ hidden information
    # (trutnet.engine.hidden; docs/engine.md, "Hidden information"). The defaults
    # describe a game with no hidden card and no chance node.

    def next_step(self) -> Step | None:
        """What the table runs next for the game to go on; None once it is over.

        A seat to act gives :class:`~trutnet.engine.hidden.Turn` (or a
        ``SecretChoice`` / ``Open`` when its decision is sealed); a chance node gives a
        ``Shuffle``, a ``JointRandom`` draw, a public ``Reveal`` or a ``Locate``. It
        depends on the public state only, so every replica asks the same."""
        seat = self.current_seat()
        if seat is None:
            return None
        if seat == CHANCE:
            raise NotImplementedError(f"{type(self).__name__} does not describe its chance nodes")
        return Turn(seat)

    def sight(self) -> Mapping[int, frozenset[Pos]]:
        """For each seat, the positions whose identities it is to be shown, privately,
        by now: its own cards, a partner's cards it may look at... A position withheld
        until a decision is over enters sight only then; one never revealed, never.
        Positions revealed to everyone need not be listed. It depends on the public
        state only. Empty when the game is over."""
        return {}

    def holders(self) -> Mapping[Holder, tuple[Pos, ...]]:
        """Who holds each position of the decks in play: seats, and named piles
        (``stock``, ``discard``, ``aside``, ``table``...). Every position of a deck in
        play is held by exactly one holder; a position moves between holders as the
        rules say (a draw, an exchange). Public."""
        return {}

    def signs(self, seat: int) -> Signs | None:
        """What ``seat`` may sign now, off turn (:class:`~trutnet.engine.hidden.Signs`),
        or None: it may not sign now (the default: a game without signs). It depends on
        the public state only, so every replica answers alike for the head it has."""
        return None

    def table_requests(
        self, disclosed: Mapping[int, Collection[Pos]] | None = None
    ) -> tuple[Request, ...]:
        """What the table must do now, in order: the private disclosures that
        :meth:`sight` asks for beyond ``disclosed`` (what the table has shown each
        seat of the decks as last shuffled), one per seat in seat order, then the
        :meth:`next_step`. The disclosures come first: a seat decides knowing its
        cards. Nothing is disclosed once the game is over."""
        if self.is_terminal():
            return ()
        requests: list[Request] = list(pending_disclosures(self.sight(), disclosed or {}))
        step = self.next_step()
        if step is not None:
            requests.append(step)
        return tuple(requests)

    def reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        """The positions that ``action`` of ``seat`` (in its concealed form) shows to
        everyone, to be revealed before :meth:`identify` and :meth:`apply`. Raises
        :class:`~trutnet.engine.errors.IllegalAction` when the action could not be
        legal whatever those cards are (a position not in the seat's hand): the table
        must never reveal a card for an action it then refuses."""
        return ()

    def conceal(self, seat: int, action: Action) -> Action:
        """``action`` of ``seat`` as it is written to the table: cards named by
        position, with no identity another seat may not know yet (``play 7h`` ->
        ``play @12``). Raises ``IllegalAction`` if it names a card the seat lacks."""
        return action

    def identify(self, action: Action, cards: Mapping[Pos, str]) -> Action:
        """``action`` with the identities of its revealed positions filled in from
        ``cards`` (position -> card notation of its deck), ready to :meth:`apply`."""
        return action

    def see(self, pos: Pos, card: str) -> None:
        """This replica is shown that ``pos`` holds ``card`` (a private disclosure).
        Private knowledge: it never changes the public state or the hash."""
        raise IllegalAction("hidden", f"{type(self).__name__} has no hidden position {pos}")

    def identity_of(self, pos: Pos) -> str | None:
        """The card at ``pos`` if this replica knows it, else None."""
        return None


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

    def num_players(self) -> int:
        """How many seats this configuration has."""
        raise NotImplementedError(f"{type(self).__name__} does not say how many seats it has")

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each team, teams in index order (a seat's partners are the other
        seats of its team). Default: every seat plays alone."""
        return tuple((s,) for s in range(self.num_players()))

    def decks(self) -> tuple[Deck, ...]:
        """The decks this game (with this configuration) shuffles, named, with their
        card encodings (:class:`~trutnet.engine.hidden.Deck`); none by default."""
        return ()

    def replay(self, actions: Sequence[str | Action]) -> GameState:
        """A new initial state with ``actions`` applied in order."""
        state = self.new_initial_state()
        for action in actions:
            state.apply(action)
        return state
