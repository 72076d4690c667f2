"""Truco's rules (K5-K31): who acts, what is legal, what each action does.

A hand: the deal (K8), the gallo's discard (K9), then one segment (redondo) or a
pica-pica duel after another (K11, K12). A segment: the flor round and its bets (K16,
K17), then the tricks, during which envido (K18-K20) and truco (K22-K24) bets, the
mazo (K25) and declarations interrupt the turn seat (K13, K14). When it ends (K28)
its winning flores and envido are shown (K21), then scored (K28-K30).

Hidden cards as in Trut: the public state holds positions, and identities only once
face up; ``known`` (private, never hashed) holds what this replica was shown.
:meth:`apply` checks an action against the legal ones before changing anything, so
a refusal (``IllegalAction`` naming its ruling) changes nothing.

The words of a hand (flor, envido, declarations, truco, mazo) are in :mod:`.bets`,
the hidden-information description and the views in :mod:`.description`: mixins of
the one :class:`TrucoState`.
"""

from __future__ import annotations

import random
from typing import Any

from trutnet.engine.api import CHANCE, Action, copy_fields
from trutnet.engine.errors import HiddenCard, IllegalAction
from trutnet.engine.hidden import Pos
from trutnet.games.truco.rules.actions import (
    ENVIDO_BETS,
    TRUCO_CALLS,
    Deal,
    Dealer,
    Declare,
    Discard,
    Play,
    Show,
    Void,
    Word,
    parse_action,
)
from trutnet.games.truco.rules.bets import CHICO, TrucoBets
from trutnet.games.truco.rules.cards import (
    CARDS,
    LEVEL,
    POSITIONS,
    is_flor,
)
from trutnet.games.truco.rules.description import TrucoDescription
from trutnet.games.truco.rules.game import TrucoGame
from trutnet.games.truco.rules.legal import TrucoLegal

PARDA = -1  # a trick result: a parda (K26)
CHANCE_PHASES = ("draw", "shuffle")


class TrucoState(TrucoBets, TrucoLegal, TrucoDescription):
    def __init__(self, game: TrucoGame) -> None:
        self._game = game
        self.n = game.players
        units = 3 if game.rotating else 2
        self.phase = "draw"
        self.dealer = 0
        self.hand_no = 0
        self.chico_hand = 0
        self.scores = [0] * units
        self.chicos = [0] * units
        self.winner: int | None = None  # the winning unit (team, or seat when rotating)
        self.dealt: list[list[Pos]] = [[] for _ in range(self.n)]  # kept positions (K9)
        self.hands: list[list[Pos]] = [[] for _ in range(self.n)]  # unplayed
        self.discarded: Pos | None = None
        self.face_up: dict[Pos, str] = {}
        self.segments: list[list[int]] = []
        self.pica = False
        self.last_scored: list[list[int]] = []  # [side, points] of the last segment scored
        self.known: dict[Pos, str] = {}  # private: never in the public state
        self.actor = -1  # the seat of the last decision (for narration; from the history)
        self._history: list[Action] = []
        self._new_segment([])

    def _new_segment(self, seats: list[int]) -> None:
        self.seg = seats  # the segment's seats, in order from its mano (K7, K12)
        self.folded: list[int] = []
        self.played: list[int] = []  # seats that played a card in this segment
        self.tricks: list[list[tuple[int, Pos, str]]] = [[]]
        self.results: list[int] = []  # side or PARDA per finished trick
        self.leader = seats[0] if seats else 0
        self.turn = self.leader
        self.truco_level = 1  # accepted step (1: none accepted)
        self.truco_owner: int | None = None  # the side that may raise (K22)
        self.truco_called = False
        self.truco_call: list[int] | None = None  # [step called, caller] awaiting an answer
        self.envido_chain: list[str] = []
        self.envido_bettor: int | None = None  # set while a bet awaits an answer
        self.asked: list[int] = []  # K14: who is asked, in order
        self.flor_said: dict[int, bool] = {}
        self.flor_stage = ""  # "B", "contra", "resto" (K17)
        self.flor_resto_side = 0
        self.flor_amount = 0
        self.decl_kind = ""  # "envido" or "flor" (K20)
        self.decl_queue: list[int] = []
        self.declared: list[list[int]] = []  # [seat, value or -1 for son buenas]
        self.best: list[int] | None = None  # [value, seat]
        self.envido_points = 0
        self.flor_pts: list[list[int]] = []  # [side, points]
        self.envido_pts: list[int] | None = None
        self.truco_pts: list[int] | None = None
        self.envido_winner: int | None = None
        self.flor_winner: int | None = None
        self.provers: list[list[Any]] = []  # [seat, "flor" | "envido", value]
        self.calls: list[list[Any]] = []  # [seat, word]: the segment's calls, for views

    # ---------------------------------------------------------------- seats

    @property
    def game(self) -> TrucoGame:
        return self._game

    def mano(self) -> int:
        return (self.dealer + 1) % self.n  # K7

    def gallo(self) -> int | None:
        if self.n != 3:
            return None
        return self.dealer if self._game.rotating else 0  # K9

    def side(self, seat: int) -> int:
        """The seat's side in this hand (0 or 1; K6, K9)."""
        if self.n == 3:
            return 0 if seat == self.gallo() else 1
        return seat % 2

    def units_of(self, side: int) -> list[int]:
        """The scores credited to a side's points (K9: each member when rotating)."""
        if self._game.rotating:
            gallo = self.gallo()
            return [gallo] if side == 0 else [s for s in range(3) if s != gallo]  # type: ignore[list-item]
        return [side]

    def order_from(self, start: int, seats: list[int]) -> list[int]:
        return sorted(seats, key=lambda s: (s - start) % self.n)

    def _after(self, seat: int, seats: list[int]) -> list[int]:
        return sorted(seats, key=lambda s: (s - seat - 1) % self.n)

    def _others(self, seat: int, holders: list[int] | None = None) -> list[int]:
        """K14: the seats of the other side asked, from the seat after ``seat``."""
        pool = holders if holders is not None else self.seg
        side = self.side(seat)
        return self._after(seat, [s for s in pool if self.side(s) != side and s not in self.folded])

    def _next_live(self, seat: int) -> int:
        live = [s for s in self.seg if s not in self.folded]
        return self._after(seat, live)[0]

    def in_duel(self) -> bool:
        return len(self.seg) == 2 and self.n > 2

    def falta(self) -> int:
        """K18, K12: what the leading side lacks to 30; 6 in a duel."""
        return 6 if self.in_duel() else CHICO - max(self.scores)

    def resto(self) -> int:
        """K17, K12: the resto of a contraflor al resto; at most 6 in a duel."""
        lacks = CHICO - max(self.scores)
        return min(6, lacks) if self.in_duel() else lacks

    # ---------------------------------------------------------------- interface

    def current_seat(self) -> int | None:
        if self.phase == "over":
            return None
        if self.phase in CHANCE_PHASES:
            return CHANCE
        if self.phase == "discard":
            return self.gallo()
        if self.phase in ("flor", "declare", "show"):
            return self._queue()[0]
        if self.asked:
            return self.asked[0]
        return self.turn

    def _queue(self) -> list[int]:
        if self.phase == "flor":
            return [s for s in self.seg if s not in self.flor_said]
        if self.phase == "declare":
            return self.decl_queue
        return [p[0] for p in self.provers]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def history(self) -> list[Action]:
        return list(self._history)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def round_number(self) -> int:
        return self.hand_no

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.n
        seats = self._game.teams()[self.winner]
        return [1.0 if s in seats else 0.0 for s in range(self.n)]

    def clone(self) -> TrucoState:
        return copy_fields(self)

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "draw":
            return Dealer(rng.randrange(self.n))
        if self.phase == "shuffle":
            order = list(CARDS)
            rng.shuffle(order)
            return Deal(tuple(order))
        raise IllegalAction("chance", f"no chance event in phase {self.phase}")

    # ---------------------------------------------------------------- legal actions

    # ---------------------------------------------------------------- apply

    def apply(self, action: Action | str) -> list[Any]:
        if isinstance(action, str):
            action = parse_action(action)
        if self.phase == "over":
            raise IllegalAction("K30", "the match is over")
        seat = self.current_seat()
        if isinstance(action, Void):
            if self.phase in ("draw", "shuffle"):
                raise IllegalAction("KD9", "only a hand in progress can be voided")
            self._void()
        elif seat == CHANCE:
            self._chance(action)
        else:
            assert seat is not None
            self._check(seat, action)
            self.actor = seat
            self._act(seat, action)
        self._history.append(action)
        return [action.public()]

    def _chance(self, action: Action) -> None:
        if self.phase == "draw" and isinstance(action, Dealer) and 0 <= action.seat < self.n:
            self.dealer = (action.seat - 1) % self.n  # the drawn seat deals first (K7)
            self._next_hand(first=True)
            return
        if self.phase == "shuffle" and isinstance(action, Deal):
            if action.order is not None and sorted(action.order) != sorted(CARDS):
                raise IllegalAction("K8", "a deal orders the 40 cards, each once")
            self._deal(action)
            return
        raise IllegalAction("K13", f"{action} is not a chance event of phase {self.phase}")

    def _check(self, seat: int, action: Action) -> None:
        """Refuse, changing nothing, what ``seat`` may not do now."""
        if (
            isinstance(action, Play)
            and self.phase == "play"
            and not self.asked
            and seat == self.turn
            and action.pos in self.hands[seat]
        ):  # the common case, without listing every legal action
            if action.card is None:
                raise HiddenCard("a card is played face up: play 7o@12 (K25)")
            self._check_flor_hidden(seat, action)
            return
        legal = self.legal_actions(seat)
        if isinstance(action, Play | Discard | Show):
            concealed = self.conceal(seat, action)
            if concealed not in {self.conceal(seat, a) for a in legal}:
                rule = {Play: "K26", Discard: "K9", Show: "K21"}[type(action)]
                raise IllegalAction(rule, f"seat {seat} cannot {action} now")
            if isinstance(action, Play):
                if action.card is None:
                    raise HiddenCard("a card is played face up: play 7o@12 (K25)")
                self._check_flor_hidden(seat, action)
            if isinstance(action, Show):
                self._judge_show(seat, action)
            return
        if action not in legal:
            rule = self._rule_of(action)
            raise IllegalAction(rule, f"seat {seat} cannot say {action} now")

    def _rule_of(self, action: Action) -> str:
        if isinstance(action, Declare) or action == Word("son buenas"):
            return "K20"
        word = str(action)
        if word in ("flor", "no flor"):
            return "K16"
        if word.startswith("con") or word.startswith("contra"):
            return "K17"
        if word in ENVIDO_BETS:
            return "K19" if not self.envido_chain else "K18"
        if word in TRUCO_CALLS or word.startswith("quiero "):
            return "K22"
        if word == "mazo":
            return "K25"
        if word == "paso":
            return "K14"
        return "K13"

    def _known_or(self, pos: Pos, card: str | None) -> str | None:
        known = self.face_up.get(pos) or self.known.get(pos)
        if card is not None and known is not None and known != card:
            raise IllegalAction("K2", f"position @{pos.index} holds {known}, not {card}")
        return card or known

    def _check_flor_hidden(self, seat: int, action: Play) -> None:
        """K21: with flor played, a seat that said *no flor* and shows three of a suit."""
        self._known_or(action.pos, action.card)
        if not self._game.flor or self.flor_said.get(seat, True):
            return
        cards = [self.face_up.get(p) for p in self.dealt[seat] if p != action.pos]
        cards.append(action.card)
        if None not in cards and is_flor(cards):  # type: ignore[arg-type]
            raise IllegalAction("K21", f"seat {seat} said no flor and holds one")

    def _judge_show(self, seat: int, action: Show) -> None:
        cards = [self._known_or(p, c) for p, c in action.cards]
        if None in cards:
            raise HiddenCard("a show carries its cards: show 1e@3 7e@7 (K21)")
        _, kind, declared = self.provers[0]
        if not self._proves(cards, kind, declared):  # type: ignore[arg-type]
            what = "a flor" if kind == "flor" else f"an envido of {declared}"
            raise IllegalAction("K21", f"{' '.join(cards)} do not make {what}")  # type: ignore[arg-type]

    def _act(self, seat: int, action: Action) -> None:
        phase = self.phase
        if phase == "discard":
            assert isinstance(action, Discard)
            self._discard(seat, action)
        elif phase == "flor":
            self.flor_said[seat] = action == Word("flor")
            self.calls.append([seat, str(action)])
            if not self._queue():
                self._flor_round_over()
        elif phase == "florbet":
            self._flor_answer(seat, str(action))
        elif phase == "declare":
            self._declare(seat, action)
        elif phase == "show":
            assert isinstance(action, Show)
            self._show(action)
        elif isinstance(action, Play):
            self._play(seat, action)
        else:
            self._word(seat, str(action))

    # ------------------------------------------------------------ the deal

    def _next_hand(self, first: bool = False) -> None:
        if not first:
            self.hand_no += 1
            self.chico_hand += 1
        self.dealer = (self.dealer + 1) % self.n
        self.dealt = [[] for _ in range(self.n)]
        self.hands = [[] for _ in range(self.n)]
        self.discarded = None
        self.face_up = {}
        self.known = {}
        self._new_segment([])
        self.phase = "shuffle"

    def void_round(self) -> Action | None:
        """KD9: the hand in progress is abandoned, unscored (duels already scored
        stand); the same dealer deals again."""
        return None if self.phase in ("draw", "shuffle", "over") else Void()

    def _void(self) -> None:
        self.dealer = (self.dealer - 1) % self.n  # _next_hand passes the deal on
        self.chico_hand -= 1
        self.segments = []
        self._next_hand()

    def _deal(self, action: Deal) -> None:
        """K8: position k to seat (m + k) mod n; with 3 players position 9 is the
        gallo's fourth card (K9); the rest is never revealed."""
        m = self.mano()
        for k in range(3 * self.n):
            self.dealt[(m + k) % self.n].append(POSITIONS[k])
        gallo = self.gallo()
        if gallo is not None:
            self.dealt[gallo].append(POSITIONS[9])
        self.hands = [list(d) for d in self.dealt]
        if action.order is not None:
            self.known = dict(zip(POSITIONS, action.order, strict=True))
        if gallo is not None:
            self.phase = "discard"
        else:
            self._start_segments()

    def _discard(self, seat: int, action: Discard) -> None:
        """K9: the gallo's fourth card, never revealed, never played."""
        self.dealt[seat].remove(action.pos)
        self.hands[seat].remove(action.pos)
        self.discarded = action.pos
        self._start_segments()

    def _pica_pica_hand(self) -> bool:
        """K11: 6 and 8 players alternate redondo and pica-pica, from redondo, until a
        team has 25 (or both 15, with ``pica_pica_until = both_buenas``)."""
        game = self._game
        if self.n not in (6, 8) or not game.pica_pica or self.chico_hand % 2 == 0:
            return False
        if max(self.scores) >= 25:
            return False
        return not (game.pica_pica_until == "both_buenas" and min(self.scores) >= 15)

    def _start_segments(self) -> None:
        m = self.mano()
        self.pica = self._pica_pica_hand()
        if self.pica:  # K12: even seat s against seat s + 3, in the order of their manos
            duels = [self.order_from(m, [s, (s + 3) % self.n]) for s in range(0, self.n, 2)]
            self.segments = sorted(duels, key=lambda d: (d[0] - m) % self.n)
        else:
            self.segments = [self.order_from(m, list(range(self.n)))]
        self._start_segment()

    def _start_segment(self) -> None:
        self._new_segment(self.segments.pop(0))
        self.phase = "flor" if self._game.flor else "play"

    # ------------------------------------------------------------ tricks

    def _play(self, seat: int, action: Play) -> None:
        assert action.card is not None
        self.hands[seat].remove(action.pos)
        self.face_up[action.pos] = action.card
        self.known[action.pos] = action.card
        self.tricks[-1].append((seat, action.pos, action.card))
        if seat not in self.played:
            self.played.append(seat)
        self._after_card(seat)

    def _after_card(self, seat: int) -> None:
        trick = self.tricks[-1]
        done = {s for s, _, _ in trick}
        live = [s for s in self.seg if s not in self.folded]
        if all(s in done for s in live):
            self._end_trick()
        else:
            self.turn = self._next_live(seat)

    def _end_trick(self) -> None:
        """K26: the highest level wins; opponents sharing it make a parda."""
        trick = self.tricks[-1]
        top = max(LEVEL[c] for _, _, c in trick)
        at_top = [s for s, _, c in trick if LEVEL[c] == top]
        sides = {self.side(s) for s in at_top}
        if len(sides) > 1:
            self.results.append(PARDA)
            lead = trick[0][0]
        else:
            self.results.append(sides.pop())
            lead = at_top[0]
        winner = self._hand_winner()
        if winner is not None:
            self.truco_pts = [winner, self.truco_level]
            self._end_segment()
            return
        self.tricks.append([])
        self.leader = lead if lead not in self.folded else self._next_live(lead)
        self.turn = self.leader

    def _hand_winner(self) -> int | None:
        """K27."""
        r = self.results
        if len(r) == 2:
            r1, r2 = r
            if r1 == r2 and r1 != PARDA:
                return r1
            if PARDA in (r1, r2) and r1 != r2:
                return r1 if r2 == PARDA else r2
            return None
        if len(r) == 3:
            r1, r2, r3 = r
            if r3 != PARDA:
                return r3
            return r1 if r1 != PARDA else self.side(self.seg[0])
        return None

    # ------------------------------------------------------------ end of a segment

    def _maybe_end_early(self) -> bool:
        """K28: the hand ends once the flor and envido points reach 30."""
        scores = list(self.scores)
        for side, points in self._items(truco=False):
            for unit in self.units_of(side):
                scores[unit] += points
            if max(scores) >= CHICO:
                self._end_segment()
                return True
        return False

    def _items(self, truco: bool = True) -> list[list[int]]:
        items = [list(i) for i in self.flor_pts]  # K28: flor, envido, truco
        if self.envido_pts is not None:
            items.append(list(self.envido_pts))
        if truco and self.truco_pts is not None:
            items.append(list(self.truco_pts))
        return items

    def _end_segment(self) -> None:
        """K21: the flores and the winning envido are shown, in order from the mano."""
        self.asked, self.truco_call, self.envido_bettor = [], None, None
        provers: list[list[Any]] = []
        declared = dict((s, v) for s, v in self.declared)
        for seat in self.seg:
            if self.flor_said.get(seat):
                value_ = declared.get(seat, -1) if self.decl_kind == "flor" else -1
                provers.append([seat, "flor", value_])
            elif seat == self.envido_winner:
                provers.append([seat, "envido", declared[seat]])
        self.provers = provers
        if provers:
            self.phase = "show"
        else:
            self._score()

    def _show(self, action: Show) -> None:
        for pos, card in action.cards:
            card = self._known_or(pos, card)
            assert card is not None
            self.face_up[pos] = card
            self.known[pos] = card
        self.provers.pop(0)
        if not self.provers:
            self._score()

    def _score(self) -> None:
        """K28-K30: points in the order flor, envido, truco; at 30 the chico ends and
        the rest is dropped; two chicos (or one) win the match."""
        self.last_scored = []
        chico_over = False
        for side, points in self._items():
            self.last_scored.append([side, points])
            for unit in self.units_of(side):
                self.scores[unit] = min(CHICO, self.scores[unit] + points)
            if max(self.scores) >= CHICO:
                chico_over = True
                break
        if not chico_over:
            if self.segments:
                self._start_segment()
            else:
                self._next_hand()
            return
        top = max(self.scores)
        winner = next(u for u in self._unit_order() if self.scores[u] == top)  # K10
        self.chicos[winner] += 1
        if self.chicos[winner] >= self._game.chicos // 2 + 1:
            self.winner = winner
            self.phase = "over"
            self.hands = [[] for _ in range(self.n)]
            return
        self.scores = [0] * len(self.scores)
        self.chico_hand = -1
        self.segments = []
        self._next_hand()

    def _unit_order(self) -> list[int]:
        if self._game.rotating:
            return self.order_from(self.mano(), [0, 1, 2])
        return sorted(range(len(self.scores)), key=lambda u: u != self.side(self.mano()))
