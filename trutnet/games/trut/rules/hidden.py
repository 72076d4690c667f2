"""Trut's hidden information, in the engine's words (:mod:`trutnet.engine.hidden`).

One deck, ``french32`` (the 32 cards in index order, ``docs/games/trut.md``); a hand's
positions are held by the seats, the ``stock``, the ``discard`` (la Chanson's
``keep``) and the ``table`` (played cards). What a table of peers must do:

* the first-Donneur draw [T3]: joint draws among the cards not drawn yet;
* each hand [T4]: a joint shuffle, then ``deal`` (no card named);
* each seat sees its own cards; during the Fortial decision the opponents of the
  Fortial team do not [T15]: their positions enter their sight once the decision is
  over and the hand goes on, and never if it ends without play;
* la Chanson [T19]: ``sing N`` puts new positions in each seat's sight; ``keep``
  discards by position, never revealed;
* a ``play`` reveals its position to everyone [T5].

Deluxe adds (T25-T42): the pool, the talon, the Hare's and the Nutria's cards; the
Falcon's step [T33]: a ``Locate`` of the Falcon among every dealt hand position, then
the partners' cards in its holder's sight; the Weasel's exchange (a ``give @p``
concealed to its position, then a ``JointRandom`` over the target's positions; each
card enters its new owner's sight) and its replaced hand (new stock positions in the
target's sight) [T37]; the set-aside Hedgehog, held by ``"hedgehog"`` and left out of
the next shuffles while it protects (T42, D21, D23).

This mixin holds what a replica knows (``known``) and answers the description's
questions from :class:`~trutnet.games.trut.rules.state.TrutState`'s public fields.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from trutnet.engine.api import Action
from trutnet.engine.errors import HiddenCard, IllegalAction, NotationError
from trutnet.engine.hidden import (
    Deck,
    Holder,
    JointRandom,
    Pos,
    Reveal,
    Shuffle,
    Step,
    Told,
    Turn,
)
from trutnet.games.trut.rules.actions import (
    CardRef,
    Deal,
    Draw,
    FalconShown,
    HareDraw,
    HedgehogAside,
    Keep,
    NutriaDraw,
    Play,
    Power,
    Prepare,
    Swap,
    parse_any_card,
)
from trutnet.games.trut.rules.cards import FULL_DECK, Card
from trutnet.games.trut.rules.deluxe.cards import AnyCard, Special
from trutnet.games.trut.rules.deluxe.hedgehog import HEDGEHOG_PILE
from trutnet.games.trut.rules.deluxe.powers import DIE
from trutnet.games.trut.rules.deluxe.rules import POOL_DECK
from trutnet.games.trut.rules.deluxe.sampling import deluxe_determinise

if TYPE_CHECKING:
    from trutnet.games.trut.rules.words import TrutCall

DECK = Deck("french32", tuple(str(c) for c in FULL_DECK))
"""The 32 cards, a card's encoding being its index (``docs/games/trut.md``)."""
DECK_SIZE = len(DECK)


_POSITIONS = tuple(DECK.position(i) for i in range(DECK_SIZE))


def pos(index: int) -> Pos:
    """The position ``index`` of Trut's deck."""
    return _POSITIONS[index] if 0 <= index < DECK_SIZE else Pos(DECK.name, index)


class TrutHidden:
    """Hidden-information bookkeeping of a Trut state (mixed into ``TrutState``)."""

    # Fields of TrutState read here.
    n: int
    phase: str
    to_act: int | None
    team_of: tuple[int, ...]
    fortial_team: int | None
    known: dict[int, AnyCard]  # private: identities this replica was shown
    deluxe: bool
    deck_size: int
    deck_name: str
    falcon_holder: int | None
    hare_drawn: list[int]
    nutria_offer: list[int]
    nutria_gone: list[int]
    carried: bool
    kept: list[int]
    pool_holdings: list[list[int]]
    pool_known: dict[int, Special]
    bonus_cards: bool

    if TYPE_CHECKING:  # DeluxeRules' own

        def _pool_size(self) -> int: ...

        def _falcon_sight(self, seat: int) -> set[int]: ...

        def _falcon_step(self) -> Step: ...

        def _falcon_identify(self, cards: dict[Pos, str]) -> Action: ...

        def _hedgehog_step(self) -> Step: ...

        def _hedgehog_identify(self, cards: dict[Pos, str]) -> Action: ...

        def _swap_positions(self) -> tuple[int, ...]: ...

        def _next_talon(self) -> str: ...

        def _hedgehog_carry(self) -> tuple[Pos, ...]: ...

        def _hedgehog_holders(self) -> tuple[Pos, ...]: ...

        def _hedgehog_here(self) -> int | None: ...

    hedgehog_aside: Pos | None
    longs: list[int]
    petits: list[int]
    target: int
    winner: int | None
    _history: list[Action]
    holdings: list[list[int]]
    next_stock: int
    discarded: list[int]
    trick: list[tuple[int, int, Card]]
    tricks: list[tuple[tuple[tuple[int, int, Card], ...], int | None, int | None]]
    draw_used: set[Card]
    trut: TrutCall | None

    def learn(self, pos: int, card: AnyCard) -> None:
        """Record that this replica was shown the card at deck position ``pos``.

        Private knowledge (a networked seat decrypting its own cards): it never changes
        the public state or the hash. A contradiction with what is known is refused.
        """
        if not 0 <= pos < self.deck_size:
            raise IllegalAction("T4", f"no deck position {pos}")
        if isinstance(card, Special) and not self.deluxe:
            raise IllegalAction("T23", f"{card} is a special card: Trut without deluxe has none")
        if self.known.get(pos, card) != card:
            raise IllegalAction("T1", f"position {pos} is already known as {self.known[pos]}")
        if any(c == card and p != pos for p, c in self.known.items()):
            raise IllegalAction("T1", f"{card} is already known at another position")
        self.known[pos] = card

    def determinise(self, seat: int, rng: random.Random, told: Sequence[Told] = ()) -> Any:
        """A copy where every card ``seat`` has not seen is dealt anew with ``rng``
        (``GameState.determinise``): the seat knows its own hand (not during the
        Fortial decision, T15) and every played card (T5); the stock, the others'
        hands and la Chanson's discards (T19, its own too: not remembered here) are
        drawn from the rest of the 32 cards. Deluxe: its deck's specials and its pool
        too (:mod:`~trutnet.games.trut.rules.deluxe.sampling`)."""
        other = self.clone()  # type: ignore[attr-defined]
        other._history = [a.public() for a in self._history]
        if self.deluxe:
            return deluxe_determinise(other, seat, rng)
        if self.next_stock == 0:  # no hand dealt: nothing hidden in play
            other.known = {}
            return other
        seen = [p for cards, _, _ in self.tricks for _, p, _ in cards]
        seen += [p for _, p, _ in self.trick]
        if not self.hidden_from_owner(seat):
            seen += self.holdings[seat]
        known = {p: self.known[p] for p in seen if p in self.known}
        taken = set(known.values())
        pool = [c for c in FULL_DECK if c not in taken]
        rng.shuffle(pool)
        unknown = [p for p in range(self.deck_size) if p not in known]
        known.update(zip(unknown, pool, strict=True))
        other.known = dict(sorted(known.items()))
        return other

    def outlook(self, seat: int) -> float:
        """Petits and Longs (3 Petits a Long, D10) of the seat's team against the best
        other team's, scaled to the target: 1 once won, 0 once lost."""
        if self.phase == "over":
            return 1.0 if self.winner == self.team_of[seat] else 0.0
        points = [3 * long + petit for long, petit in zip(self.longs, self.petits, strict=True)]
        mine = points[self.team_of[seat]]
        best = max(p for t, p in enumerate(points) if t != self.team_of[seat])
        return 0.5 + 0.5 * (mine - best) / (3 * self.target)

    def hidden_from_owner(self, seat: int) -> bool:
        """T15: during the Fortial decision, the opponents may not see their own cards."""
        return (
            self.phase == "fortial"
            and self.fortial_team is not None
            and self.team_of[seat] != self.fortial_team
        )

    def hand_of(self, seat: int) -> list[Card]:
        """The known cards of ``seat`` (full knowledge: the whole hand)."""
        cards = []
        for p in self.holdings[seat]:
            card = self.known.get(p)
            if card is None:
                raise HiddenCard(f"position {p} of seat {seat} is not known here")
            cards.append(card)
        return cards

    # ------------------------------------------------------- the description

    def next_step(self) -> Step | None:
        if self.phase == "over":
            return None
        if self.phase == "draw":  # T3: face-up cards, from a joint draw (protocol 7.4)
            unused = tuple(Draw(c) for c in FULL_DECK if c not in self.draw_used)
            return JointRandom("first-donneur", unused)
        if self.phase == "die":  # T22, T30: a power's die, a joint draw
            return JointRandom("die", DIE)
        if self.phase == "swap":  # T37 (1): one of the target's positions, a joint draw
            return JointRandom("weasel", tuple(Swap(p) for p in self._swap_positions()))
        if self.phase == "nutria":  # T35: the next stock card replaces the Nutria
            at = self.next_stock
            return Reveal((self._pos(at),), NutriaDraw(CardRef(None, at)))
        if self.phase == "hare":  # T34: the next stock card, revealed to everyone
            at = self.next_stock
            return Reveal((self._pos(at),), HareDraw(CardRef(None, at)))
        if self.phase == "falcon":  # T33: the table finds the Falcon among the hands
            return self._falcon_step()
        if self.phase == "hedgehog":  # T42: the table finds it in the new pool (D22)
            return self._hedgehog_step()
        if self.phase == "prepare":  # T25: the pool, shuffled jointly once per game
            return Shuffle(POOL_DECK, Prepare(None))
        if self.phase == "deal" and self.deluxe:
            if self.carried:  # T26: the previous hand's ciphertexts, re-shuffled; T42:
                return Shuffle(self._next_talon(), Deal(None), self._hedgehog_carry())
            kept = tuple(Pos(POOL_DECK, p) for p in self.kept)  # T26: carried, never decrypted
            return Shuffle(DECK.name, Deal(None), kept)
        if self.phase == "deal":  # T4: an order that no seat learns
            return Shuffle(DECK.name, Deal(None))
        assert self.to_act is not None
        return Turn(self.to_act)

    def sight(self) -> Mapping[int, frozenset[Pos]]:
        if self.phase == "over":  # T11: no unplayed card is ever shown
            return {}
        if self.phase == "choose":  # T25: each seat its two specials
            return {
                s: frozenset(Pos(POOL_DECK, p) for p in self.pool_holdings[s])
                for s in range(self.n)
            }
        sight = {
            s: frozenset()
            if self.hidden_from_owner(s)
            else frozenset(map(self._pos, self.holdings[s]))
            for s in range(self.n)
        }
        if self.deluxe and self.nutria_offer and self.to_act is not None and self.to_act >= 0:
            sight[self.to_act] |= frozenset(map(self._pos, self.nutria_offer))  # T35
        holder = self.falcon_holder if self.deluxe else None
        if holder is not None:  # T33: the partners' cards, to the Falcon's holder
            sight[holder] |= frozenset(map(self._pos, self._falcon_sight(holder)))
        return sight

    def holders(self) -> Mapping[Holder, tuple[Pos, ...]]:
        pool = self._pool_holders() if self.deluxe else {}
        hedgehog = self._hedgehog_holders() if self.deluxe else ()
        if hedgehog:  # T42: set aside by its team's tokens, never captured
            pool[HEDGEHOG_PILE] = hedgehog
        if self.next_stock == 0:  # no deal in progress
            if self.deluxe and self.carried and self.phase == "deal":  # T26: to re-shuffle
                here = self._hedgehog_here()
                pool["returned"] = tuple(self._pos(i) for i in range(self.deck_size) if i != here)
            return pool
        played = [p for cards, _, _ in self.tricks for _, p, _ in cards]
        played += [p for _, p, _ in self.trick]
        here = self._hedgehog_here() if self.deluxe else None
        if here is not None:  # T42: set aside, not on the table
            played.remove(here)
        held: dict[Holder, tuple[Pos, ...]] = {
            s: tuple(map(self._pos, self.holdings[s])) for s in range(self.n)
        }
        held["stock"] = tuple(map(self._pos, range(self.next_stock, self.deck_size)))
        held["discard"] = tuple(map(self._pos, self.discarded))  # T19: never revealed
        held["table"] = tuple(map(self._pos, played))
        if self.deluxe:  # T34: the Hare's cards, shown, never captured; T35: the Nutria's
            held["drawn"] = tuple(map(self._pos, self.hare_drawn))
            held["offer"] = tuple(map(self._pos, self.nutria_offer))
            held["removed"] = tuple(map(self._pos, self.nutria_gone))
        if "aside" in pool:  # T25: the set-aside specials, never decrypted
            held["aside"] = pool["aside"]
        if hedgehog:
            held[HEDGEHOG_PILE] = hedgehog
        return held

    def _pool_holders(self) -> dict[Holder, tuple[Pos, ...]]:
        """T25: who holds each pool position: the seats while they choose, the kept
        ones until the first deal carries them, and the rest set aside."""
        if not self.kept and not any(self.pool_holdings):  # not prepared yet
            return {}
        size = self._pool_size()
        dealt = {p for h in self.pool_holdings for p in h}
        held: dict[Holder, tuple[Pos, ...]] = {
            s: tuple(Pos(POOL_DECK, p) for p in self.pool_holdings[s]) for s in range(self.n)
        }
        if not self.carried:
            held["kept"] = tuple(Pos(POOL_DECK, p) for p in self.kept)
        gone = set(self.kept)
        hedgehog = self.hedgehog_aside if self.deluxe else None
        if hedgehog is not None and hedgehog.deck == POOL_DECK:  # T42: its own holder
            gone.add(hedgehog.index)
        held["aside"] = tuple(
            Pos(POOL_DECK, p) for p in range(size) if p not in dealt and p not in gone
        )
        return held

    def _pos(self, index: int) -> Pos:
        """The position ``index`` of this hand's deck (Deluxe: the talon from the
        second hand on, T26)."""
        return pos(index) if self.deck_name == DECK.name else Pos(self.deck_name, index)

    def _index(self, p: Pos) -> int:
        if p.deck != self.deck_name or not 0 <= p.index < self.deck_size:
            raise IllegalAction("T4", f"no position {p} in Trut's deck")
        return p.index

    def reveals(self, seat: int, action: Action) -> tuple[Pos, ...]:
        if isinstance(action, Power) and action.verb == "pick":  # T35: shown to all
            ref = CardRef.parse(action.args[0])
            if self.phase != "power" or seat != self.to_act or ref.pos not in self.nutria_offer:
                raise IllegalAction("T35", f"seat {seat} cannot pick {ref} now")
            assert ref.pos is not None
            return (self._pos(ref.pos),)
        if not isinstance(action, Play):
            return ()
        # The checks of a play before its card is shown (T5; protocol 7.4).
        if self.phase != "play" or seat != self.to_act:
            raise IllegalAction("T5", f"seat {seat} cannot play a card now")
        index = action.ref.pos
        if index is None:
            raise NotationError("a play to reveal names its deck position (play @12)")
        if index not in self.holdings[seat]:
            raise IllegalAction("T5", f"position {index} was not dealt to seat {seat}")
        return (self._pos(index),)

    def conceal(self, seat: int, action: Action) -> Action:
        if isinstance(action, Power) and action.verb == "pick":  # T35: by position
            ref = CardRef.parse(action.args[0])
            return Power("pick", (f"@{ref.pos}",))
        if isinstance(action, Power) and action.verb == "give":  # T37: by position, unseen
            ref = CardRef.parse(action.args[0])
            return Power("give", (f"@{ref.pos}",))
        if isinstance(action, Play):
            return Play(CardRef(None, self._position(seat, action.ref)))
        if isinstance(action, Keep) and self.phase == "choose":  # T25: a position only
            ref = action.refs[0] if len(action.refs) == 1 else None
            if ref is None or ref.pos is None or ref.pos not in self.pool_holdings[seat]:
                raise IllegalAction("T25", f"{action} is not one of seat {seat}'s specials")
            return Keep((CardRef(None, ref.pos),))
        if isinstance(action, Keep):  # by positions, in increasing order (T19)
            kept = sorted(self._position(seat, r) for r in action.refs)
            return Keep(tuple(CardRef(None, p) for p in kept))
        return action

    def _position(self, seat: int, ref: CardRef) -> int:
        """The position of one of ``seat``'s cards named by ``ref`` (T5, T19)."""
        hand = self.holdings[seat] if 0 <= seat < self.n else []
        if ref.pos is not None:
            known = self.known.get(ref.pos)
            if ref.pos in hand and ref.card in (None, known):
                return ref.pos
        else:
            found = next((p for p in hand if self.known.get(p) == ref.card), None)
            if found is not None:
                return found
        raise IllegalAction("T5", f"{ref} is not a card in seat {seat}'s hand")

    def identify(self, action: Action, cards: Mapping[Pos, str]) -> Action:
        if isinstance(action, Power) and action.verb == "pick":
            ref = CardRef.parse(action.args[0])
            card = None if ref.pos is None else cards.get(self._pos(ref.pos))
            return action if card is None else Power("pick", (f"{card}@{ref.pos}",))
        if isinstance(action, NutriaDraw) and action.ref.pos is not None:
            card = cards.get(self._pos(action.ref.pos))
            if card is not None:
                return NutriaDraw(CardRef(parse_any_card(card), action.ref.pos))
        if isinstance(action, HareDraw) and action.ref.pos is not None:
            card = cards.get(self._pos(action.ref.pos))
            if card is not None:
                return HareDraw(CardRef(parse_any_card(card), action.ref.pos))
        if isinstance(action, FalconShown):  # T33: where the table found it
            return self._falcon_identify(dict(cards))
        if isinstance(action, HedgehogAside):  # T42: where the table found it
            return self._hedgehog_identify(dict(cards))
        if isinstance(action, Play) and action.ref.pos is not None:
            card = cards.get(self._pos(action.ref.pos))
            if card is not None:
                return Play(CardRef(parse_any_card(card), action.ref.pos))
        return action

    def see(self, p: Pos, card: str) -> None:
        if self.deluxe and p.deck == POOL_DECK:  # T25: a special dealt to this seat
            self._see_special(p, card)
            return
        self.learn(self._index(p), parse_any_card(card))

    def _see_special(self, p: Pos, card: str) -> None:
        if self.carried or not 0 <= p.index < self._pool_size():
            raise IllegalAction("T25", f"no position {p} in the pool now")
        try:
            value = parse_any_card(card)
        except NotationError as exc:
            raise IllegalAction("T25", f"{card!r} is not a special card") from exc
        if not isinstance(value, Special) or self.pool_known.get(p.index, value) != value:
            raise IllegalAction("T25", f"{card!r} cannot be at {p}")
        self.pool_known[p.index] = value

    def identity_of(self, p: Pos) -> str | None:
        if self.deluxe and p.deck == POOL_DECK:
            special = None if self.carried else self.pool_known.get(p.index)
            return None if special is None else str(special)
        if self.deluxe and p.deck != self.deck_name:  # a deck of an earlier hand [T26]
            return None
        card = self.known.get(self._index(p))
        return None if card is None else str(card)
