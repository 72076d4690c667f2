"""What a Lutin & Troll table hides and shows (docs/games/lutin.md), for the table
that runs the game without knowing it (docs/engine.md): the next step it must run
(:meth:`LutinHidden.next_step`: a shuffle, a sealed choice, its opening, a reveal),
who sees which position, what a decision reveals, and how a bot samples what it
cannot see (:meth:`LutinHidden.determinise`, from the seat's own view alone). A mixin
of :class:`~trutnet.games.lutin.rules.state.LutinState`."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from trutnet.engine.api import Action
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import (
    Holder,
    JointRandom,
    Open,
    Pos,
    Reveal,
    SecretChoice,
    Shuffle,
    Step,
    Told,
    Turn,
)
from trutnet.games.lutin.rules.actions import (
    LABELS,
    BonusPick,
    Dealt,
    First,
    PlayPos,
    Seal,
    Show,
    TokenPlay,
)
from trutnet.games.lutin.rules.cards import (
    COPY_NAMES,
    DECKS,
    KINDS,
    MAX_HP,
    SEATS,
    WIN_VP,
    kind,
    kinds_listed,
)
from trutnet.games.lutin.rules.expert import TOKEN_PHASES
from trutnet.games.lutin.rules.powers import TOKEN_DECK, TOKEN_NAMES, targets

if TYPE_CHECKING:
    from trutnet.games.lutin.rules.state import LutinState


class LutinHidden:
    """Mixed into :class:`LutinState`: see the module."""

    def next_step(self) -> Step | None:
        phase = self.phase
        if phase == "over":
            return None
        if phase == "coin":
            return JointRandom("first-attacker", (First(0), First(1)))  # L5
        if phase == "shuffle":
            return Shuffle(self.to_shuffle[0], Dealt(self.to_shuffle[0]))  # L31
        if phase == "reveal":
            positions = tuple(p for hand in self.hand_pos for p in hand)
            return Reveal(positions, Show(tuple((p, None) for p in positions)))  # L15
        if phase == "choose":
            seat, slot = self.queue[0]
            return SecretChoice(seat, LABELS[slot], Seal())  # L16
        if phase in ("open", "end_open"):
            seat, slot = self.queue[0]
            return Open(seat, LABELS[slot])  # L16, L15
        if phase in TOKEN_PHASES or phase == "tshuffle":
            return self._token_step()
        seat = self.current_seat()
        assert seat is not None
        return Turn(seat)

    def sight(self) -> Mapping[int, frozenset[Pos]]:
        if self.phase == "over":
            return {}
        if self.power:
            return {s: frozenset(self.tok_pos[s]) for s in range(SEATS)}  # L21: its own
        if not self.initiation:
            return {}
        return {s: frozenset(self.hand_pos[s]) for s in range(SEATS)}  # L31: to its owner

    def holders(self) -> Mapping[Holder, tuple[Pos, ...]]:
        held: dict[Holder, tuple[Pos, ...]] = {}
        if self.power:
            return self._token_holders()
        if not self.initiation or self.to_shuffle:
            return held
        for s in range(SEATS):
            held[s] = tuple(self.hand_pos[s])
            held[f"pioche{s}"] = tuple(self.deck_pos[s])
        held["defausse"] = tuple(self.gone_pos)
        return held

    def reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        if self.power:
            return self._token_reveals(seat, action)
        if not isinstance(action, PlayPos):
            return ()
        if self.phase not in ("attack", "riposte") or seat != self.current_seat():
            raise IllegalAction("turn", f"seat {seat} plays no card now")
        if action.pos not in self.hand_pos[seat]:
            raise IllegalAction("L6", f"{action.pos} is not in seat {seat}'s hand")
        return (action.pos,)

    def conceal(self, seat: int, action: Action) -> Action:
        if isinstance(action, PlayPos):
            if action.pos not in self.hand_pos[seat]:
                raise IllegalAction("L6", f"{action.pos} is not in seat {seat}'s hand")
            return PlayPos(action.pos)
        if self.power:
            return self._token_conceal(seat, action)
        return action

    def identify(self, action: Action, cards: Mapping[Pos, str]) -> Action:
        if isinstance(action, PlayPos) and action.pos in cards:
            return PlayPos(action.pos, kind(cards[action.pos]))
        if isinstance(action, Show):
            return Show(tuple((p, kind(cards[p]) if p in cards else c) for p, c in action.cards))
        return self._token_identify(action, cards)

    def see(self, pos: Pos, card: str) -> None:
        if self.power and pos.deck == TOKEN_DECK.name:
            self._see_token(pos, card)
            return
        if pos.deck not in {d.name for d in DECKS} or pos.index >= len(COPY_NAMES):
            raise IllegalAction("hidden", f"no position {pos} in this game")
        if card not in COPY_NAMES:
            raise IllegalAction("hidden", f"{pos} cannot hold {card!r}")
        if self.known.get(pos, card) != card:
            raise IllegalAction("hidden", f"{pos} is already known as {self.known[pos]}")
        self.known[pos] = card

    def identity_of(self, pos: Pos) -> str | None:
        return self.known.get(pos)

    # ---------------------------------------------------------------- for a search

    def determinise(self, seat: int, rng: random.Random, told: Sequence[Told] = ()) -> LutinState:
        """A copy where every card ``seat`` has not seen is drawn anew with ``rng``
        (``GameState.determinise``). Base: the other seat's sealed hand cards, drawn
        from its pioche as it was when the hand was chosen less the cards opened since
        (public, L16, L17). Initiation: the unplayed positions of each deck that the
        seat does not hold, drawn from that deck less the kinds shown (L15, L31).
        Expert: the tokens too (:meth:`_draw_tokens`)."""
        other = self.clone()
        other._history = [a.public() for a in self._history]
        if self.initiation:
            other.known = self._deal_unseen(seat, rng)
            return other
        if self.power:
            self._draw_tokens(other, seat, rng)
        mine = {key: card for key, card in self.secrets.items() if key[0] == seat}
        for o in range(SEATS):
            slots = sorted(k for (s, k) in self.secrets if s == o)
            if o == seat or not slots:
                continue
            draw = rng.sample(kinds_listed(self.pool[o]), len(slots))
            mine.update(((o, k), card) for k, card in zip(slots, draw, strict=True))
            other.chosen[o] = [draw.count(k) for k in KINDS]
        other.secrets = mine
        return other

    def _draw_tokens(self, other: LutinState, seat: int, rng: random.Random) -> None:
        """Expert, into ``other``: the tokens ``seat`` has not seen (the other seat's,
        the three set aside: L21, L33) drawn from those not shown to it (its own, the
        face-up ones); the other seat's sealed token choices forgotten (its opening is
        then any choice its tokens allow, L32), but a bonus token (L30), drawn from the
        face-up ones it was chosen among, and one that fits the target it was played
        on; and a token choice sealed in this window, drawn among those its tokens
        allow (its opening checks it, L22)."""
        other.known = {p: c for p, c in self.known.items() if p.deck != TOKEN_DECK.name}
        if self.aside:  # dealt (L21)
            shown = [*self.tok_pos[seat], *self.spent]
            known = {p: self.known[p] for p in shown if p in self.known}
            names = [n for n in TOKEN_NAMES if n not in known.values()]
            unseen = [TOKEN_DECK.position(i) for i in range(len(TOKEN_NAMES))]
            unseen = [p for p in unseen if p not in known]
            rng.shuffle(names)
            known.update(zip(unseen, names, strict=True))
            other.known.update(known)
        other.tsecrets = {k: a for k, a in self.tsecrets.items() if k[0] == seat}
        o = 1 - seat
        if self.bonus_seat == o and self.bonus_name is None and self.phase != "bonus":
            names = list(dict.fromkeys(self.bonus_from))
            played = self.window.get(o)
            if played is not None and played.source == "bonus":  # L30: played on a target
                fits = [n for n in names if played.target in self._targets(o, n)]
                names = fits or names
            other.tsecrets[o, "bonus"] = BonusPick(rng.choice(names))
        waiting = [s for s, _ in self.tq]
        sealed = o in self.window_seats and (
            (self.phase == "window" and o not in waiting)
            or (self.phase == "window_open" and o in waiting)
        )
        if sealed:  # L22: its token choice, drawn among those its tokens allow (L32)
            plays = [a for a in other._token_legal(o) if self._fits(other, o, a)]
            other.tsecrets[o, "token"] = rng.choice(plays)

    def _fits(self, other: LutinState, seat: int, play: Action) -> bool:
        """Whether ``play`` (a token choice) is one ``seat``'s token can take in
        ``other``, where every token is known (L22)."""
        if not isinstance(play, TokenPlay) or play.source is None:
            return True
        name = other._name(seat, play)
        return name is not None and play.target in self._targets(seat, name)

    def _targets(self, seat: int, name: str) -> list[str | None]:
        return targets(self.power or "", name, self._defausse_kinds(seat), self.slots[seat])

    def _deal_unseen(self, seat: int, rng: random.Random) -> dict[Pos, str]:
        known: dict[Pos, str] = {}
        for t, deck in enumerate(DECKS):
            if self.to_shuffle and deck.name in self.to_shuffle:
                continue  # not shuffled yet: nothing dealt from it
            positions = [Pos(deck.name, i) for i in range(len(COPY_NAMES))]
            seen = {p: self.known[p] for p in self.hand_pos[t] if t == seat and p in self.known}
            names = [n for n in COPY_NAMES if n not in seen.values()]
            gone = Counter(kinds_listed(self.defausse[t]))
            gone.update(c for s, c in self.table if s == t)
            known.update(seen)
            for p in (p for p in positions if p in self.gone_pos):
                name = next(n for n in names if gone[kind(n)] > 0)  # any copy of its kind
                gone[kind(name)] -= 1  # type: ignore[index]
                names.remove(name)
                known[p] = name
            rng.shuffle(names)
            unseen = [p for p in positions if p not in known]
            known.update(zip(unseen, names, strict=True))
        return known

    def outlook(self, seat: int) -> float:
        """Victory points (five win, L3), then hit points, of the seat against the
        other's: 1 once won, 0 once lost."""
        if self.phase == "over":
            return 1.0 if self.winner == seat else 0.0
        o = 1 - seat
        lead = self.vp[seat] - self.vp[o] + 0.5 * (self.hp[seat] - self.hp[o]) / MAX_HP
        return min(1.0, max(0.0, 0.5 + 0.5 * lead / WIN_VP))
