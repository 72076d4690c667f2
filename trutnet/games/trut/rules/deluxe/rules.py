"""Trut Deluxe's rules: the preparation, the deck, values in a trick, and the powers.

A mixin of :class:`~trutnet.games.trut.rules.state.TrutState`; the classic code calls
it only when the ``deluxe`` option is on, so classic Trut keeps its behaviour and its
hashes. Rulings T23-T47 (``docs/games/trut-deluxe.md``) are cited where they act.

* T25 preparation, once per game right after the first-Donneur draw: the pool is
  shuffled jointly (``prepare``), two positions per seat are dealt in T4 order, each
  seat writes ``keep @p`` (a position, never a card) in the same order; the kept
  positions are carried into the first hand's deck, the others set aside, never
  decrypted.
* T26: the hand's deck is the 32 normal cards plus the kept specials.
* T28: a card's effective value in its trick: its printed value, the Eagle's 0 for
  Figures (T40) and Trhulhu's -3 to the opponents (T40); the Boar makes a patté (T31).
* T29, T32, T45: the team that wins a trick captures every card in the game area
  (earlier patté tricks included) and gains the prizes (Owl, Snake, Chimera) as one
  gain; Longs from prizes discard no Petit.
* T43: the Robin Red's captor doubles the hand's score, or adds to its loss.

The powers are :mod:`.powers`, :mod:`.weasel`, :mod:`.hedgehog` and :mod:`.falcon`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trutnet.engine.api import CHANCE
from trutnet.engine.errors import IllegalAction
from trutnet.engine.hidden import Deck
from trutnet.games.trut.rules.actions import CardRef, Keep, Prepare
from trutnet.games.trut.rules.deluxe.cards import (
    AnyCard,
    Special,
    is_figure,
    letters_for,
    special,
)

POOL_DECK = "specials"
DECK_NAME = "french32"  # the first hand's deck (trutnet/games/trut/rules/hidden.py)
TALON = "talon"  # T26: from the second hand on, the previous deck re-shuffled
PER_SEAT = 2  # T25: two specials dealt to each seat, one kept

EAGLE, BOAR, TRHULHU, JAY = "O", "C", "R", "K"
OWL, SNAKE, CHIMERA, ROBIN = "A", "D", "Q", "N"


TALON_DECK = Deck(TALON, ())
"""T26: a deck with no cards of its own, into which each hand's shuffle carries every
ciphertext of the previous hand's deck (never re-encrypted from plaintext)."""


def pool_deck(bonus_cards: bool, hedgehog_aside: bool = False) -> Deck:
    """The ``specials`` deck: its encodings are the letters in order [T23] (without
    the Hedgehog when a start position sets it aside, D23)."""
    return Deck(POOL_DECK, letters_for(bonus_cards, hedgehog_aside))


@dataclass(frozen=True, slots=True)
class Valued:
    """A card's effective value in its trick [T28], in the shape T6's arithmetic reads."""

    strength: int
    value: int


def effective_values(
    trick: Sequence[tuple[int, AnyCard]],
    team_of: Sequence[int],
    mods: Sequence[int] = (),
) -> list[int]:
    """T28: printed value (T27) plus the modifiers it received (``mods``: the Raven's,
    the Badger's, the Bat's), Trhulhu's -3 on every opposing card (T40), then 0 for a
    Figure in a trick that holds the Eagle, overriding every modifier (T40)."""
    letters = [(seat, c.letter) for seat, c in trick if isinstance(c, Special)]
    eagle = any(letter == EAGLE for _, letter in letters)
    trhulhu = [team_of[seat] for seat, letter in letters if letter == TRHULHU]
    values = []
    for i, (seat, card) in enumerate(trick):
        value = card.value + (mods[i] if i < len(mods) else 0)
        value -= 3 * sum(1 for team in trhulhu if team != team_of[seat])
        if eagle and is_figure(card):
            value = 0
        values.append(value)
    return values


class DeluxeRules:
    """Trut Deluxe (mixed into ``TrutState``); the classic code calls ``_deluxe_*``."""

    # Fields of TrutState read and written here.
    n: int
    phase: str
    to_act: int | None
    dealer: int
    marker: int
    target: int
    team_of: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...]
    longs: list[int]
    petits: list[int]
    winner: int | None
    events: list[dict[str, Any]]
    queue: list[int]
    deck_size: int
    deck_name: str
    bonus_cards: bool
    michao_hare: bool
    pool_known: dict[int, Special]  # private: the pool positions this replica was shown
    pool_holdings: list[list[int]]
    pool_dealt: list[list[int]]  # the pool positions dealt to each seat (T25), kept
    kept: list[int]
    carried: bool
    area: list[tuple[int, int, AnyCard]]
    robin_team: int | None

    def _deluxe_init(
        self, bonus_cards: bool, michao_hare: bool = False, hedgehog: int | None = None
    ) -> None:
        self.bonus_cards = bonus_cards
        self.hedgehog_start = hedgehog is not None  # D23: the pool has no Hedgehog
        self.michao_hare = michao_hare
        self.pool_known = {}
        self.pool_holdings = [[] for _ in range(self.n)]
        self.pool_dealt: list[list[int]] = [[] for _ in range(self.n)]  # T25, for a search
        self.kept = []
        self.carried = False
        self.area = []  # T29: played cards of the hand's undecided (patté) tricks
        self.robin_team = None
        self._powers_init()
        self._weasel_init()
        self._hedgehog_init(hedgehog)
        self._falcon_init()

    def _pool_letters(self) -> tuple[str, ...]:
        return letters_for(self.bonus_cards, self.hedgehog_start)

    def _pool_size(self) -> int:
        return len(self._pool_letters())

    # ---- preparation [T25, T47]

    def _apply_prepare(self, action: Prepare) -> Prepare:
        self._require(self.phase == "prepare", "T25", "the specials are prepared once, first")
        size = self._pool_size()
        if action.pool is not None:
            self._require(
                sorted(c.letter for c in action.pool) == sorted(self._pool_letters()),
                "T23",
                f"the pool holds each of the {size} special cards once",
            )
            self.pool_known = dict(enumerate(action.pool))
        if self._hedgehog_to_find():  # T42: found first, it stays aside (D22)
            self.phase, self.to_act = "hedgehog", CHANCE
            return action
        self._deal_pool()
        return action

    def _deal_pool(self, aside: int | None = None) -> None:
        """T25: two pool positions to each seat, one at a time from the Donneur's left,
        two rounds; ``aside``, the Hedgehog's position kept aside (T42), is skipped."""
        n = self.n
        positions = [p for p in range(self._pool_size()) if p != aside][: PER_SEAT * n]
        for k, p in enumerate(positions):
            self.pool_holdings[(self.dealer + 1 + k) % n].append(p)
            self.pool_dealt[(self.dealer + 1 + k) % n].append(p)
        self.queue = [(self.dealer + 1 + i) % n for i in range(n)]
        self.phase = "choose"
        self.to_act = self.queue[0]
        self.events.append({"event": "prepare", "dealt": PER_SEAT * n})

    def _apply_choose(self, seat: int, action: Keep) -> Keep:
        self._require(len(action.refs) == 1, "T25", "keep one of your two special cards")
        ref = action.refs[0]
        self._require(
            ref.pos is not None and ref.pos in self.pool_holdings[seat],
            "T25",
            f"{ref} is not one of the special cards dealt to seat {seat}",
        )
        assert ref.pos is not None
        known = self.pool_known.get(ref.pos)
        if ref.card is not None and known is not None and known != ref.card:
            raise IllegalAction("T25", f"position {ref.pos} does not hold {ref.card}")
        self.kept.append(ref.pos)
        self.pool_holdings[seat] = []
        self.queue.pop(0)
        self.events.append({"event": "keep_special", "seat": seat})
        if self.queue:
            self.to_act = self.queue[0]
        else:
            self.phase = "deal"
            self.to_act = -1
        return Keep((CardRef(known, ref.pos),))

    def _deluxe_void(self) -> None:
        """D22: a void re-keys the table, so no ciphertext survives it (the kept
        specials, the talon, the set-aside Hedgehog): the preparation (T25) runs again
        with the same Donneur, and the first deck after it is built as at the start.
        Tokens, the Jay pot and the Hedgehog's protection stand."""
        self.pool_known = {}
        self.pool_holdings = [[] for _ in range(self.n)]
        self.pool_dealt = [[] for _ in range(self.n)]
        self.kept = []
        self.carried = False
        self.deck_name = DECK_NAME
        self._hedgehog_void()
        self.phase, self.to_act = "prepare", -1
        self.events.append({"event": "prepare_again"})

    def _deluxe_deck_size(self) -> int:
        # T26: the 32 normal cards and the kept specials, but a Hedgehog set aside (T42),
        # and with a Hedgehog that a start position set aside once back (D23)
        return 32 + len(self.kept) + self._hedgehog_extra() - (1 if self._hedgehog_out() else 0)

    def _kept_specials(self) -> list[Special]:
        """The kept cards in this hand's deck, in full knowledge only (self-play, tests)."""
        out = self._hedgehog_out()  # T42: set aside, out of the deck
        kept = [self.pool_known[p] for p in self.kept]
        kept += [special("M")] * self._hedgehog_extra()  # D23: back from plaintext
        return [c for c in kept if not (out and c.letter == "M")]

    # ---- a trick [T28, T29, T31, T32, T43, T45]

    def _deluxe_outcome_cards(
        self, trick: Sequence[tuple[int, int, AnyCard]]
    ) -> tuple[list[tuple[int, Valued]], bool]:
        """The trick as T6 reads it, with effective values; and whether a Boar is in it."""
        plain = [(s, c) for s, _, c in trick]
        mods = [  # T37 (2): the Weasel's -2 on its target's card, played before or after
            (self.mods[i] if i < len(self.mods) else 0) - 2 * self.weasel_minus.count(s)
            for i, (s, _) in enumerate(plain)
        ]
        values = effective_values(plain, self.team_of, mods)
        boar = any(isinstance(c, Special) and c.letter == BOAR for _, c in plain)
        return [(s, Valued(v, v)) for (s, _), v in zip(plain, values, strict=True)], boar

    def _deluxe_capture(self, trick: Sequence[tuple[int, int, AnyCard]], team: int | None) -> None:
        """T29: the winning team captures the game area; the prizes pay as one gain."""
        self._powers_reset_trick()  # T28: modifiers last for their trick
        self.area.extend(trick)
        if team is None:
            return
        captured = [c for _, _, c in self.area if isinstance(c, Special)]
        self._hedgehog_set_aside([p for _, p, _ in self.area])  # T42: never captured
        self.area = []
        letters = {c.letter for c in captured}
        petits = (OWL in letters) + (SNAKE in letters and self._trut_running())
        if JAY in letters and self.jay_claim:  # T41: the pot, in the same gain (T45)
            self.events.append({"event": "jay_pot", "team": team, "petits": self.jay_pot})
            petits += self.jay_pot
            self.jay_pot, self.jay_claim = 0, False
        longs = (SNAKE in letters) + (CHIMERA in letters)
        if ROBIN in letters:
            self.robin_team = team
        if petits or longs:
            self.events.append(
                {
                    "event": "prizes",
                    "team": team,
                    "petits": petits,
                    "longs": longs,
                    "cards": sorted(letters & {OWL, SNAKE, CHIMERA}),
                }
            )
            self._gain(team, petits, longs)

    def _trut_running(self) -> bool:
        """T32: a Trut called (by anyone) and not folded."""
        trut = getattr(self, "trut", None)
        return trut is not None and trut.status != "folded"

    def _gain(self, team: int, petits: int, longs: int) -> None:
        """T45: one gain. Longs given by an effect discard no Petit; Petits convert
        three per Long, and a Long so made discards every Petit (T13)."""
        if self.phase == "over":
            return
        self.longs[team] = min(self.target, self.longs[team] + longs)
        self.petits[team] += petits
        made = self.petits[team] // 3
        if made:
            self._hedgehog_converts(team)  # T42: the protection ends first
            self.longs[team] = min(self.target, self.longs[team] + made)
            self._discard_petits()
        if self.longs[team] >= self.target:  # T14, T45: the game ends at once
            self.winner = team
            self.phase = "over"
            self.to_act = None

    def deluxe_public(self) -> dict[str, Any]:
        """What every replica agrees on of the Deluxe part (positions, never a card
        that was not played)."""
        return {
            "pool_holdings": [list(h) for h in self.pool_holdings],
            "kept": list(self.kept),
            "carried": self.carried,
            "deck_size": self.deck_size,
            "deck_name": self.deck_name,
            "area": [[s, p, str(c)] for s, p, c in self.area],
            "robin_team": self.robin_team,
            **self._powers_public(),
            **self._weasel_public(),
            **self._hedgehog_public(),
            **self._falcon_public(),
        }

    def _deluxe_close_hand(self, played: list[int]) -> None:
        """T29: nobody captures what still lies in the game area when a hand ends
        (``played``: the positions played this hand); T42: the Hedgehog is set aside."""
        self._hedgehog_set_aside(played)
        self.forced = {}  # T37: for this hand
        self.area = []
        self.robin_team = None
        self._powers_reset_trick()
        self.pending, self.power_seat, self.jay_claim = [], None, False
        self.hare_drawn = []
        self.michao_sung, self.michao_queue = False, []
        self.nutria_offer, self.nutria_gone = [], []
        self._falcon_init()

    # ---- the hand's score [T43]

    def _robin_after_hand(self, team: int, petits: int, longs: int) -> None:
        """T43: the Robin's captor doubles a won hand's score (``petits`` and ``longs``,
        what the hand gave it), or, having lost, loses its Petits and 1 Long."""
        robin = self.robin_team
        if robin is None or self.phase == "over":
            return
        if robin == team:
            self.events.append({"event": "robin", "team": robin, "doubled": True})
            if longs:
                self._add_longs(team, longs)
            elif petits:
                self._add_petits(team, petits)
        else:
            self.events.append({"event": "robin", "team": robin, "doubled": False})
            if not self._protected(robin):  # T42
                self.petits[robin] = 0
            self.longs[robin] = max(0, self.longs[robin] - 1)

    if TYPE_CHECKING:  # TrutState's and DeluxePowers' own, used here

        def _powers_init(self) -> None: ...

        def _powers_reset_trick(self) -> None: ...

        def _powers_public(self) -> dict[str, Any]: ...

        def _falcon_init(self) -> None: ...

        def _falcon_public(self) -> dict[str, Any]: ...

        def _weasel_init(self) -> None: ...

        def _weasel_public(self) -> dict[str, Any]: ...

        def _hedgehog_init(self, protected: int | None = None) -> None: ...

        def _hedgehog_extra(self) -> int: ...

        def _hedgehog_void(self) -> None: ...

        def _hedgehog_public(self) -> dict[str, Any]: ...

        def _hedgehog_out(self) -> bool: ...

        def _hedgehog_to_find(self) -> bool: ...

        def _hedgehog_converts(self, team: int) -> None: ...

        def _hedgehog_set_aside(self, positions: list[int]) -> None: ...

        def _protected(self, team: int) -> bool: ...

        def _discard_petits(self) -> None: ...

        weasel_minus: list[int]
        forced: dict[int, int]

        jay_pot: int
        jay_claim: bool
        pending: list[tuple[str, str, int]]
        power_seat: int | None
        mods: list[int]
        hare_drawn: list[int]
        michao_sung: bool
        michao_queue: list[int]
        nutria_offer: list[int]
        nutria_gone: list[int]

        @staticmethod
        def _require(condition: bool, rule: str, message: str) -> None: ...

        def _add_petits(self, team: int, count: int) -> None: ...

        def _add_longs(self, team: int, count: int) -> None: ...
