"""Build deck orders that deal chosen hands, for tests, puzzles and resumed games.

The deal is fixed by ruling T4: deck position ``k`` (``k < 3n``) goes to seat
``(dealer + 1 + k) % n``; positions from ``3n`` on are the stock, in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trutnet.engine.errors import ConfigError
from trutnet.games.trut.rules.cards import FULL_DECK, Card, parse_card

CardsLike = Sequence[Card] | str


def _cards(value: CardsLike) -> list[Card]:
    return [parse_card(t) for t in value.split()] if isinstance(value, str) else list(value)


def deal_position(players: int, dealer: int, seat: int, nth: int) -> int:
    """Deck position of the ``nth`` card (0..2) dealt to ``seat`` [T4]."""
    return nth * players + (seat - dealer - 1) % players


def deck_for_hands(
    players: int,
    dealer: int,
    hands: Mapping[int, CardsLike],
    stock: CardsLike = (),
) -> tuple[Card, ...]:
    """A 32-card deck order that deals ``hands`` (seat -> 3 cards) with ``dealer`` dealing.

    Seats left out, and the stock after the cards of ``stock``, get the unused cards in
    index order, so the result is deterministic.
    """
    deck: list[Card | None] = [None] * len(FULL_DECK)
    used: list[Card] = []
    for seat, value in hands.items():
        cards = _cards(value)
        if not 0 <= seat < players or len(cards) != 3:
            raise ConfigError(f"seat {seat}: give 3 cards for a seat 0..{players - 1}")
        for nth, card in enumerate(cards):
            deck[deal_position(players, dealer, seat, nth)] = card
            used.append(card)
    for offset, card in enumerate(_cards(stock)):
        deck[3 * players + offset] = card
        used.append(card)
    if len(set(used)) != len(used):
        raise ConfigError("a card is given twice")
    rest = iter(c for c in FULL_DECK if c not in set(used))
    return tuple(c if c is not None else next(rest) for c in deck)
