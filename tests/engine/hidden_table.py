"""A table without crypto that runs any game from its hidden-information description.

:class:`GenericTable` plays a game the way a table of peers does, knowing nothing of
the game but :mod:`trutnet.engine.hidden`: one hidden replica per seat, told only the
public actions, its own sealed choices and what the description discloses to it, and a
full-knowledge state standing for what the crypto keeps split among the seats (the
deck order, each seat's sealed choices). After every step it checks that the replicas
agree with the full state on the state hash and on each seat's observation, that they
all ask the table for the same requests, and that no replica knows a card it was not
shown. A position may be shown to several seats (a second viewer, each told by its own
``Disclose``); a shuffle may carry positions of other decks into its deck: they must
be held before, and are no longer held (nor known to anyone) afterwards.

It records what it did as :class:`Round` values, in the shape of the table's share
rounds (``trutnet/protocol/table.py``): ``owners`` maps a seat, or ``-1`` for a public
reveal, to positions.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from trutnet.engine.api import Action, Game, GameState
from trutnet.engine.hidden import (
    Disclose,
    JointRandom,
    Locate,
    Open,
    Pos,
    Reveal,
    SecretChoice,
    Shuffle,
    Turn,
)

EVERYONE = -1  # the key of a public reveal among a round's owners (a play, 7.4)
Chooser = Callable[[int, GameState], Action]


@dataclass(frozen=True)
class Round:
    """Positions shown in one go: ``at`` is the number of actions applied by then."""

    at: int
    owners: dict[int, tuple[Pos, ...]]


@dataclass
class GenericTable:
    game: Game
    seats: int
    choose: Chooser  # a seat's decision, from its own replica
    rng: random.Random
    full: GameState = field(init=False)
    replicas: list[GameState] = field(init=False)
    disclosed: dict[int, set[Pos]] = field(init=False)
    public: set[Pos] = field(default_factory=set)
    sealed: dict[tuple[int, str], Action] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    steps: list[object] = field(default_factory=list)  # every request run, in order

    def __post_init__(self) -> None:
        self.full = self.game.new_initial_state()
        self.replicas = [self.game.new_initial_state() for _ in range(self.seats)]
        self.disclosed = {s: set() for s in range(self.seats)}

    # ---------------------------------------------------------------- run

    def play(self, max_steps: int = 20_000) -> None:
        for _ in range(max_steps):
            if not self.step():
                return
        raise AssertionError("the game did not end")

    def step(self) -> bool:
        requests = self.full.table_requests(self.disclosed)
        for replica in self.replicas:
            assert replica.table_requests(self.disclosed) == requests  # public only
        if not requests:
            assert self.full.is_terminal()
            return False
        *disclosures, step = requests
        if isinstance(step, Disclose):  # disclosures only: nothing else to run now
            disclosures, step = [*disclosures, step], None
        self.steps.extend(requests)
        if disclosures:
            self._disclose(disclosures)
        if step is not None:
            self._run(step)
            # What the step put in sight is shown before anyone looks (a seat decides
            # knowing its cards), and before the checks.
            pending = [
                r for r in self.full.table_requests(self.disclosed) if isinstance(r, Disclose)
            ]
            if pending:
                self.steps.extend(pending)
                self._disclose(pending)
        self.check()
        return True

    def _disclose(self, requests: list[Disclose]) -> None:
        at = len(self.full.history())
        for request in requests:
            assert isinstance(request, Disclose)
            for pos in request.positions:
                card = self.full.identity_of(pos)
                assert card is not None, f"the truth lacks {pos}"
                self.replicas[request.to].see(pos, card)
            self.disclosed[request.to].update(request.positions)
        self.rounds.append(Round(at, {r.to: r.positions for r in requests}))

    def _run(self, step: object) -> None:
        if isinstance(step, Shuffle):
            held = {p for ps in self.full.holders().values() for p in ps}
            assert set(step.carry) <= held, f"{step} carries a position no one holds"
            outcome = self.full.sample_chance(self.rng)
            assert outcome.public() == step.then, (outcome, step)
            self.full.apply(outcome)
            for replica in self.replicas:
                replica.apply(step.then)
            # The deck's positions are new; the carried ones moved into it, still hidden.
            for shown in (*self.disclosed.values(), self.public):
                shown -= {p for p in shown if p.deck == step.deck or p in step.carry}
            moved = {p for p in step.carry if p.deck != step.deck}
            assert not moved & {p for ps in self.full.holders().values() for p in ps}, step
            assert all(r.identity_of(p) is None for r in self.replicas for p in moved), step
        elif isinstance(step, JointRandom):
            outcome = step.outcomes[self.rng.randrange(len(step.outcomes))]
            for state in (self.full, *self.replicas):
                state.apply(outcome)
        elif isinstance(step, Reveal):
            self._reveal(step.positions)
            cards = self._cards(step.positions)
            for state in (self.full, *self.replicas):
                state.apply(state.identify(step.then, cards))
        elif isinstance(step, Locate):  # the table's equality tests: who holds the card
            found = {p: step.card for p in step.positions if self.full.identity_of(p) == step.card}
            outcome = self.full.identify(step.then, found)
            assert self.full.clone().sample_chance(self.rng) == outcome, (step, outcome)
            self.public.update(found)
            for state in (self.full, *self.replicas):
                state.apply(state.identify(step.then, found))
        elif isinstance(step, Turn):
            self._decide(step.seat, self._written(step.seat))
        elif isinstance(step, SecretChoice):
            own = self.replicas[step.seat]
            action = self.choose(step.seat, own)
            self.sealed[step.seat, step.label] = own.conceal(step.seat, action)
            self.full.apply(action)  # the truth knows the choice
            for seat, replica in enumerate(self.replicas):  # the others read the log; the
                replica.apply(action if seat == step.seat else step.sealed)  # seat knows it
        elif isinstance(step, Open):
            self._decide(step.seat, self.sealed.pop((step.seat, step.label)))
        else:
            raise AssertionError(f"not a step: {step!r}")

    def _written(self, seat: int) -> Action:
        own = self.replicas[seat]
        action = self.choose(seat, own)
        written = own.conceal(seat, action)
        probe = own.clone()  # the seat's own check before it writes (LocalError)
        probe.apply(probe.identify(written, self._cards(own.reveals(seat, written))))
        return written

    def _decide(self, seat: int, written: Action) -> None:
        positions = self.replicas[(seat + 1) % self.seats].reveals(seat, written)
        if positions:
            self._reveal(positions)
        cards = self._cards(positions)
        for state in (self.full, *self.replicas):
            state.apply(state.identify(written, cards))

    def _reveal(self, positions: tuple[Pos, ...]) -> None:
        self.rounds.append(Round(len(self.full.history()), {EVERYONE: tuple(sorted(positions))}))
        self.public.update(positions)

    def _cards(self, positions: tuple[Pos, ...]) -> dict[Pos, str]:
        cards = {p: self.full.identity_of(p) for p in positions}
        assert None not in cards.values()
        return cards  # type: ignore[return-value]

    # ---------------------------------------------------------------- checks

    def check(self) -> None:
        digest = self.full.state_hash()
        held = [p for ps in self.full.holders().values() for p in ps]
        for seat, replica in enumerate(self.replicas):
            assert replica.state_hash() == digest
            assert replica.observation(seat) == self.full.observation(seat)
            for pos in held:  # a replica knows only what it was shown, or what is public
                if replica.identity_of(pos) is not None:
                    assert pos in self.disclosed[seat] or pos in self.public, (seat, pos)
