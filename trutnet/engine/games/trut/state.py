"""The Trut state machine: one game from the first-Donneur draw to the last Long.

Rulings T1-T21 (``../shared/rulings/trut.md``) and the project decisions D1-D11
(``docs/rules.md``) are cited where they act.

Hidden cards are first-class. A deal gives deck *positions* to seats; a card's
identity enters the state only when this replica is shown it: the whole deck with a
full-knowledge ``deal 7h 8d ...`` (self-play, tests), one position at a time with
:meth:`TrutState.learn` (a networked seat seeing its own cards), or in a ``play``
action (a played card is always revealed). :meth:`public_state` never reads an
unrevealed identity, so replicas with different knowledge agree on the state hash.

Phases: ``draw`` (chance) -> ``deal`` (chance) -> [``fortial`` | ``sing_ask`` /
``sing_agree`` / ``sing_count`` / ``keep`` | ``answer``] -> ``play`` <-> ``answer``
-> next hand's ``deal`` ... -> ``over``.
"""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any

from trutnet.engine.api import CHANCE, Action, GameState
from trutnet.engine.cards import FULL_DECK, Card
from trutnet.engine.errors import HiddenCard, IllegalAction
from trutnet.engine.games.trut.actions import (
    ACCEPT,
    AGREE,
    FOLD,
    PASS,
    REFUSE,
    SING,
    TRUT,
    CardRef,
    Deal,
    Draw,
    Keep,
    Play,
    SingCount,
    Void,
    Word,
    parse_action,
)
from trutnet.engine.games.trut.hidden import DECK_SIZE, TrutHidden
from trutnet.engine.games.trut.observation import TrickView, TrutObservation, TrutView
from trutnet.engine.games.trut.tricks import POURRIE, UNDECIDED, hand_winner, resolve_trick

if TYPE_CHECKING:
    from trutnet.engine.games.trut.game import TrutGame

Event = dict[str, Any]
HAND_SIZE = 3


class TrutCall:
    """The (single) Trut of a hand [T9]: who called it, how, and the answers so far."""

    __slots__ = ("accepted_by", "caller", "folded_by", "kind", "status")

    def __init__(self, caller: int | None, kind: str, status: str = "pending") -> None:
        self.caller = caller
        self.kind = kind
        self.status = status
        self.accepted_by: list[int] = []
        self.folded_by: list[int] = []

    def copy(self) -> TrutCall:
        other = TrutCall(self.caller, self.kind, self.status)
        other.accepted_by = list(self.accepted_by)
        other.folded_by = list(self.folded_by)
        return other

    def view(self) -> TrutView:
        return TrutView(
            self.caller, self.kind, self.status, tuple(self.accepted_by), tuple(self.folded_by)
        )

    def to_data(self) -> dict[str, Any]:
        return {
            "caller": self.caller,
            "kind": self.kind,
            "status": self.status,
            "accepted_by": list(self.accepted_by),
            "folded_by": list(self.folded_by),
        }


class TrutState(TrutHidden, GameState):
    """A Trut game in progress. Mutated only by :meth:`apply` and :meth:`learn`;
    its hidden information is described by :class:`TrutHidden`."""

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
        start = config.start
        if start is not None:
            self.longs = list(start.longs)
            self.petits = list(start.petits)
            self.dealer = self.marker = start.dealer
            self.phase = "deal"
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
        """D16: a hand in progress is voided (no score, the same Donneur deals again)."""
        return None if self.phase in ("draw", "deal", "over") else Void()

    def clone(self) -> TrutState:
        other = object.__new__(TrutState)
        for name, value in self.__dict__.items():
            if isinstance(value, list):
                value = [list(v) if isinstance(v, list) else v for v in value]
            elif isinstance(value, set | dict | TrutCall):
                value = value.copy()
            other.__dict__[name] = value
        return other

    # ------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        if seat is None:
            seat = self.to_act
        if seat is None or seat == CHANCE or seat != self.to_act:
            return []
        phase = self.phase
        if phase == "play":
            actions: list[Action] = [Play(self._ref(pos)) for pos in self.holdings[seat]]
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
            return [SingCount(k) for k in (1, 2, 3) if k * self.n <= self._stock_left()]
        if phase == "keep":
            refs = [self._ref(pos) for pos in self.holdings[seat]]
            return [Keep(combo) for combo in itertools.combinations(refs, HAND_SIZE)]
        return []

    def _ref(self, pos: int) -> CardRef:
        card = self.known.get(pos)
        return CardRef(None, pos) if card is None else CardRef(card)

    def _stock_left(self) -> int:
        return DECK_SIZE - self.next_stock

    # -------------------------------------------------------------------- chance

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "draw":
            return Draw(rng.choice([c for c in FULL_DECK if c not in self.draw_used]))
        if self.phase == "deal":
            deck = list(FULL_DECK)
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
        if isinstance(action, Draw):
            self._require(phase == "draw", "T3", "a draw for the first Donneur comes first")
            return self._apply_draw(action)
        if isinstance(action, Deal):
            self._require(phase == "deal", "T4", f"no deal now (phase {phase})")
            self._apply_deal(action)
            return action
        if isinstance(action, Void):
            self._require(
                phase not in ("draw", "deal", "over"),
                "D16",
                "only a hand in progress can be voided",
            )
            self.events.append({"event": "hand_void", "hand": self.hand_number})
            self._close_hand("void", None, self.dealer)  # D16: no score, same Donneur
            return action
        seat = self.to_act
        if seat is None or seat == CHANCE:
            raise IllegalAction("chance", f"phase {phase} waits for a chance event, not {action}")
        if isinstance(action, Play):
            return self._apply_play(seat, action)
        if isinstance(action, Keep):
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
            self.phase = "deal"
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
        if action.deck is not None:
            self._require(
                len(action.deck) == DECK_SIZE and len(set(action.deck)) == DECK_SIZE,
                "T1",
                "a deal's deck order holds each of the 32 cards once",
            )
        self._deal(action.deck)

    def _deal(self, deck: tuple[Card, ...] | None) -> None:
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

    # ---- Trut [T9-T12, T18, T20]

    def _opponents_in_order(self, caller: int) -> list[int]:
        team = self.team_of[caller]
        return [
            s for s in self._order_from(caller) if self.team_of[s] != team and s not in self.folded
        ]

    def _call_trut(self, caller: int, kind: str) -> None:
        self.trut = TrutCall(caller, kind)
        self.queue = self._opponents_in_order(caller)
        self.phase = "answer"
        self.to_act = self.queue[0]
        self.events.append({"event": "trut", "seat": caller, "kind": kind})

    def _apply_word(self, seat: int, word: str) -> None:
        phase = self.phase
        if word == "trut" and phase not in ("play", "fortial"):
            raise IllegalAction("T9", "Trut is called on one's turn to play, once per hand")
        if phase == "play":
            self._require(word == "trut", "T5", f"'{word}' is not a move while playing")
            self._require(self.trut is None, "T9", "at most one Trut per hand")
            self._call_trut(seat, "call")
        elif phase == "answer":
            self._require(word in ("accept", "fold"), "T10", "answer a Trut with accept or fold")
            self._answer(seat, word)
        elif phase == "fortial":
            self._require(word in ("trut", "pass"), "T15", "au Fortial: trut or pass")
            self._fortial(seat, word)
        elif phase == "sing_ask":
            self._require(word in ("sing", "pass"), "T19", "asked to sing: sing or pass")
            self._sing_ask(word)
        elif phase == "sing_agree":
            self._require(word in ("agree", "refuse"), "T19", "agree or refuse to sing")
            self._sing_agree(word)
        else:
            raise IllegalAction(_PHASE_RULE.get(phase, "turn"), f"'{word}' in phase {phase}")

    def _answer(self, seat: int, word: str) -> None:
        trut = self.trut
        assert trut is not None
        self.queue.pop(0)
        self.events.append({"event": "answer", "seat": seat, "word": word})
        (trut.accepted_by if word == "accept" else trut.folded_by).append(seat)
        caller = trut.caller
        assert caller is not None
        caller_team = self.team_of[caller]
        if self.n != 3:  # T10: the first accept accepts for the team; all must fold
            if word == "accept":
                trut.status = "accepted"
                self.queue = []
                self._resume_after_trut()
            elif not self.queue:
                trut.status = "folded"
                self._end_by_fold(caller_team, 1)
            else:
                self.to_act = self.queue[0]
            return
        # 3 players [T10, T20, D15]: each opponent answers for himself, and each fold
        # scores the caller 1 Petit as it is said (so the game may end at once, T14).
        if word == "fold":
            self._add_petits(caller_team, 1)
            if self.phase == "over":
                self._close_hand("fold", caller_team, self.marker)
                return
        if self.queue:
            self.to_act = self.queue[0]
            return
        if len(trut.folded_by) == 2:  # both folded: 2 Petits in all, the hand ends
            trut.status = "folded"
            self._close_hand("fold", caller_team, self.marker)
            return
        trut.status = "accepted"
        if trut.folded_by:  # T20, D8: the hand goes on between the two others
            folded = trut.folded_by[0]
            self.folded.add(folded)
            self.results = [None if r == self.team_of[folded] else r for r in self.results]
            self.events.append({"event": "folded_out", "seat": folded})
            outcome = hand_winner(self.results)
            if outcome not in (UNDECIDED, POURRIE):
                assert isinstance(outcome, int)
                self._end_by_win(outcome)
                return
        self._resume_after_trut()

    def _resume_after_trut(self) -> None:
        trut = self.trut
        assert trut is not None
        self.events.append({"event": "trut_accepted", "kind": trut.kind})
        if trut.kind == "call":
            self.phase = "play"
            self.to_act = trut.caller  # T9: the caller still has to play his card
        else:
            self._begin_play()

    # ---- Fortial [T15, D9]

    def _fortial(self, seat: int, word: str) -> None:
        self.queue.pop(0)
        self.events.append({"event": "fortial_decision", "seat": seat, "word": word})
        if word == "trut":
            self.queue = []
            self._call_trut(seat, "fortial")
            return
        if self.queue:
            self.to_act = self.queue[0]
            return
        fortial_team = self.fortial_team
        # Everyone au Fortial passed: each opponent team scores 1 Petit, no play (D4).
        for s in self._order_from(self.dealer):
            team = self.team_of[s]
            if team != fortial_team and s == self.teams[team][0]:
                self._add_petits(team, 1)
        self._close_hand("fortial_pass", None, self.marker)

    # ---- la Chanson [T19, D7]

    def _ask_singer(self) -> None:
        assert self.singer is not None
        if self._stock_left() >= self.n:
            self.phase = "sing_ask"
            self.to_act = self.singer
        else:
            self._start_keep()

    def _sing_ask(self, word: str) -> None:
        singer = self.singer
        assert singer is not None
        self.events.append({"event": "sing_ask", "seat": singer, "word": word})
        if word == "pass":
            self._start_keep()
            return
        self.phase = "sing_agree"
        self.queue = self._order_from(singer)[1:]
        self.to_act = self.queue[0]

    def _sing_agree(self, word: str) -> None:
        seat = self.queue.pop(0)
        self.events.append({"event": "sing_agree", "seat": seat, "word": word})
        if word == "refuse":
            self.queue = []
            self._start_keep()
        elif self.queue:
            self.to_act = self.queue[0]
        else:
            self.phase = "sing_count"
            self.to_act = self.singer

    def _apply_sing_count(self, seat: int, action: SingCount) -> None:
        self._require(self.phase == "sing_count", "T19", "the count comes after everyone agreed")
        count = action.count
        self._require(
            count * self.n <= self._stock_left(),
            "T19",
            f"the stock holds {self._stock_left()} cards: too few for {count} each",
        )
        singer = self.singer
        assert singer is not None
        order = self._order_from(singer)
        for _ in range(count):
            for s in order:
                self.holdings[s].append(self.next_stock)
                self.next_stock += 1
        self.events.append({"event": "sing_draw", "seat": seat, "count": count})
        self._ask_singer()

    def _start_keep(self) -> None:
        assert self.singer is not None
        self.queue = [s for s in self._order_from(self.singer) if len(self.holdings[s]) > HAND_SIZE]
        if self.queue:
            self.phase = "keep"
            self.to_act = self.queue[0]
        else:
            self._chanson_play()

    def _apply_keep(self, seat: int, action: Keep) -> Keep:
        self._require(self.phase == "keep", "T19", "cards are kept only after la Chanson")
        self._require(len(action.refs) == HAND_SIZE, "T19", "keep exactly 3 cards")
        positions = [self._resolve(seat, ref, "T19") for ref in action.refs]
        self._require(len(set(positions)) == HAND_SIZE, "T19", "keep 3 different cards")
        kept = set(positions)
        dropped = [p for p in self.holdings[seat] if p not in kept]
        self.holdings[seat] = [p for p in self.holdings[seat] if p in kept]
        self.discarded.extend(dropped)
        self.queue.pop(0)
        self.events.append({"event": "keep", "seat": seat, "discarded": len(dropped)})
        if self.queue:
            self.to_act = self.queue[0]
        else:
            self._chanson_play()
        return Keep(tuple(CardRef(self.known.get(p), p) for p in positions))

    def _chanson_play(self) -> None:
        # T19: played as an accepted Trut with no fold; no caller, no further Trut.
        self.trut = TrutCall(None, "chanson", "accepted")
        self.events.append({"event": "trut", "seat": None, "kind": "chanson"})
        self._begin_play()

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
            _PHASE_RULE.get(self.phase, "turn"),
            f"no card can be played in phase {self.phase}",
        )
        card = action.ref.card
        if card is None:
            raise HiddenCard("a played card is revealed: give its identity (play 7h@12)")
        pos = self._resolve(seat, action.ref, "T5")
        if self.known.get(pos) is None:
            for other_pos, other in self.known.items():
                if other == card:
                    raise IllegalAction("T1", f"{card} is at position {other_pos}, not {pos}")
        self.holdings[seat].remove(pos)
        self.known[pos] = card
        self.trick.append((seat, pos, card))
        self.events.append({"event": "play", "seat": seat, "card": str(card)})
        played = {s for s, _, _ in self.trick}
        for step in range(1, self.n):
            nxt = (seat + step) % self.n
            if nxt not in played and nxt not in self.folded:
                self.to_act = nxt
                return Play(CardRef(card, pos))
        self._finish_trick()
        return Play(CardRef(card, pos))

    def _finish_trick(self) -> None:
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
        result = hand_winner(self.results)
        if result == POURRIE:
            self._close_hand("pourrie", None, self.dealer)  # T7: same dealer again
        elif result != UNDECIDED:
            assert isinstance(result, int)
            self._end_by_win(result)
        else:
            self.leader = outcome.next_leader
            self.to_act = outcome.next_leader

    # ---- scoring [T11-T14, T20, D6, D10]

    def _add_petits(self, team: int, count: int) -> None:
        if self.phase == "over":
            return
        self.petits[team] += count
        if self.petits[team] >= 3:  # 3 Petits make a Long (D10)
            self._add_longs(team, 1)

    def _add_longs(self, team: int, count: int) -> None:
        if self.phase == "over":
            return
        self.longs[team] = min(self.target, self.longs[team] + count)  # D6
        self.petits = [0] * len(self.petits)  # T13
        if self.longs[team] >= self.target:  # T14
            self.winner = team
            self.phase = "over"
            self.to_act = None

    def _end_by_fold(self, caller_team: int, petits: int) -> None:
        self._add_petits(caller_team, petits)  # T11
        self._close_hand("fold", caller_team, self.marker)  # T8: the marker stays

    def _end_by_win(self, team: int) -> None:
        trut = self.trut
        if trut is None or trut.status != "accepted":
            self._add_petits(team, 1)
        elif self.n == 3 and not trut.folded_by:
            self._add_longs(team, 2)  # seed, 3 players: both in (accepted, or la Chanson)
        else:
            self._add_longs(team, 1)  # T12
        self._close_hand("won", team, self.marker)

    def _close_hand(self, result: str, team: int | None, next_dealer: int) -> None:
        self.events.append(
            {
                "event": "hand_end",
                "hand": self.hand_number,
                "result": result,
                "team": team,
                "longs": list(self.longs),
                "petits": list(self.petits),
            }
        )
        self.marker = next_dealer
        if self.phase == "over":
            self.events.append({"event": "game_end", "winner": self.winner})
            return
        self.hand_number += 1
        self.dealer = next_dealer
        self.phase = "deal"
        self.to_act = CHANCE
        self.known = {}
        self.next_stock = 0
        self.holdings = [[] for _ in range(self.n)]
        self.discarded = []
        self.trick = []
        self.tricks = []
        self.results = []
        self.trut = None
        self.queue = []
        self.folded = set()
        self.singer = None
        self.fortial_team = None

    # ------------------------------------------------------------ public views

    def public_state(self) -> dict[str, Any]:
        return {
            "game": "trut",
            "config": self._game.config_dict(),
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": self.hand_number,
            "dealer": self.dealer,
            "marker": self.marker,
            "longs": list(self.longs),
            "petits": list(self.petits),
            "winner": self.winner,
            "draws": [[s, str(c)] for s, c in self.draws],
            "draw_contenders": list(self.draw_contenders),
            "holdings": [list(h) for h in self.holdings],
            "stock_next": self.next_stock,
            "discarded": list(self.discarded),
            "trick": [[s, p, str(c)] for s, p, c in self.trick],
            "tricks": [
                {"cards": [[s, p, str(c)] for s, p, c in cards], "team": team, "winner": winner}
                for cards, team, winner in self.tricks
            ],
            "results": list(self.results),
            "leader": self.leader,
            "trut": None if self.trut is None else self.trut.to_data(),
            "queue": list(self.queue),
            "folded": sorted(self.folded),
            "singer": self.singer,
            "fortial_team": self.fortial_team,
        }

    def observation(self, seat: int) -> TrutObservation:
        if not 0 <= seat < self.n:
            raise IllegalAction("T2", f"no seat {seat}")
        blind = self.hidden_from_owner(seat)
        hand = tuple((pos, None if blind else self.known.get(pos)) for pos in self.holdings[seat])
        return TrutObservation(
            seat=seat,
            players=self.n,
            variant=self._game.config.variant,
            target=self.target,
            teams=self.teams,
            team=self.team_of[seat],
            phase=self.phase,
            to_act=self.to_act,
            hand_number=self.hand_number,
            dealer=self.dealer,
            marker=self.marker,
            longs=tuple(self.longs),
            petits=tuple(self.petits),
            hand=hand,
            hand_sizes=tuple(len(h) for h in self.holdings),
            trick=tuple((s, c) for s, _, c in self.trick),
            tricks=tuple(
                TrickView(tuple((s, c) for s, _, c in cards), team, winner)
                for cards, team, winner in self.tricks
            ),
            results=tuple(self.results),
            trut=None if self.trut is None else self.trut.view(),
            folded=tuple(sorted(self.folded)),
            stock=self._stock_left() if self.phase not in ("draw", "deal") else 0,
            singer=self.singer,
            fortial_team=self.fortial_team,
            winner=self.winner,
            legal=tuple(self.legal_actions(seat)),
        )


_PHASE_RULE = {
    "draw": "T3",
    "deal": "T4",
    "fortial": "T15",
    "answer": "T10",
    "play": "T5",
    "sing_ask": "T19",
    "sing_agree": "T19",
    "sing_count": "T19",
    "keep": "T19",
    "over": "T14",
}
