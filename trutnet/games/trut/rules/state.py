"""The Trut state machine: one game from the first-Donneur draw to the last Long.

Rulings T1-T21 and the project decisions D1-D11 (``docs/games/trut.md``) are cited where
they act.

Hidden cards are first-class. A deal gives deck *positions* to seats; a card's
identity enters the state only when this replica is shown it: the whole deck with a
full-knowledge ``deal 7h 8d ...`` (self-play, tests), one position at a time with
:meth:`TrutState.learn` (a networked seat seeing its own cards), or in a ``play``
action (a played card is always revealed). :meth:`public_state` never reads an
unrevealed identity, so replicas with different knowledge agree on the state hash.

Phases: ``draw`` (chance) -> ``deal`` (chance) -> [``fortial`` | ``sing_ask`` /
``sing_agree`` / ``sing_count`` / ``keep`` | ``answer``] -> ``play`` <-> ``answer``
-> next hand's ``deal`` ... -> ``over``.

This module holds the state, its interface, the draw, the deal and the play of cards;
the words (Trut, answers, the Fortial, la Chanson) are :mod:`.words`, the score and the
end of a hand :mod:`.scoring`, and what each seat may see :mod:`.hidden`: mixins of
one :class:`TrutState`.
"""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any

from trutnet.engine.api import CHANCE, Action, GameState, copy_fields
from trutnet.engine.errors import HiddenCard, IllegalAction
from trutnet.games.trut.rules.actions import (
    ACCEPT,
    AGREE,
    FOLD,
    PASS,
    REFUSE,
    SING,
    TRUT,
    CardRef,
    Deal,
    Die,
    Draw,
    FalconShown,
    HareDraw,
    HedgehogAside,
    Keep,
    NutriaDraw,
    Play,
    Power,
    Prepare,
    SingCount,
    Swap,
    Void,
    Word,
    parse_action,
)
from trutnet.games.trut.rules.cards import FULL_DECK, Card
from trutnet.games.trut.rules.deluxe.cards import Special, special
from trutnet.games.trut.rules.deluxe.falcon import DeluxeFalcon
from trutnet.games.trut.rules.deluxe.hedgehog import DeluxeHedgehog
from trutnet.games.trut.rules.deluxe.powers import DeluxePowers
from trutnet.games.trut.rules.deluxe.rules import DeluxeRules
from trutnet.games.trut.rules.deluxe.weasel import DeluxeWeasel
from trutnet.games.trut.rules.hidden import DECK, DECK_SIZE, TrutHidden
from trutnet.games.trut.rules.observation import TrutObservation
from trutnet.games.trut.rules.scoring import TrutScoring
from trutnet.games.trut.rules.tricks import (
    POURRIE,
    UNDECIDED,
    TrickOutcome,
    hand_winner,
    resolve_trick,
)
from trutnet.games.trut.rules.views import observation_of, public_state_of
from trutnet.games.trut.rules.words import HAND_SIZE, PHASE_RULE, TrutCall, TrutWords

if TYPE_CHECKING:
    from trutnet.games.trut.rules.game import TrutGame

Event = dict[str, Any]
DECK_SET: frozenset[Card] = frozenset(FULL_DECK)  # what a classic deal orders (T1)


class TrutState(
    TrutWords,
    TrutScoring,
    TrutHidden,
    DeluxeRules,
    DeluxePowers,
    DeluxeWeasel,
    DeluxeHedgehog,
    DeluxeFalcon,
    GameState,
):
    """A Trut game in progress. Mutated only by :meth:`apply` and :meth:`learn`;
    its hidden information is described by :class:`TrutHidden`, the Deluxe option's
    rules by :class:`DeluxeRules` (called only when the option is on)."""

    def __init__(self, game: TrutGame) -> None:
        config = game.config
        self._game = game
        self.n = config.players
        self.teams = config.teams
        self.team_of = tuple(
            t for s in range(self.n) for t, seats in enumerate(self.teams) if s in seats
        )
        self.target = config.target
        self.gatinaise = config.variant == "gatinaise"
        self.sum_on_patte = config.sum_on_patte
        n_teams = len(self.teams)
        self.longs = [0] * n_teams
        self.petits = [0] * n_teams
        self.phase = "draw"
        self.to_act: int | None = CHANCE
        self.hand_number = 0
        self.dealer = 0
        self.marker = 0
        self.winner: int | None = None
        # First-Donneur draw [T3].
        self.draw_contenders: list[int] = list(range(self.n))
        self.draw_round: list[tuple[int, Card]] = []
        self.draw_used: set[Card] = set()
        self.draws: list[tuple[int, Card]] = []
        # The hand in progress.
        self.known: dict[int, Card] = {}  # private: identities this replica was shown
        self.next_stock = 0
        self.holdings: list[list[int]] = [[] for _ in range(self.n)]
        self.discarded: list[int] = []
        self.trick: list[tuple[int, int, Card]] = []
        self.tricks: list[tuple[tuple[tuple[int, int, Card], ...], int | None, int | None]] = []
        self.results: list[int | None] = []
        self.leader = 0
        self.trut: TrutCall | None = None
        self.queue: list[int] = []
        self.folded: set[int] = set()
        self.singer: int | None = None
        self.fortial_team: int | None = None
        self._history: list[Action] = []
        self.events: list[Event] = []
        self.deck_size = DECK_SIZE
        self.deck_name = DECK.name  # Deluxe: the talon from the second hand on [T26]
        self.deluxe = config.deluxe
        if self.deluxe:
            hedgehog = None if config.start is None else config.start.hedgehog
            self._deluxe_init(config.bonus_cards, config.michao_hare, hedgehog)
        start = config.start
        if start is not None:
            self.longs = list(start.longs)
            self.petits = list(start.petits)
            self.dealer = self.marker = start.dealer
            self.phase = "prepare" if self.deluxe else "deal"  # T25
            if start.deck is not None:
                self._deal(start.deck)

    # ----------------------------------------------------------------- interface

    @property
    def game(self) -> TrutGame:
        return self._game

    def current_seat(self) -> int | None:
        return self.to_act

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def history(self) -> list[Action]:
        return list(self._history)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.n
        return [1.0 if self.team_of[s] == self.winner else 0.0 for s in range(self.n)]

    def round_number(self) -> int:
        return self.hand_number  # a table checkpoints every hand (protocol 7.4)

    def winning_team(self) -> int | None:
        return self.winner

    def void_round(self) -> Action | None:
        """D16: a hand in progress is voided (no score, the same Donneur deals again).
        Deluxe (D22): from the preparation on, every ciphertext dies with the replaced
        seat's key, so a void (between hands too) prepares the specials again."""
        if self.phase in ("draw", "over"):
            return None
        if self.phase == "deal":
            return Void() if self.deluxe and (self.kept or any(self.pool_holdings)) else None
        if self.phase == "prepare":
            return None  # nothing is encrypted yet: the pool's shuffle comes next
        return Void()

    def clone(self) -> TrutState:
        return copy_fields(self, also=(TrutCall,))

    # ------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if seat is None:
            seat = self.to_act
        if seat is None or seat == CHANCE or seat != self.to_act:
            return []
        phase = self.phase
        if phase == "play":
            forced = self.forced.get(seat) if self.deluxe else None  # T37 (4)
            known = self.known
            actions: list[Action] = [
                _known_play(known[pos]) if pos in known else Play(CardRef(None, pos))
                for pos in self.holdings[seat]
                if forced is None or forced == pos
            ]
            if self.trut is None:
                actions.append(TRUT)
            return actions
        if phase == "answer":
            return [ACCEPT, FOLD]
        if phase == "fortial":
            return [TRUT, PASS]
        if phase == "sing_ask":
            return [SING, PASS]
        if phase == "sing_agree":
            return [AGREE, REFUSE]
        if phase == "sing_count":
            return [SingCount(k) for k in (1, 2, 3) if k * self.n <= self.stock_left()]
        if phase == "michao":  # T44
            return self._michao_legal(seat)
        if phase == "power":  # T36, T39, T40
            return self._power_legal(seat)
        if phase == "choose":  # T25: one of the two specials dealt
            return [Keep((CardRef(self.pool_known.get(p), p),)) for p in self.pool_holdings[seat]]
        if phase == "keep":
            refs = [self._ref(pos) for pos in self.holdings[seat]]
            return [Keep(combo) for combo in itertools.combinations(refs, HAND_SIZE)]
        return []

    def _ref(self, pos: int) -> CardRef:
        card = self.known.get(pos)
        return CardRef(None, pos) if card is None else _card_ref(card)

    def stock_left(self) -> int:
        return self.deck_size - self.next_stock

    # -------------------------------------------------------------------- chance

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "draw":
            return Draw(rng.choice([c for c in FULL_DECK if c not in self.draw_used]))
        if self.phase == "die":  # T22: the die of a power
            return Die(rng.randint(1, 6))
        if self.phase == "swap":  # T37 (1): one of the target's hand positions
            return Swap(rng.choice(self._swap_positions()))
        if self.phase == "nutria":  # T35: the next stock card, as the deck holds it
            return NutriaDraw(CardRef(self.known.get(self.next_stock), self.next_stock))
        if self.phase == "hare":  # T34: the next stock card, as the deck holds it
            return HareDraw(CardRef(self.known.get(self.next_stock), self.next_stock))
        if self.phase == "falcon":  # T33: the table finds it where the deal put it
            return self._falcon_sample()
        if self.phase == "hedgehog":  # T42: found in the new pool, where it lies
            return self._hedgehog_sample()
        if self.phase == "prepare":  # T25
            pool = [special(letter) for letter in self._pool_letters()]
            rng.shuffle(pool)
            return Prepare(tuple(pool))
        if self.phase == "deal":
            deck: list[Card | Special] = list(FULL_DECK)
            if self.deluxe:
                deck += self._kept_specials()  # T26
            rng.shuffle(deck)
            return Deal(tuple(deck))
        raise IllegalAction("chance", f"no chance event in phase {self.phase}")

    # --------------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Event]:
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == "over":
            raise IllegalAction("T14", "the game is over")
        before = len(self.events)
        normalised = self._dispatch(action)
        self._history.append(normalised)
        return self.events[before:]

    def _dispatch(self, action: Action) -> Action:
        phase = self.phase
        if type(action) is Play:  # the commonest action goes straight to its rule
            seat = self.to_act
            if seat is None or seat == CHANCE:
                raise IllegalAction(
                    "chance", f"phase {phase} waits for a chance event, not {action}"
                )
            return self._apply_play(seat, action)
        if isinstance(action, Draw):
            self._require(phase == "draw", "T3", "a draw for the first Donneur comes first")
            return self._apply_draw(action)
        if isinstance(action, NutriaDraw):
            self._require(self.deluxe, "T23", "the Nutria is the deluxe option's")
            return self._apply_nutria_draw(action)
        if isinstance(action, HareDraw):
            self._require(self.deluxe, "T23", "the Hare is the deluxe option's")
            return self._apply_hare(action)
        if isinstance(action, FalconShown):
            self._require(self.deluxe, "T23", "the Falcon is the deluxe option's")
            return self._apply_falcon(action)
        if isinstance(action, HedgehogAside):
            self._require(self.deluxe, "T23", "the Hedgehog is the deluxe option's")
            return self._apply_hedgehog_aside(action)
        if isinstance(action, Die):
            self._require(self.deluxe, "T23", "a die is the deluxe option's")
            return self._apply_die(action)
        if isinstance(action, Prepare):
            self._require(self.deluxe, "T23", "special cards are the deluxe option's")
            return self._apply_prepare(action)
        if isinstance(action, Swap):
            self._require(self.deluxe, "T23", "the Weasel is the deluxe option's")
            return self._apply_swap(action)
        if isinstance(action, Deal):
            self._require(phase == "deal", "T4", f"no deal now (phase {phase})")
            self._apply_deal(action)
            return action
        if isinstance(action, Void):
            self._require(
                self.void_round() is not None,
                "D16",
                "only a hand in progress can be voided",
            )
            self.events.append({"event": "hand_void", "hand": self.hand_number})
            if phase != "deal":
                self._close_hand("void", None, self.dealer)  # D16: no score, same Donneur
            if self.deluxe:
                self._deluxe_void()  # D22: the specials prepared again
            return action
        seat = self.to_act
        if seat is None or seat == CHANCE:
            raise IllegalAction("chance", f"phase {phase} waits for a chance event, not {action}")
        if phase == "michao" and isinstance(action, Power | Word):  # T44
            return self._apply_michao(seat, action)
        if isinstance(action, Power) or (phase == "power" and isinstance(action, Word)):
            self._require(
                phase == "power", PHASE_RULE.get(phase, "turn"), f"no power now: {action}"
            )
            return self._apply_power(seat, action)
        if isinstance(action, Play):
            return self._apply_play(seat, action)
        if isinstance(action, Keep):
            if phase == "choose":
                return self._apply_choose(seat, action)
            return self._apply_keep(seat, action)
        if isinstance(action, SingCount):
            self._apply_sing_count(seat, action)
            return action
        if isinstance(action, Word):
            self._apply_word(seat, action.word)
            return action
        raise IllegalAction("notation", f"not a Trut action: {action!r}")

    @staticmethod
    def _require(condition: bool, rule: str, message: str) -> None:
        if not condition:
            raise IllegalAction(rule, message)

    # ---- first Donneur [T3, D2]

    def _apply_draw(self, action: Draw) -> Draw:
        card = action.card
        self._require(card not in self.draw_used, "T3", f"{card} was already drawn")
        seat = self.draw_contenders[len(self.draw_round)]
        self.draw_used.add(card)
        self.draw_round.append((seat, card))
        self.draws.append((seat, card))
        self.events.append({"event": "draw", "seat": seat, "card": str(card)})
        if len(self.draw_round) < len(self.draw_contenders):
            return action
        top = max(c.strength for _, c in self.draw_round)
        tops = [s for s, c in self.draw_round if c.strength == top]
        self.draw_round = []
        if len(tops) == 1:
            self.dealer = self.marker = tops[0]
            self.phase = "prepare" if self.deluxe else "deal"  # T25: right after the draw
            self.events.append({"event": "first_dealer", "seat": tops[0]})
            return action
        self.draw_contenders = tops
        if DECK_SIZE - len(self.draw_used) < len(tops):  # D2: start again from a full deck
            self.draw_used = set()
            self.events.append({"event": "draw_restart"})
        self.events.append({"event": "draw_tie", "seats": tops})
        return action

    # ---- deal [T4] and the start of a hand [T15-T19, D5]

    def _apply_deal(self, action: Deal) -> None:
        size = self._deluxe_deck_size() if self.deluxe else DECK_SIZE  # T26
        if action.deck is not None:
            expected: frozenset[Card | Special] | None = DECK_SET if not self.deluxe else None
            if self.deluxe and len(self.pool_known) == self._pool_size():
                expected = DECK_SET.union(self._kept_specials())
            dealt = set(action.deck)  # each card hashed once: a deal is a hot path
            self._require(
                len(action.deck) == size
                and len(dealt) == size
                and (expected is None or dealt == expected),
                "T26" if self.deluxe else "T1",
                f"a deal's deck order holds each of its {size} cards once",
            )
        if self.deluxe:
            carried = self.carried
            if carried:  # T26: the previous deck's ciphertexts, re-shuffled
                self.deck_name = self._next_talon()  # T42: not the Hedgehog's deck
            self.deck_size = size
            self.carried = True
            self._hedgehog_dealt(carried)  # T42: back in the deck once its protection ended
        self._deal(action.deck)

    def _deal(self, deck: tuple[Card | Special, ...] | None) -> None:
        n = self.n
        self.known = {} if deck is None else dict(enumerate(deck))
        for k in range(HAND_SIZE * n):
            self.holdings[(self.dealer + 1 + k) % n].append(k)
        self.next_stock = HAND_SIZE * n
        self.events.append({"event": "deal", "hand": self.hand_number, "dealer": self.dealer})
        self._start_hand()

    def _order_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.n for i in range(self.n)]

    def _start_hand(self) -> None:
        team_count = len(self.teams)
        fortial = [
            t for t in range(team_count) if self.longs[t] == self.target - 1 and self.petits[t] == 2
        ]
        self.leader = self.dealer
        if len(fortial) == 1:  # T15 (T16: two or more au Fortial play normally; D5)
            self.fortial_team = fortial[0]
            self.phase = "fortial"
            self.queue = [s for s in self._order_from(self.dealer) if self.team_of[s] == fortial[0]]
            self.to_act = self.queue[0]
            self.events.append({"event": "fortial", "team": fortial[0]})
            return
        if self.gatinaise and not fortial:
            two = [t for t in range(team_count) if self.petits[t] == 2]
            if len(two) >= 2:  # T19, D4: la Chanson
                self.singer = (self.dealer + 1) % self.n
                self.events.append({"event": "chanson", "singer": self.singer})
                self._ask_singer()
                return
            if len(two) == 1:  # T18, D4: Trut d'office
                caller = next(s for s in self._order_from(self.dealer) if self.team_of[s] != two[0])
                self._call_trut(caller, "office")
                return
        self._begin_play()

    def _begin_play(self) -> None:
        self.phase = "play"
        self.leader = self.dealer
        self.to_act = self.dealer  # T5: the dealer leads the first trick
        if self.deluxe:  # T33: the hands are final, the Falcon shows first
            self._falcon_gate()

    # ---- playing cards [T5-T8, T20]

    def _resolve(self, seat: int, ref: CardRef, rule: str) -> int:
        """The deck position of ``ref`` in ``seat``'s hand, checking its identity."""
        holding = self.holdings[seat]
        if ref.pos is not None:
            self._require(ref.pos in holding, rule, f"position {ref.pos} is not in your hand")
            known = self.known.get(ref.pos)
            if ref.card is not None and known is not None and known != ref.card:
                raise IllegalAction(rule, f"position {ref.pos} does not hold {ref.card}")
            return ref.pos
        for pos in holding:
            if self.known.get(pos) == ref.card:
                return pos
        if all(pos in self.known for pos in holding):
            raise IllegalAction(rule, f"{ref.card} is not in your hand")
        raise IllegalAction(rule, f"{ref.card}: give its deck position (play {ref.card}@N)")

    def _apply_play(self, seat: int, action: Play) -> Play:
        self._require(
            self.phase == "play",
            PHASE_RULE.get(self.phase, "turn"),
            f"no card can be played in phase {self.phase}",
        )
        card = action.ref.card
        if card is None:
            raise HiddenCard("a played card is revealed: give its identity (play 7h@12)")
        if isinstance(card, Special) and not self.deluxe:
            raise IllegalAction("T23", f"{card} is a special card: Trut without deluxe has none")
        pos = self._resolve(seat, action.ref, "T5")
        if self.deluxe and self.forced.get(seat, pos) != pos:  # T37 (4)
            raise IllegalAction("T37", f"the Weasel forces position {self.forced[seat]} next")
        if self.known.get(pos) is None:
            for other_pos, other in self.known.items():
                if other == card:
                    raise IllegalAction("T1", f"{card} is at position {other_pos}, not {pos}")
        self.holdings[seat].remove(pos)
        if self.deluxe:
            self.forced.pop(seat, None)
        self.known[pos] = card
        self.trick.append((seat, pos, card))
        self.events.append({"event": "play", "seat": seat, "card": str(card)})
        if self.deluxe and self._deluxe_landed(seat, card):  # T30: its effects first
            return Play(CardRef(card, pos))
        self._after_play(seat)
        return Play(CardRef(card, pos))

    def _after_play(self, seat: int) -> None:
        """The next seat to play in the trick, or the trick's end [T5, T6]."""
        played = {s for s, _, _ in self.trick}
        for step in range(1, self.n):
            nxt = (seat + step) % self.n
            if nxt not in played and nxt not in self.folded:
                self.to_act = nxt
                return
        self._finish_trick()

    def _finish_trick(self) -> None:
        if self.deluxe:  # T28: effective values; T31: the Boar's patté
            valued, boar = self._deluxe_outcome_cards(self.trick)
            outcome = resolve_trick(valued, self.team_of, self.folded, self.sum_on_patte)
            if boar:
                boar_seat = next(s for s, _, c in self.trick if str(c) == "C")
                outcome = TrickOutcome(None, None, boar_seat)
        else:
            outcome = resolve_trick(
                [(s, c) for s, _, c in self.trick], self.team_of, self.folded, self.sum_on_patte
            )
        self.tricks.append((tuple(self.trick), outcome.team, outcome.winner))
        self.results.append(outcome.team)
        self.trick = []
        self.marker = outcome.next_leader  # T8: the marker follows the lead
        self.events.append(
            {
                "event": "trick",
                "number": len(self.tricks),
                "cards": [[s, str(c)] for s, _, c in self.tricks[-1][0]],
                "team": outcome.team,
                "winner": outcome.winner,
                "patte": outcome.team is None,
                "by_sum": outcome.by_sum,
            }
        )
        if self.deluxe:  # T29, T32: the capture and its prizes, before T7
            self._deluxe_capture(self.tricks[-1][0], outcome.team)
            if self.phase == "over":  # T45: the target reached by a prize ends the game
                self._close_hand("target", outcome.team, self.marker)
                return
        result = hand_winner(self.results)
        if result == POURRIE:
            self._close_hand("pourrie", None, self.dealer)  # T7: same dealer again
        elif result != UNDECIDED:
            assert isinstance(result, int)
            self._end_by_win(result)
        else:
            self.leader = outcome.next_leader
            self.to_act = outcome.next_leader

    # ------------------------------------------------------------ public views

    def public_state(self) -> dict[str, Any]:
        return public_state_of(self)

    def observation(self, seat: int) -> TrutObservation:
        return observation_of(self, seat)


_CARD_REFS: dict[Card | Special, CardRef] = {}  # a known card's reference: one each
_PLAYS: dict[Card | Special, Play] = {}  # and its play: small immutable values, shared


def _card_ref(card: Card | Special) -> CardRef:
    """``CardRef(card)``, made once per card (legal actions are a hot path)."""
    ref = _CARD_REFS.get(card)
    if ref is None:
        ref = _CARD_REFS[card] = CardRef(card)
    return ref


def _known_play(card: Card | Special) -> Play:
    """``Play(CardRef(card))``, made once per card."""
    play = _PLAYS.get(card)
    if play is None:
        play = _PLAYS[card] = Play(_card_ref(card))
    return play
