"""The Hedgehog of Trut Deluxe: its team's Petits protected, the card set aside [T42].

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`.

* From the moment it lands in a trick (played, or replacing the Nutria, T35), its
  team's Petits are protected (``hedgehog_team``): no loss from a Trut's Long (T13),
  the Robin (T43), the Magpie (T36) or the Weasel (T37), no discard under T13 or T45.
* The protection ends when that team converts 3 Petits into a Long: first the
  protection ends, then the discard happens as usual.
* When its trick is picked up, or when the hand ends, the Hedgehog is set aside by its
  team's tokens instead of being captured (``hedgehog_aside``: the deck position of
  its ciphertext; holder ``"hedgehog"``).
* Out of the deck while the protection lasts (T26, D21): the next hand's shuffle
  carries every position of the previous deck but the Hedgehog's, into a talon that
  is not the Hedgehog's deck (``talon``, or ``talon2`` when the Hedgehog lies in
  ``talon``), so its ciphertext stays where it lies, untouched; the first shuffle
  after the protection ended carries it back in. No ciphertext is ever re-made from
  plaintext (D17).
* A void (D22) kills every ciphertext, the set-aside Hedgehog's too, and prepares the
  pool again; while its team's protection stands the Hedgehog stays aside all the
  same: the table finds it among the new pool's positions by itself (``Locate``, as
  the Falcon, T33: ``hedgehog M@7``), that position stays aside (holder
  ``"hedgehog"``) and the specials are dealt from the others; it is then a card the
  deck holds though no seat kept it (``hedgehog_back``), carried back in at the first
  deal after the protection ends (``hedgehog_fresh`` marks the void that waits for
  it).
* A start position may set the Hedgehog aside, protecting a team (D23): it is then
  left out of the preparation's pool and has no ciphertext (``hedgehog_fresh``); the
  first talon deal after its protection ended shuffles ``hedgehog``, a deck whose one
  own card is the Hedgehog (its identity is public: set aside in view of all),
  carrying the previous deck; from then on it is a card of the deck like the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trutnet.engine.api import Action
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import Deck, Locate, Pos
from trutnet.games.trut.rules.actions import CardRef, HedgehogAside
from trutnet.games.trut.rules.deluxe.cards import Special, special
from trutnet.games.trut.rules.deluxe.rules import POOL_DECK, TALON

HEDGEHOG = "M"
HEDGEHOG_PILE = "hedgehog"  # the holder of the set-aside Hedgehog
TALON2 = "talon2"
TALON2_DECK = Deck(TALON2, ())
"""T42, D21: the second talon, shuffled instead of ``talon`` while the set-aside
Hedgehog lies in ``talon`` (so that shuffle does not destroy its ciphertext)."""
FRESH = "hedgehog"
FRESH_DECK = Deck(FRESH, (HEDGEHOG,))
"""D23: the deck that brings back a Hedgehog a start position set aside (its pool then
has no Hedgehog, so no two decks that mix share a card name)."""


class DeluxeHedgehog:
    """The Hedgehog's protection and its place out of the deck (mixed into ``TrutState``)."""

    phase: str
    team_of: tuple[int, ...]
    events: list[dict[str, Any]]
    deck_size: int
    deck_name: str
    hedgehog_team: int | None
    hedgehog_played: int | None
    hedgehog_aside: Pos | None
    hedgehog_fresh: bool
    hedgehog_back: bool
    hedgehog_start: bool
    carried: bool
    pool_known: dict[int, Special]

    def _hedgehog_init(self, protected: int | None = None) -> None:
        self.hedgehog_team = protected  # T42: the team whose Petits are protected
        self.hedgehog_played = None  # its position in this hand's trick or game area
        self.hedgehog_aside = None  # set aside: where its ciphertext lies
        self.hedgehog_fresh = protected is not None  # D23: set aside, no ciphertext yet
        self.hedgehog_back = False  # D23: in the deck though not a kept special

    def _hedgehog_public(self) -> dict[str, Any]:
        aside = self.hedgehog_aside
        return {
            "hedgehog_team": self.hedgehog_team,
            "hedgehog_played": self.hedgehog_played,
            "hedgehog_aside": None if aside is None else str(aside),
            "hedgehog_fresh": self.hedgehog_fresh,
            "hedgehog_back": self.hedgehog_back,
        }

    def _protected(self, team: int) -> bool:
        """T42: this team's Petits cannot be lost."""
        return self.hedgehog_team == team

    def _hedgehog_landed(self, seat: int, pos: int) -> None:
        """T42: from the moment it is played, its team's Petits are protected."""
        self.hedgehog_played = pos
        self.hedgehog_team = self.team_of[seat]
        self.events.append({"event": "hedgehog", "team": self.team_of[seat]})

    def _hedgehog_converts(self, team: int) -> None:
        """T42: the protected team converts 3 Petits into a Long: protection ends first."""
        if self.hedgehog_team == team:
            self.hedgehog_team = None
            self.events.append({"event": "hedgehog_ends", "team": team})

    def _hedgehog_set_aside(self, positions: list[int]) -> None:
        """T42: picked up with these positions (a capture, or the hand's end), the
        Hedgehog is set aside instead of being captured."""
        if self.hedgehog_played is not None and self.hedgehog_played in positions:
            self.hedgehog_aside = self._pos(self.hedgehog_played)
            self.hedgehog_played = None
            self.events.append({"event": "hedgehog_aside", "team": self.hedgehog_team})

    def _hedgehog_out(self) -> bool:
        """The Hedgehog stays out of the next deck (set aside, still protecting)."""
        return self.hedgehog_aside is not None and self.hedgehog_team is not None

    def _hedgehog_here(self) -> int | None:
        """The set-aside Hedgehog's index in this hand's deck, if it lies there."""
        aside = self.hedgehog_aside
        return aside.index if aside is not None and aside.deck == self.deck_name else None

    def _returning(self) -> bool:
        """D23: the start position's Hedgehog joins the next talon deal."""
        return self.hedgehog_fresh and self.hedgehog_team is None and self.carried

    def _hedgehog_extra(self) -> int:
        """D23: 1 when the deck holds a Hedgehog that is not a kept special."""
        return 1 if self.hedgehog_back or self._returning() else 0

    def _next_talon(self) -> str:
        """D21: the next hand's deck: the talon, but not the deck the Hedgehog lies in;
        D23: the Hedgehog's own deck when a start position's Hedgehog comes back."""
        if self._returning():
            return FRESH
        aside = self.hedgehog_aside
        return TALON2 if aside is not None and aside.deck == TALON else TALON

    def _hedgehog_carry(self) -> tuple[Pos, ...]:
        """T26, T42: what the next shuffle carries: the previous deck without the
        Hedgehog while it protects; with it once the protection ended."""
        here = self._hedgehog_here()
        out = self._hedgehog_out()
        carry = [self._pos(i) for i in range(self.deck_size) if not (out and i == here)]
        if self.hedgehog_aside is not None and not out and here is None:
            carry.append(self.hedgehog_aside)  # back from an earlier hand's deck
        return tuple(carry)

    def _hedgehog_dealt(self, carried: bool) -> None:
        """A new hand's deck: the Hedgehog is in it again if its protection ended."""
        self.hedgehog_played = None
        if self.hedgehog_team is None:
            self.hedgehog_aside = None
            if carried and self.hedgehog_fresh:  # D23: dealt from its own deck
                self.hedgehog_fresh, self.hedgehog_back = False, True

    def _hedgehog_void(self) -> None:
        """D22: the ciphertexts die with a void. A start position's Hedgehog, never in
        the pool, needs its own deck again (D23). Otherwise the Hedgehog is in the new
        pool, but while its team's protection stands (it lies aside, or on the table
        of the voided hand) it stays aside: the table finds it there (T42)."""
        self.hedgehog_aside = None
        self.hedgehog_played = None
        if self.hedgehog_start:
            if self.hedgehog_back:
                self.hedgehog_fresh, self.hedgehog_back = True, False
            return
        self.hedgehog_back = False
        self.hedgehog_fresh = self.hedgehog_team is not None

    def _hedgehog_to_find(self) -> bool:
        """T42, D22: the pool just shuffled holds a Hedgehog that must stay aside."""
        return self.hedgehog_fresh and not self.hedgehog_start

    def _hedgehog_step(self) -> Locate:
        """T42: the table finds the Hedgehog among the new pool's positions itself."""
        positions = tuple(Pos(POOL_DECK, p) for p in range(len(self._pool_letters())))
        return Locate(positions, HEDGEHOG, HedgehogAside(None))

    def _hedgehog_sample(self) -> HedgehogAside:
        """A replica that knows the pool finds it where it is (self-play)."""
        at = next(p for p, c in self.pool_known.items() if c.letter == HEDGEHOG)
        return HedgehogAside(CardRef(special(HEDGEHOG), at))

    def _hedgehog_identify(self, cards: dict[Pos, str]) -> HedgehogAside:
        found = [p.index for p, c in cards.items() if p.deck == POOL_DECK and c == HEDGEHOG]
        if len(found) > 1:
            raise IllegalAction("T42", f"one Hedgehog, not one at each of {sorted(found)}")
        return HedgehogAside(CardRef(special(HEDGEHOG), found[0]) if found else None)

    def _apply_hedgehog_aside(self, action: HedgehogAside) -> Action:
        """T42: the Hedgehog found in the new pool stays aside, protecting its team;
        the specials are dealt from the other positions (T25)."""
        if self.phase != "hedgehog":
            raise IllegalAction("T42", f"the Hedgehog is looked for in a new pool: {action}")
        if action.ref is None or action.ref.pos is None:
            raise IllegalAction("T42", "the pool holds the Hedgehog: the table finds it")
        at = action.ref.pos
        if not 0 <= at < len(self._pool_letters()):
            raise IllegalAction("T42", f"no position {at} in the pool")
        known = self.pool_known.get(at)
        if known is not None and known.letter != HEDGEHOG:
            raise IllegalAction("T42", f"pool position {at} does not hold the Hedgehog")
        self.pool_known[at] = special(HEDGEHOG)
        self.hedgehog_aside = Pos(POOL_DECK, at)
        self.hedgehog_fresh, self.hedgehog_back = False, True  # in no seat's keep
        self.events.append({"event": "hedgehog_stays", "team": self.hedgehog_team})
        self._deal_pool(at)
        return action

    def _hedgehog_holders(self) -> tuple[Pos, ...]:
        return () if self.hedgehog_aside is None else (self.hedgehog_aside,)

    if TYPE_CHECKING:  # TrutHidden's and DeluxeRules' own

        def _pos(self, index: int) -> Pos: ...

        def _pool_letters(self) -> tuple[str, ...]: ...

        def _deal_pool(self, aside: int | None = None) -> None: ...
