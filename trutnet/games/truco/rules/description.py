"""Truco's hidden-information description and views: what the table runs next, who
sees and holds each position, what a decision reveals (K8, K9, K15, K21, K25,
``docs/engine.md``), the public state every replica hashes alike, and a seat's
observation. A mixin of :class:`~trutnet.games.truco.rules.state.TrucoState`."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from trutnet.engine.api import Action, GameState
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import Holder, JointRandom, Pos, Shuffle, Signs, Step, Told
from trutnet.games.truco.rules.actions import Deal, Dealer, Discard, Play, Show
from trutnet.games.truco.rules.cards import (
    CARDS,
    DECK,
    DECK_NAME,
    POSITIONS,
    SIGN_MENU,
    SIGN_MENU_NO_FLOR,
    SIGNS_A_HAND,
    envido,
    flor,
    hands_declaring,
    is_flor,
    sign_cards,
    sign_tells,
)
from trutnet.games.truco.rules.observation import TrucoObservation


class TrucoDescription(GameState):
    """The description and the views (mixed into ``TrucoState``)."""

    # ---------------------------------------------------------------- hidden information

    def next_step(self) -> Step | None:
        if self.phase == "over":
            return None
        if self.phase == "draw":  # K7
            return JointRandom("first-dealer", tuple(Dealer(s) for s in range(self.n)))
        if self.phase == "shuffle":  # K8
            return Shuffle(DECK_NAME, Deal())
        return super().next_step()

    def signs(self, seat: int) -> Signs | None:
        """K15: with the option ``senas``, a seat signs to the partners of its segment
        while it holds a card and no bet waits for its own answer; each opponent of the
        segment catches the sign with the chance ``senas_catch`` quarters."""
        game = self.game
        if not game.senas or self.phase in ("over", "draw", "shuffle"):
            return None
        if seat not in self.seg or not self.hands[seat] or seat in self.asked:
            return None
        side = self.side(seat)
        partners = tuple(s for s in self.seg if s != seat and self.side(s) == side)
        if not partners:  # a pica-pica duel (K11)
            return None
        watchers = tuple(s for s in self.seg if self.side(s) != side)
        menu = SIGN_MENU if game.flor else SIGN_MENU_NO_FLOR
        return Signs(menu, partners, watchers, (game.senas_catch, 4), self.hand_no, SIGNS_A_HAND)

    def sight(self) -> Mapping[int, frozenset[Pos]]:
        """K8, K15: a seat sees its own dealt cards, nothing of a partner's."""
        if self.phase in ("over", "draw", "shuffle"):
            return {}
        sight = {s: frozenset(self.dealt[s]) for s in range(self.n)}
        gallo = self.gallo()
        if gallo is not None and self.discarded is not None:
            sight[gallo] = sight[gallo] | {self.discarded}
        return sight

    def holders(self) -> Mapping[Holder, tuple[Pos, ...]]:
        if self.phase in ("over", "draw", "shuffle"):
            return {}
        held: dict[Holder, tuple[Pos, ...]] = {s: tuple(self.hands[s]) for s in range(self.n)}
        held["table"] = tuple(
            sorted(p for p in self.face_up if all(p not in h for h in self.hands))
        )
        held["discard"] = (self.discarded,) if self.discarded is not None else ()
        dealt = 3 * self.n + (1 if self.n == 3 else 0)
        held["stock"] = tuple(POSITIONS[i] for i in range(dealt, len(CARDS)))
        return held

    def reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        if isinstance(action, Play):
            if seat != self.current_seat() or action.pos not in self.hands[seat]:
                raise IllegalAction(
                    "K26", f"@{action.pos.index} is not a card seat {seat} may play now"
                )
            return (action.pos,)
        if isinstance(action, Show):
            if self.phase != "show" or seat != self.current_seat():
                raise IllegalAction("K21", f"seat {seat} has nothing to show now")
            options = {s.positions for s in self._shows(seat) if isinstance(s, Show)}
            if action.positions not in options:
                raise IllegalAction("K21", f"{action} does not name cards that can prove it")
            return tuple(p for p in action.positions if p not in self.face_up)
        return ()

    def conceal(self, seat: int, action: Action) -> Action:
        if isinstance(action, Play):
            return Play(action.pos)
        if isinstance(action, Discard):
            return Discard(action.pos)
        if isinstance(action, Show):
            return Show(tuple((p, None) for p in action.positions))
        return action

    def identify(self, action: Action, cards: Mapping[Pos, str]) -> Action:
        if isinstance(action, Play):
            return Play(action.pos, cards.get(action.pos, action.card))
        if isinstance(action, Show):
            return Show(tuple((p, cards.get(p, self.face_up.get(p, c))) for p, c in action.cards))
        return action

    def see(self, pos: Pos, card: str) -> None:
        if pos.deck != DECK_NAME or pos.index >= len(CARDS) or card not in DECK.cards:
            raise IllegalAction("K2", f"{pos} cannot hold {card!r}")
        if self.known.get(pos, card) != card:
            raise IllegalAction("K2", f"{pos} is already known as {self.known[pos]}")
        self.known[pos] = card

    def identity_of(self, pos: Pos) -> str | None:
        return self.known.get(pos)

    # ---------------------------------------------------------------- for a search

    TRIES = 64  # random draws of one seat's hidden cards before trying every set

    def determinise(self, seat: int, rng: random.Random, told: Sequence[Told] = ()) -> Any:
        """A copy where every card ``seat`` has not seen is dealt anew with ``rng``
        (``GameState.determinise``): it knows what it was dealt (and, the gallo, its
        discard: K9) and every card face up (K21, K26); each other seat's hidden kept
        cards are drawn from the rest to agree with what it said in this segment (a
        flor or no flor, K16; a declared envido or flor value, K20) and with the signs
        of this hand ``seat`` was shown (``told``, K15: :func:`sign_tells`), see
        :meth:`_draw_agreeing`; the stock and the other discards get what is left."""
        other = self.clone()
        other._history = [a.public() for a in self._history]
        if self.phase in ("draw", "shuffle", "over"):  # no hand dealt: nothing hidden
            other.known = {}
            return other
        seen = set(self.sight().get(seat, ())) | set(self.face_up)
        known: dict[Pos, str] = {}
        for p in seen:
            card = self.face_up.get(p) or self.known.get(p)
            if card is not None:
                known[p] = card
        taken = set(known.values())
        pool = [c for c in CARDS if c not in taken]
        declared = {s: v for s, v in self.declared if v >= 0}
        signed: dict[int, tuple[str, ...]] = {}
        for sign in told:
            if sign.period == self.hand_no and 0 <= sign.seat < self.n:
                signed[sign.seat] = (*signed.get(sign.seat, ()), sign.card)
        said = set(self.flor_said) | set(signed)
        for o in sorted(range(self.n), key=lambda s: (s not in said, s)):
            hidden = [p for p in self.dealt[o] if p not in known]
            if o == seat or not hidden:
                continue
            shown = [known[p] for p in self.dealt[o] if p in known]
            said_by = (declared.get(o), signed.get(o, ()))
            draw = self._draw_agreeing(o, shown, len(hidden), pool, said_by, rng)
            known.update(zip(hidden, draw, strict=True))
            for card in draw:
                pool.remove(card)
        rng.shuffle(pool)
        rest = [p for p in POSITIONS if p not in known]
        known.update(zip(rest, pool, strict=True))
        other.known = {p: known[p] for p in POSITIONS}
        return other

    def _draw_agreeing(
        self,
        seat: int,
        shown: list[str],
        count: int,
        pool: list[str],
        said: tuple[int | None, tuple[str, ...]],
        rng: random.Random,
    ) -> list[str]:
        """``count`` cards of ``pool`` that ``seat``, which showed ``shown``, could hold
        (:meth:`_agrees`): up to :attr:`TRIES` draws (:meth:`_propose`), then one of
        every agreeing set; a random draw if none agrees. A sign that cannot be true
        here (its card is elsewhere: a sign can lie) is not heeded."""
        declared, signs = said
        held = set(shown)
        needs = []  # the cards signed for that the draw must bring, a set per sign
        for sign in signs:
            need = sign_cards(sign) & (held | set(pool))
            if sign_cards(sign) and not need:
                signs = tuple(s for s in signs if s != sign)  # a lie: untold
            elif need and held.isdisjoint(need) and need not in needs:
                needs.append(need)
        said = (declared, signs)
        if len(needs) > count:
            needs = []
        for _ in range(self.TRIES):
            draw = self._propose(pool, count, needs, rng)
            if draw is not None and self._agrees(seat, shown + draw, said):
                return draw
        if count > 3:
            return rng.sample(pool, count)
        if declared is not None and count + len(shown) == 3:  # the hands worth it (K20)
            kind = "flor" if self.decl_kind == "flor" else "envido"
            free = set(pool)
            rests = ([c for c in hand if c not in held] for hand in hands_declaring(kind, declared))
            fits = [
                rest
                for rest in rests
                if len(rest) == count
                and free.issuperset(rest)
                and self._agrees(seat, shown + rest, said)
            ]
        else:
            fits = [
                list(c)
                for c in combinations(pool, count)
                if self._agrees(seat, shown + list(c), said)
            ]
        return rng.choice(fits) if fits else rng.sample(pool, count)

    @staticmethod
    def _propose(
        pool: list[str], count: int, needs: list[frozenset[str]], rng: random.Random
    ) -> list[str] | None:
        """``count`` cards of ``pool`` holding a card of each of ``needs``, uniformly
        among such draws (for one need exactly): one card of each need, the rest at
        random, kept with the chance one in the number of ways it could have been
        made, else None."""
        if not needs:
            return rng.sample(pool, count)
        draw: list[str] = []
        for need in needs:
            if need.isdisjoint(draw):  # each need has a card of the pool
                draw.append(rng.choice([c for c in pool if c in need]))
        draw += rng.sample([c for c in pool if c not in draw], count - len(draw))
        ways = 1
        for need in needs:
            ways *= sum(1 for c in draw if c in need)
        return draw if ways == 1 or rng.randrange(ways) == 0 else None

    def _agrees(
        self, seat: int, cards: list[str], said: tuple[int | None, tuple[str, ...]]
    ) -> bool:
        """Whether ``seat`` holding ``cards`` (its three kept ones) could have said what
        it said in this segment: flor or not (K16), the value it declared (K20), the
        signs it made that the sampling seat was shown (K15)."""
        if len(cards) != 3:
            return True
        declared, signs = said
        flor_said = self.flor_said.get(seat)
        if flor_said is not None and self._game.flor and flor_said != is_flor(cards):
            return False
        if not all(sign_tells(cards, sign, self._game.flor) for sign in signs):
            return False
        if declared is None:
            return True
        return (flor(cards) if self.decl_kind == "flor" else envido(cards)) == declared

    def outlook(self, seat: int) -> float:
        """Chicos (30 points each, K30) and points of the seat's side against the best
        other's, scaled to the chicos that win: 1 once won, 0 once lost."""
        teams = self._game.teams()
        mine = next(t for t, seats in enumerate(teams) if seat in seats)
        if self.phase == "over":
            return 1.0 if self.winner == mine else 0.0
        points = [30 * c + s for c, s in zip(self.chicos, self.scores, strict=True)]
        best = max(p for t, p in enumerate(points) if t != mine)
        return 0.5 + 0.5 * (points[mine] - best) / (30 * (self._game.chicos // 2 + 1))

    # ---------------------------------------------------------------- views

    def public_state(self) -> dict[str, Any]:
        return {
            "game": "truco",
            "config": self._game.config_dict(),
            "phase": self.phase,
            "to_act": self.current_seat(),
            "dealer": self.dealer,
            "hand": self.hand_no,
            "chico_hand": self.chico_hand,
            "scores": list(self.scores),
            "chicos": list(self.chicos),
            "winner": self.winner,
            "hands": [[p.index for p in h] for h in self.hands],
            "dealt": [[p.index for p in h] for h in self.dealt],
            "discarded": None if self.discarded is None else self.discarded.index,
            "face_up": sorted([p.index, c] for p, c in self.face_up.items()),
            "segments": [list(s) for s in self.segments],
            "pica": self.pica,
            "seg": list(self.seg),
            "folded": list(self.folded),
            "tricks": [[[s, p.index, c] for s, p, c in t] for t in self.tricks],
            "results": list(self.results),
            "turn": self.turn,
            "truco": [self.truco_level, self.truco_owner, self.truco_called, self.truco_call],
            "envido": [list(self.envido_chain), self.envido_bettor, self.envido_points],
            "asked": list(self.asked),
            "flor": [
                sorted([s, f] for s, f in self.flor_said.items()),
                self.flor_stage,
                self.flor_resto_side,
                self.flor_amount,
            ],
            "declare": [
                self.decl_kind,
                list(self.decl_queue),
                [list(d) for d in self.declared],
                self.best,
            ],
            "points": [self.flor_pts, self.envido_pts, self.truco_pts, self.last_scored],
            "provers": [list(p) for p in self.provers],
        }

    def observation(self, seat: int) -> TrucoObservation:
        if not 0 <= seat < self.n:
            raise IllegalAction("K6", f"no seat {seat}")
        return TrucoObservation(
            seat=seat,
            phase=self.phase,
            to_act=self.current_seat(),
            legal=tuple(self.legal_actions(seat)),
            players=self.n,
            sides=tuple(self.side(s) for s in range(self.n)),
            dealer=self.dealer,
            mano=self.mano(),
            hand_no=self.hand_no,
            scores=tuple(self.scores),
            chicos=tuple(self.chicos),
            winner=self.winner,
            seg=tuple(self.seg),
            pica=self.pica,
            folded=tuple(self.folded),
            hand=tuple((p, self.known.get(p)) for p in self.hands[seat]),
            kept=tuple((p, self.known.get(p)) for p in self.dealt[seat]),
            tricks=tuple(tuple((s, c) for s, _, c in t) for t in self.tricks),
            results=tuple(self.results),
            truco_level=self.truco_level,
            truco_call=None if self.truco_call is None else tuple(self.truco_call),
            envido_chain=tuple(self.envido_chain),
            envido_waiting=self.envido_bettor is not None,
            declared=tuple((s, v) for s, v in self.declared),
            calls=tuple((s, w) for s, w in self.calls),
            last_scored=tuple((s, p) for s, p in self.last_scored),
        )
