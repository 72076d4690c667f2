"""Starting Truco from chosen hands, for tests and examples: a deck order that deals
given cards to given seats (K8: deck position k to seat (mano + k) mod n; with 3
players position 9 is the gallo's fourth card)."""

from __future__ import annotations

from collections.abc import Mapping

from trutnet.engine.errors import ConfigError
from trutnet.games.truco.rules.cards import CARDS


def deal_positions(players: int, dealer: int, seat: int, gallo: int | None = None) -> list[int]:
    """The deck positions dealt to ``seat`` (K8, K9)."""
    mano = (dealer + 1) % players
    first = (seat - mano) % players
    positions = [first + j * players for j in range(3)]
    if gallo is not None and seat == gallo:
        positions.append(9)
    return positions


def deck_for_hands(
    players: int, dealer: int, hands: Mapping[int, str], gallo: int | None = None
) -> tuple[str, ...]:
    """A whole deck order that deals ``hands`` (``{seat: "1e 7e 3o"}``) to their seats;
    the other cards follow in the deck's order."""
    order: list[str | None] = [None] * len(CARDS)
    for seat, text in hands.items():
        cards = text.split()
        for pos, card in zip(deal_positions(players, dealer, seat, gallo), cards, strict=False):
            if card not in CARDS or card in order:
                raise ConfigError(f"{card!r}: not a card, or dealt twice")
            order[pos] = card
    rest = iter(c for c in CARDS if c not in order)
    return tuple(c if c is not None else next(rest) for c in order)
