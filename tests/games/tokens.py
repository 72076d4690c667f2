"""Tokens: a small two-seat game, written only for the tests, that needs what Trut does
not from the hidden-information description (``docs/engine.md``, "How to add a game").

* a deck per seat: seat 0 owns ``deck0`` (``r1`` .. ``r6``), seat 1 ``deck1``
  (``b1`` .. ``b6``), each shuffled jointly and dealt to its owner alone;
* a secret choice opened much later: each seat's bet;
* two seats committing, then opening together: the cards of a round;
* joint random draws: who goes first, and each round's stake;
* positions moving between holders (stock to hand, hand to the played pile) and a
  public reveal at a chance node (the cards left in hand, at the end).

Rules. A coin names the first seat. Each seat's six cards (valued 1-6) are shuffled;
it holds three, the rest is its stock. Each seat bets, in secret, how many rounds it
will win. Each of the ``rounds`` rounds: a die sets the stake (1-3); the first seat,
then the other, chooses a card in secret; both are shown, the first seat's first; the
higher card wins the stake (equal: nobody) and its seat goes first next round; each
seat draws the next card of its stock. After the last round the cards left in hand are
shown to all, then the bets are opened: a bet that is right scores 1 more. The higher
score wins; equal scores: nobody.

The option ``deluxe`` (off by default) adds what Trut Deluxe needs of the table:

* **the exile** (a carry, as the kept specials of T26): the first card of seat 0's
  hand is shuffled into seat 1's deck, still encrypted: ``deck1`` then holds ``b1`` ..
  ``b6`` and that red card, seven positions; seat 0 takes its first stock card into
  its hand; seat 1 holds the last three, ``deck1@4..6``, and its stock is
  ``deck1@0..3``;
* **the peek** (a second viewer, as the Falcon of T33): once both bets are sealed, the
  first seat is shown the other seat's first hand card, which that seat has seen;
* **the watch** (two viewers at once, as the Weasel's exchange of T37): at the end of
  a round that has a winner, the winner is shown the card the loser draws, as the
  loser is.

Notation::

    first 0                 chance: the coin
    deal deck0 | deal deck0 r3 r1 r6 r2 r5 r4    chance: a deck's shuffle (order unknown | known)
    die 2                   chance: the stake
    bet 1                   a bet (sealed when made: seal | seal bet 1)
    pick deck0@4 | pick deck0@4=r5    a card of one's hand (sealed when chosen)
    show deck0@3=r2 deck1@5=b1 ...    chance: the cards left in hand, shown
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trutnet.engine.api import CHANCE, Action, Game, GameState, copy_fields
from trutnet.engine.errors import ConfigError, HiddenCard, IllegalAction, NotationError
from trutnet.engine.hidden import (
    Deck,
    Holder,
    JointRandom,
    Open,
    Pos,
    Reveal,
    SecretChoice,
    Shuffle,
    Step,
)

SEATS = 2
HAND = 3
DECKS = tuple(Deck(f"deck{s}", tuple(f"{'rb'[s]}{v}" for v in range(1, 7))) for s in range(SEATS))
CARDS = frozenset(c for d in DECKS for c in d.cards)
STAKES = (1, 2, 3)


def value(card: str) -> int:
    return int(card[1:])


# ------------------------------------------------------------------ actions


def _card_ref(pos: Pos, card: str | None) -> str:
    return str(pos) if card is None else f"{pos}={card}"


@dataclass(frozen=True, slots=True)
class First(Action):
    seat: int

    def __str__(self) -> str:
        return f"first {self.seat}"

    def public(self) -> First:
        return self


@dataclass(frozen=True, slots=True)
class Dealt(Action):
    """A deck's joint shuffle; ``order`` is the whole order when known."""

    deck: str
    order: tuple[str, ...] | None = None

    def __str__(self) -> str:
        return f"deal {self.deck}" + ("" if self.order is None else " " + " ".join(self.order))

    def public(self) -> Dealt:
        return Dealt(self.deck)


@dataclass(frozen=True, slots=True)
class Die(Action):
    value: int

    def __str__(self) -> str:
        return f"die {self.value}"

    def public(self) -> Die:
        return self


@dataclass(frozen=True, slots=True)
class Bet(Action):
    rounds: int

    def __str__(self) -> str:
        return f"bet {self.rounds}"

    def public(self) -> Bet:
        return self


@dataclass(frozen=True, slots=True)
class Pick(Action):
    """A card of one's hand, by position; its identity once shown."""

    pos: Pos
    card: str | None = None

    def __str__(self) -> str:
        return f"pick {_card_ref(self.pos, self.card)}"

    def public(self) -> Pick:
        return self


@dataclass(frozen=True, slots=True)
class Seal(Action):
    """A secret choice as it is made: ``seal`` for every replica but one that knows."""

    choice: Bet | Pick | None = None

    def __str__(self) -> str:
        return "seal" if self.choice is None else f"seal {self.choice}"

    def public(self) -> Seal:
        return Seal()


@dataclass(frozen=True, slots=True)
class Show(Action):
    cards: tuple[tuple[Pos, str | None], ...]

    def __str__(self) -> str:
        return "show " + " ".join(_card_ref(p, c) for p, c in self.cards)

    def public(self) -> Show:
        return self


def _parse_ref(text: str) -> tuple[Pos, str | None]:
    where, eq, card = text.partition("=")
    pos = Pos.parse(where)
    if not eq:
        return pos, None
    if pos.deck not in {d.name for d in DECKS} or card not in CARDS:  # deluxe: r4 in deck1
        raise NotationError(f"no card {card!r} in deck {pos.deck}")
    return pos, card


def parse_action(text: str) -> Action:
    if not isinstance(text, str) or text != text.strip() or "  " in text or not text:
        raise NotationError(f"bad action {text!r}")
    verb, *args = text.split(" ")
    if verb == "seal":
        if not args:
            return Seal()
        inner = parse_action(" ".join(args))
        if not isinstance(inner, Bet | Pick):
            raise NotationError(f"only a bet or a pick is sealed: {text!r}")
        return Seal(inner)
    if verb in ("first", "die", "bet") and len(args) == 1 and args[0] in tuple("0123456789"):
        number = int(args[0])
        return First(number) if verb == "first" else Die(number) if verb == "die" else Bet(number)
    if verb == "deal" and args:
        return Dealt(args[0], tuple(args[1:]) or None)
    if verb == "pick" and len(args) == 1:
        return Pick(*_parse_ref(args[0]))
    if verb == "show" and args:
        return Show(tuple(_parse_ref(a) for a in args))
    raise NotationError(f"not a tokens action: {text!r}")


# ------------------------------------------------------------------ observation


@dataclass(frozen=True)
class TokensObservation:
    """All a seat (or its bot) is given."""

    seat: int
    phase: str
    to_act: int | None
    first: int
    round: int
    stake: int
    scores: tuple[int, ...]
    won: tuple[int, ...]
    hand: tuple[tuple[Pos, str | None], ...]
    hand_sizes: tuple[int, ...]
    stock_sizes: tuple[int, ...]
    played: tuple[tuple[int, Pos, str], ...]
    shown: tuple[tuple[Pos, str], ...]
    bets: tuple[int | None, ...]
    legal: tuple[Action, ...]
    watched: tuple[tuple[Pos, str | None], ...] = ()  # deluxe: the other's cards shown


# ------------------------------------------------------------------ state


class TokensState(GameState):
    def __init__(self, game: TokensGame) -> None:
        self._game = game
        self.phase = "coin"
        self.first = 0
        self.round = 0
        self.stake = 0
        self.scores = [0] * SEATS
        self.won = [0] * SEATS
        self.to_shuffle = [d.name for d in DECKS]
        self.hands: list[list[Pos]] = [[] for _ in range(SEATS)]
        self.stocks: list[list[Pos]] = [[] for _ in range(SEATS)]
        self.played: list[tuple[int, Pos, str]] = []
        self.shown: list[tuple[Pos, str]] = []
        self.bets: list[int | None] = [None] * SEATS
        self.watched: list[list[Pos]] = [[] for _ in range(SEATS)]  # deluxe: peek, watch
        self.queue: list[int] = []
        self.winner: int | None = None
        self.known: dict[Pos, str] = {}  # private: identities this replica was shown
        self.secrets: dict[tuple[int, str], Bet | Pick] = {}  # private: sealed choices known
        self._history: list[Action] = []

    # ---------------------------------------------------------------- interface

    @property
    def game(self) -> TokensGame:
        return self._game

    def current_seat(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase in ("coin", "shuffle", "die", "reveal"):
            return CHANCE
        return self.queue[0]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def history(self) -> list[Action]:
        return list(self._history)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def returns(self) -> list[float]:
        return [1.0 if self.winner == s else 0.0 for s in range(SEATS)]

    def round_number(self) -> int:
        return self.round  # a table checkpoints after the bets and after each round

    def clone(self) -> TokensState:
        return copy_fields(self)

    def _label(self) -> str:
        return "bet" if self.phase in ("bet", "open_bet") else "card"

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if seat is None:
            seat = self.current_seat()
        if seat is None or seat == CHANCE or seat != self.current_seat():
            return []
        secret = self.secrets.get((seat, self._label()))
        if self.phase in ("open", "open_bet") and secret is not None:
            return [self._known_pick(secret) if isinstance(secret, Pick) else secret]
        if self.phase in ("bet", "open_bet"):
            return [Bet(k) for k in range(self._game.rounds + 1)]
        return [Pick(p, self.known.get(p)) for p in self.hands[seat]]

    def _known_pick(self, pick: Pick) -> Pick:
        return Pick(pick.pos, self.known.get(pick.pos))

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "coin":
            return First(rng.randrange(SEATS))
        if self.phase == "die":
            return Die(rng.choice(STAKES))
        if self.phase == "shuffle":
            deck = next(d for d in DECKS if d.name == self.to_shuffle[0])
            carried = [self.known.get(p) for p in self._carry()]
            if None in carried:
                raise HiddenCard("a carried card is not known here")
            order = [*deck.cards, *carried]
            rng.shuffle(order)
            return Dealt(deck.name, tuple(order))  # type: ignore[arg-type]
        if self.phase == "reveal":
            step = self.next_step()
            assert isinstance(step, Reveal)
            cards = {p: self.identity_of(p) for p in step.positions}
            if None in cards.values():
                raise HiddenCard("the cards in hand are not all known here")
            return self.identify(step.then, cards)  # type: ignore[arg-type]
        raise IllegalAction("chance", f"no chance event in phase {self.phase}")

    # ---------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Any]:
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == "over":
            raise IllegalAction("over", "the game is over")
        probe = self.clone()  # refusals change nothing
        recorded = probe._dispatch(action)
        self.__dict__.update(probe.__dict__)
        self._history.append(recorded)
        return []

    def _dispatch(self, action: Action) -> Action:
        phase = self.phase
        if phase == "coin" and isinstance(action, First) and 0 <= action.seat < SEATS:
            self.first = action.seat
            self.phase = "shuffle"
            return action
        if phase == "shuffle" and isinstance(action, Dealt):
            self._deal(action)
            return action
        if phase == "die" and isinstance(action, Die) and action.value in STAKES:
            self.stake = action.value
            self.phase, self.queue = "pick", self._order()
            return action
        if phase in ("bet", "pick"):
            return self._commit(action)
        if phase in ("open", "open_bet"):
            return self._open(action)
        if phase == "reveal" and isinstance(action, Show):
            self._show(action)
            return action
        raise IllegalAction("turn", f"{action} is not a move in phase {phase}")

    def _order(self) -> list[int]:
        return [self.first, 1 - self.first]

    def _carry(self) -> tuple[Pos, ...]:
        """Deluxe: the exile, seat 0's first hand card carried into deck1's shuffle."""
        if self._game.deluxe and self.to_shuffle == ["deck1"]:
            return (self.hands[0][0],)
        return ()

    def _deal(self, action: Dealt) -> None:
        name = self.to_shuffle[0]
        deck = next(d for d in DECKS if d.name == name)
        if action.deck != name:
            raise IllegalAction("deal", f"the deck to shuffle now is {name}")
        carried = self._carry()
        cards = [*deck.cards, *(self.known.get(p, "?") for p in carried)]
        if action.order is not None and sorted(action.order) != sorted(cards):
            raise IllegalAction("deal", f"a deal of {name} holds each of its cards once")
        for pos in carried:  # gone from its deck: seat 0 takes its next stock card
            self.hands[0].remove(pos)
            self.known.pop(pos, None)
            self.hands[0].append(self.stocks[0].pop(0))
        seat = DECKS.index(deck)
        positions = [deck.position(i) for i in range(len(cards))]
        self.hands[seat], self.stocks[seat] = positions[:HAND], positions[HAND:]
        if carried:  # the last three, so that a carried slot is dealt
            self.hands[seat], self.stocks[seat] = positions[-HAND:], positions[:-HAND]
        if action.order is not None:
            self.known.update(zip(positions, action.order, strict=True))
        self.to_shuffle.pop(0)
        if not self.to_shuffle:
            self.phase, self.queue = "bet", self._order()

    def _commit(self, action: Action) -> Action:
        """A secret choice: ``seal`` (its content unknown here) or the choice itself."""
        seat, label = self.queue[0], self._label()
        choice = action.choice if isinstance(action, Seal) else action
        if choice is not None:
            wanted = Bet if label == "bet" else Pick
            if not isinstance(choice, wanted):
                raise IllegalAction("turn", f"seat {seat} chooses a {label} now")
            self._check_choice(seat, choice)
            self.secrets[seat, label] = choice
        self.queue.pop(0)
        if not self.queue:
            if label == "bet":
                self._start_round()
            else:
                self.phase, self.queue = "open", self._order()
        return Seal(choice)

    def _check_choice(self, seat: int, choice: Bet | Pick) -> None:
        if isinstance(choice, Bet):
            if not 0 <= choice.rounds <= self._game.rounds:
                raise IllegalAction("bet", f"a bet is 0..{self._game.rounds} rounds")
            return
        if choice.pos not in self.hands[seat]:
            raise IllegalAction("pick", f"{choice.pos} is not in seat {seat}'s hand")
        known = self.known.get(choice.pos)
        if choice.card is not None and known is not None and known != choice.card:
            raise IllegalAction("pick", f"{choice.pos} does not hold {choice.card}")

    def _open(self, action: Action) -> Action:
        seat, label = self.queue[0], self._label()
        wanted = Bet if label == "bet" else Pick
        if not isinstance(action, wanted):
            raise IllegalAction("open", f"seat {seat} opens its {label} now")
        self._check_choice(seat, action)
        secret = self.secrets.pop((seat, label), None)
        if secret is not None and (
            secret.pos != action.pos
            if isinstance(secret, Pick) and isinstance(action, Pick)
            else secret != action
        ):
            raise IllegalAction("open", f"seat {seat} sealed {secret}, not {action}")
        self.queue.pop(0)
        if isinstance(action, Bet):
            self.bets[seat] = action.rounds
            if action.rounds == self.won[seat]:
                self.scores[seat] += 1
            if not self.queue:
                top = max(self.scores)
                best = [s for s in range(SEATS) if self.scores[s] == top]
                self.winner = best[0] if len(best) == 1 else None
                self.phase = "over"
            return action
        if action.card is None:
            raise HiddenCard("an opened pick shows its card: pick deck0@4=r5")
        self.hands[seat].remove(action.pos)
        self.known[action.pos] = action.card
        self.played.append((seat, action.pos, action.card))
        if not self.queue:
            self._end_round()
        return action

    def _start_round(self) -> None:
        if self._game.deluxe and self.round == 0:  # the peek, once both bets are sealed
            self.watched[self.first].append(self.hands[1 - self.first][0])
        self.round += 1
        self.phase = "die"

    def _end_round(self) -> None:
        (s0, _, c0), (s1, _, c1) = self.played[-2:]
        winner = None
        if value(c0) != value(c1):
            winner = s0 if value(c0) > value(c1) else s1
            self.scores[winner] += self.stake
            self.won[winner] += 1
            self.first = winner
        for seat in range(SEATS):
            if self.stocks[seat]:
                self.hands[seat].append(self.stocks[seat].pop(0))
                if self._game.deluxe and winner == 1 - seat:  # the watch
                    self.watched[winner].append(self.hands[seat][-1])
        if self.round < self._game.rounds:
            self._start_round()
        else:
            self.phase = "reveal"

    def _show(self, action: Show) -> None:
        expected = [p for hand in self.hands for p in hand]
        if [p for p, _ in action.cards] != expected:
            raise IllegalAction("show", "the show names every card left in hand, in order")
        for p, card in action.cards:
            if card is None:
                raise HiddenCard(f"{p} is shown with its card")
            if self.known.get(p, card) != card:
                raise IllegalAction("show", f"{p} holds {self.known[p]}, not {card}")
        self.known.update((p, c) for p, c in action.cards if c is not None)
        self.shown = [(p, c) for p, c in action.cards if c is not None]
        self.phase, self.queue = "open_bet", self._order()

    # ---------------------------------------------------- hidden information

    def next_step(self) -> Step | None:
        phase = self.phase
        if phase == "over":
            return None
        if phase == "coin":
            return JointRandom("first", tuple(First(s) for s in range(SEATS)))
        if phase == "die":
            return JointRandom("stake", tuple(Die(v) for v in STAKES))
        if phase == "shuffle":
            return Shuffle(self.to_shuffle[0], Dealt(self.to_shuffle[0]), self._carry())
        if phase == "reveal":
            positions = tuple(p for hand in self.hands for p in hand)
            return Reveal(positions, Show(tuple((p, None) for p in positions)))
        seat, label = self.queue[0], self._label()
        if phase in ("bet", "pick"):
            return SecretChoice(seat, label, Seal())
        return Open(seat, label)

    def sight(self) -> Mapping[int, frozenset[Pos]]:
        if self.phase == "over":
            return {}
        return {s: frozenset(self.hands[s]) | set(self._watching(s)) for s in range(SEATS)}

    def _watching(self, seat: int) -> list[Pos]:
        """The other seat's hand cards this seat was shown (deluxe), still in its hand."""
        return [p for p in self.watched[seat] if p in self.hands[1 - seat]]

    def holders(self) -> Mapping[Holder, tuple[Pos, ...]]:
        held: dict[Holder, tuple[Pos, ...]] = {}
        for seat, deck in enumerate(DECKS):
            if deck.name not in self.to_shuffle:
                held[seat] = tuple(self.hands[seat])
                held[f"stock{seat}"] = tuple(self.stocks[seat])
        if held:
            held["played"] = tuple(p for _, p, _ in self.played)
        return held

    def reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        if self.phase != "open" or not isinstance(action, Pick):
            return ()
        if seat != self.queue[0] or action.pos not in self.hands[seat]:
            raise IllegalAction("open", f"{action.pos} is not a card seat {seat} may show now")
        return (action.pos,)

    def conceal(self, seat: int, action: Action) -> Action:
        if isinstance(action, Pick):
            self._check_choice(seat, action)
            return Pick(action.pos)
        return action

    def identify(self, action: Action, cards: Mapping[Pos, str]) -> Action:
        if isinstance(action, Pick) and action.pos in cards:
            return Pick(action.pos, cards[action.pos])
        if isinstance(action, Show):
            return Show(tuple((p, cards.get(p, c)) for p, c in action.cards))
        return action

    def see(self, pos: Pos, card: str) -> None:
        deck = next((d for d in DECKS if d.name == pos.deck), None)
        exile = self._game.deluxe and pos.deck == "deck1"  # deck1 holds a red card too
        cards = () if deck is None else CARDS if exile else deck.cards
        if deck is None or pos.index >= len(deck) + exile or card not in cards:
            raise IllegalAction("hidden", f"{pos} cannot hold {card!r}")
        if self.known.get(pos, card) != card:
            raise IllegalAction("hidden", f"{pos} is already known as {self.known[pos]}")
        self.known[pos] = card

    def identity_of(self, pos: Pos) -> str | None:
        return self.known.get(pos)

    # ---------------------------------------------------------------- views

    def public_state(self) -> dict[str, Any]:
        state = self._public()
        if self._game.deluxe:  # only then: a game without the option hashes as before
            state["watched"] = [[str(p) for p in seen] for seen in self.watched]
        return state

    def _public(self) -> dict[str, Any]:
        return {
            "game": "tokens",
            "config": self._game.config_dict(),
            "phase": self.phase,
            "to_act": self.current_seat(),
            "first": self.first,
            "round": self.round,
            "stake": self.stake,
            "scores": list(self.scores),
            "won": list(self.won),
            "to_shuffle": list(self.to_shuffle),
            "hands": [[str(p) for p in hand] for hand in self.hands],
            "stocks": [[str(p) for p in stock] for stock in self.stocks],
            "played": [[s, str(p), c] for s, p, c in self.played],
            "shown": [[str(p), c] for p, c in self.shown],
            "bets": list(self.bets),
            "queue": list(self.queue),
            "winner": self.winner,
        }

    def observation(self, seat: int) -> TokensObservation:
        if not 0 <= seat < SEATS:
            raise IllegalAction("seat", f"no seat {seat}")
        deciding = self.phase in ("bet", "pick")  # an open is automatic: nothing to decide
        return TokensObservation(
            seat=seat,
            phase=self.phase,
            to_act=self.current_seat(),
            first=self.first,
            round=self.round,
            stake=self.stake,
            scores=tuple(self.scores),
            won=tuple(self.won),
            hand=tuple((p, self.known.get(p)) for p in self.hands[seat]),
            hand_sizes=tuple(len(h) for h in self.hands),
            stock_sizes=tuple(len(s) for s in self.stocks),
            played=tuple(self.played),
            shown=tuple(self.shown),
            bets=tuple(self.bets),
            legal=tuple(self.legal_actions(seat)) if deciding else (),
            watched=tuple((p, self.known.get(p)) for p in self._watching(seat)),
        )


class TokensGame(Game):
    """Tokens for two seats; ``rounds`` (1-3) rounds; ``deluxe``: the exile, the peek
    and the watch."""

    name = "tokens"

    def __init__(self, rounds: int = 3, deluxe: bool = False) -> None:
        if type(rounds) is not int or not 1 <= rounds <= 3:
            raise ConfigError("rounds is 1, 2 or 3")
        if type(deluxe) is not bool:
            raise ConfigError("deluxe is true or false")
        self.rounds = rounds
        self.deluxe = deluxe

    def config_dict(self) -> dict[str, Any]:
        return {"rounds": self.rounds, **({"deluxe": True} if self.deluxe else {})}

    def num_players(self) -> int:
        return SEATS

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TokensGame:
        if not isinstance(config, Mapping) or not set(config) <= {"rounds", "deluxe"}:
            raise ConfigError("tokens takes two options: rounds, deluxe")
        return cls(**config)

    def new_initial_state(self) -> TokensState:
        return TokensState(self)

    def decks(self) -> tuple[Deck, ...]:
        return DECKS
