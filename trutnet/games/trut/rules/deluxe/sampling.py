"""What a seat cannot see in Trut Deluxe, drawn anew for a search
(``GameState.determinise``): the cards of this hand's deck and the specials' pool.

A seat keeps what it may see: every card shown to all (played, in the game area,
drawn by the Hare, replaced Nutrias, the Falcon where the table found it, the
Hedgehog set aside; T29, T33-T35, T42), the positions in its sight (its hand but
during a Fortial decision, T15; the Nutria's offer; the Falcon's look at its
partners, T33), the two specials it was dealt (T25) and where the public record
puts the Hedgehog. Everything else is drawn:

* the specials in this hand's deck that it has not seen, from the letters whose
  place it does not know (not its own two, not one seen, not the Falcon once the
  table found it in no hand, not a Hedgehog that lies elsewhere);
* the 32 cards and those specials, over the positions it has not seen (the Falcon
  not into a hand when the table found none there);
* the pool's letters at the positions it was not dealt, so that the kept positions
  hold this deck's specials (a playout over two hands deals the next deck from them,
  T26).

A state this drawing cannot agree with (a case of the Hedgehog's it does not know)
raises ``NotImplementedError``: the search plays its playout bot's move there.
The cards a seat saw and then gave away (the Weasel's exchange, T37) are drawn
anew: the sample knows less than the seat, never more.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from trutnet.games.trut.rules.cards import FULL_DECK
from trutnet.games.trut.rules.deluxe.cards import AnyCard, Special, special
from trutnet.games.trut.rules.deluxe.falcon import FALCON
from trutnet.games.trut.rules.deluxe.hedgehog import HEDGEHOG
from trutnet.games.trut.rules.deluxe.rules import POOL_DECK

if TYPE_CHECKING:
    from trutnet.games.trut.rules.state import TrutState


class Unsampled(NotImplementedError):
    """The drawing cannot agree with this state: the search falls back."""


def deluxe_determinise(state: TrutState, seat: int, rng: random.Random) -> TrutState:
    """``state``, a copy already public in its history, with every card and special
    that ``seat`` has not seen drawn anew with ``rng`` (see the module)."""
    own = _own_specials(state, seat)
    if state.next_stock == 0:  # no hand dealt: only the pool is hidden
        state.known = {}
        state.pool_known = _pool(state, own, None, rng)
        return state
    seen = _seen_positions(state, seat)
    known = {p: state.known[p] for p in seen if p in state.known}
    specials = _deck_specials(state, seat, own, known, rng)
    deck_specials = [c for c in known.values() if isinstance(c, Special)]
    to_place: list[AnyCard] = [c for c in FULL_DECK if c not in known.values()]
    to_place += [c for c in specials if c not in deck_specials]
    unseen = [p for p in range(state.deck_size) if p not in known]
    if len(unseen) != len(to_place):
        raise Unsampled(f"{len(to_place)} cards for {len(unseen)} unseen positions")
    rng.shuffle(to_place)
    placed = dict(zip(unseen, to_place, strict=True))
    _falcon_out_of_hands(state, placed)
    known.update(placed)
    state.known = dict(sorted(known.items()))
    state.pool_known = _pool(state, own, specials, rng)
    return state


def _own_specials(state: TrutState, seat: int) -> dict[int, Special]:
    """The pool positions dealt to ``seat`` (T25), with the specials it saw there."""
    return {p: state.pool_known[p] for p in state.pool_dealt[seat] if p in state.pool_known}


def _seen_positions(state: TrutState, seat: int) -> set[int]:
    """This deck's positions ``seat`` may see now: shown to all, or in its sight."""
    seen = {p for cards, _, _ in state.tricks for _, p, _ in cards}
    seen.update(p for _, p, _ in state.trick)
    seen.update(p for _, p, _ in state.area)
    seen.update(state.hare_drawn)
    seen.update(state.nutria_gone)
    here = state._hedgehog_here()
    if here is not None:
        seen.add(here)
    if state.falcon_at is not None:
        seen.add(state.falcon_at)
    seen.update(p.index for p in state.sight().get(seat, ()) if p.deck == state.deck_name)
    return seen


def _hedgehog_elsewhere(state: TrutState) -> bool:
    """The Hedgehog lies aside out of this hand's deck (T42), in view of all."""
    aside = state.hedgehog_aside
    return aside is not None and aside.deck != state.deck_name


def _deck_specials(
    state: TrutState,
    seat: int,
    own: dict[int, Special],
    known: dict[int, AnyCard],
    rng: random.Random,
) -> list[Special]:
    """The specials of this hand's deck: those ``seat`` knows are there, and the rest
    drawn from the letters whose place it does not know."""
    letters = set(state._pool_letters())
    there = {c.letter for c in known.values() if isinstance(c, Special)}
    own_kept = [own[p].letter for p in state.kept if p in own]
    elsewhere = _hedgehog_elsewhere(state)
    there.update(letter for letter in own_kept if not (letter == HEDGEHOG and elsewhere))
    if state.hedgehog_back and not elsewhere:  # T42, D23: dealt back though nobody kept it
        there.add(HEDGEHOG)
    unplaced = letters - there - {c.letter for c in own.values()}
    if elsewhere or state.hedgehog_back:
        unplaced.discard(HEDGEHOG)
    if state.falcon_step == "done" and state.falcon_at is None:  # T33: in no hand
        unplaced.discard(FALCON)
    missing = state.deck_size - len(FULL_DECK) - len(there)
    if not 0 <= missing <= len(unplaced):
        raise Unsampled(f"{missing} specials to draw from {len(unplaced)} letters")
    drawn = rng.sample(sorted(unplaced), missing)
    return [special(letter) for letter in sorted(there) + drawn]


def _falcon_out_of_hands(state: TrutState, placed: dict[int, AnyCard]) -> None:
    """T33: once the table found the Falcon in no hand, a drawn Falcon lies where no
    hand is (the stock, a discard): moved there by an exchange with a drawn card."""
    if state.falcon_step != "done" or state.falcon_at is not None:
        return
    held = {p for hand in state.holdings for p in hand}
    at = next((p for p, c in placed.items() if _letter(c) == FALCON), None)
    if at is None or at not in held:
        return
    free = sorted(p for p in placed if p not in held)
    if not free:
        raise Unsampled("no place out of the hands for the Falcon")
    to = free[0]
    placed[at], placed[to] = placed[to], placed[at]


def _letter(card: AnyCard) -> str | None:
    return card.letter if isinstance(card, Special) else None


def _pool(
    state: TrutState,
    own: dict[int, Special],
    deck: list[Special] | None,
    rng: random.Random,
) -> dict[int, Special]:
    """The pool's letters by position (T25): ``seat``'s own, the Hedgehog where the
    table found it (T42), the kept positions holding ``deck``'s specials (this hand's,
    when one is dealt) and every other position drawn from the letters left."""
    if not any(state.pool_dealt):  # not dealt yet (T25)
        return {}
    letters = list(state._pool_letters())
    pool: dict[int, Special] = dict(own)
    aside = state.hedgehog_aside
    if aside is not None and aside.deck == POOL_DECK:
        pool[aside.index] = special(HEDGEHOG)
    if deck is not None:
        kept_letters = _kept_letters(state, deck)
        for p in state.kept:
            if p in pool:
                letter = pool[p].letter
                if letter not in kept_letters:
                    raise Unsampled(f"kept position {p} holds {letter}, not in the deck")
                kept_letters.remove(letter)
        free = [p for p in state.kept if p not in pool]
        if len(free) != len(kept_letters):
            raise Unsampled(f"{len(kept_letters)} specials for {len(free)} kept positions")
        rng.shuffle(kept_letters)
        pool.update((p, special(letter)) for p, letter in zip(free, kept_letters, strict=True))
    used = {c.letter for c in pool.values()}
    rest = [letter for letter in letters if letter not in used]
    positions = [p for p in range(len(letters)) if p not in pool]
    if len(rest) != len(positions) or len(used) != len(pool):
        raise Unsampled("the pool's letters do not agree with its positions")
    rng.shuffle(rest)
    pool.update((p, special(letter)) for p, letter in zip(positions, rest, strict=True))
    return dict(sorted(pool.items()))


def _kept_letters(state: TrutState, deck: list[Special]) -> list[str]:
    """The letters the kept positions hold, given this deck's specials: the deck's,
    without a Hedgehog nobody kept (found in a new pool, or a start position's: T42,
    D23), with the kept Hedgehog that lies aside out of this deck."""
    letters = [c.letter for c in deck if c.letter != HEDGEHOG]
    nobody_kept = state.hedgehog_back or state.hedgehog_fresh
    in_deck = any(c.letter == HEDGEHOG for c in deck)
    kept = HEDGEHOG in state._pool_letters() and not nobody_kept
    if kept and (in_deck or _hedgehog_elsewhere(state)):
        letters.append(HEDGEHOG)
    return letters
