"""Hidden information, described without crypto: decks, positions, who may see what, when.

A game says, in these small values, what a table of peers must do so that no seat
learns more than the rules allow; the table makes it true (with shuffles, decryption
shares and commitments, :mod:`trutnet.crypto`), and never needs to know which game
it runs. Nothing here knows a share, a key or a proof.

* A :class:`Deck` is a named list of card notations; a card's index in it is its
  encoding. A game may have several (one per player, a pool of special cards).
* A :class:`Pos` is one slot of a deck after a joint shuffle: ``cards@12``. Nobody
  knows which card it holds until the table discloses it.
* Holders (``GameState.holders()``): a seat (an ``int``) or a named pile
  (``"stock"``, ``"discard"``, ``"aside"``, ``"table"``...), each with its positions.
* Sight (``GameState.sight()``): for each seat, the positions whose identity it is to
  be shown, privately, now. The table discloses what sight holds and it has not yet
  disclosed: a :class:`Disclose` request. A position withheld until a decision is
  over simply enters sight later; one never revealed never does.
* The next step (``GameState.next_step()``): what the table runs for the game to go
  on: a :class:`Shuffle`, a :class:`JointRandom` draw, a public :class:`Reveal`, a
  :class:`Locate` (which of some positions hold a given card, told to everyone with
  nothing else), a seat's :class:`Turn`, a sealed :class:`SecretChoice`, or the
  :class:`Open` of one.
* Signs (``GameState.signs(seat)``): what a seat may tell its partners off turn, a
  card of a menu placed face down and shown to them (and to the watchers a draw
  picks), a :class:`Signs`; most games have none. A sign a seat was shown is a
  :class:`Told`, which a bot may give ``GameState.determinise`` so that its samples
  agree with it.
* Actions that carry a card (a play) name positions; ``GameState.reveals(seat,
  action)`` lists the positions the table reveals to everyone before the engine
  applies ``GameState.identify(action, cards)``.

``docs/engine.md`` ("Hidden information") explains the whole contract, maps the
needs of every registered game onto it, and walks through a small game; each game's
annex (``docs/games/``) gives its own steps.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trutnet.engine.errors import NotationError

if TYPE_CHECKING:
    from trutnet.engine.api import Action

MAX_DECK = 4096
"""Largest deck a game may declare (a bound for whoever decodes a position)."""


_NAMES_SEEN: set[str] = set()  # names already found good (a few decks): checked once


def _check_name(name: str, what: str) -> None:
    if type(name) is str and name in _NAMES_SEEN:
        return
    if (
        not isinstance(name, str)
        or not 1 <= len(name) <= 32
        or not all(c.isascii() and (c.isalnum() or c in "-_/") for c in name)
    ):
        raise NotationError(f"bad {what} name {name!r}: 1-32 of a-z A-Z 0-9 - _ /")
    if len(_NAMES_SEEN) < 256:
        _NAMES_SEEN.add(name)


@dataclass(frozen=True, slots=True)
class Deck:
    """A named deck: ``cards[i]`` is the notation of the card whose encoding is ``i``.

    A deck with no cards of its own holds only the cards that its shuffles carry into
    it (``Shuffle(deck, then, carry)``): a pile that is shuffled again and again
    without ever being re-encrypted from plaintext (a talon kept from hand to hand)."""

    name: str
    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        _check_name(self.name, "deck")
        if not 0 <= len(self.cards) <= MAX_DECK or len(set(self.cards)) != len(self.cards):
            raise NotationError(f"deck {self.name}: 0..{MAX_DECK} distinct card notations")

    def __len__(self) -> int:
        return len(self.cards)

    def __str__(self) -> str:
        return f"{self.name}[{len(self.cards)}]"

    def index(self, card: str) -> int:
        """The encoding of ``card`` in this deck."""
        try:
            return self.cards.index(card)
        except ValueError:
            raise NotationError(f"{card!r} is not a card of deck {self.name}") from None

    def position(self, index: int) -> Pos:
        return Pos(self.name, index)


@dataclass(frozen=True, slots=True, order=True)
class Pos:
    """One position (slot) of a shuffled deck: ``str`` is ``deck@index``."""

    deck: str
    index: int

    def __post_init__(self) -> None:
        _check_name(self.deck, "deck")
        if type(self.index) is not int or not 0 <= self.index < MAX_DECK:
            raise NotationError(f"position index out of range: {self.index!r}")

    def __str__(self) -> str:
        return f"{self.deck}@{self.index}"

    def __repr__(self) -> str:
        return f"Pos.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Pos:
        """Parse ``deck@index`` exactly (no sign, no leading zero)."""
        deck, at, index = text.partition("@") if isinstance(text, str) else ("", "", "")
        if (
            not at
            or not index.isdigit()
            or not index.isascii()
            or (len(index) > 1 and index[0] == "0")
        ):
            raise NotationError(f"not a position: {text!r} (expected deck@index)")
        return Pos(deck, int(index))


Holder = int | str
"""Who holds a position: a seat number, or the name of a pile (``"stock"``...)."""


def _positions(positions: Collection[Pos]) -> str:
    return " ".join(str(p) for p in positions)


# ------------------------------------------------------------------ requests


@dataclass(frozen=True, slots=True)
class Disclose:
    """Show the identities of ``positions`` to seat ``to`` alone (a private reveal).

    Nothing public changes: the seat's replica is told with ``GameState.see``. A
    position may be disclosed to several seats, one request each (a card shown to
    its owner's partner as well)."""

    positions: tuple[Pos, ...]
    to: int

    def __str__(self) -> str:
        return f"disclose {_positions(self.positions)} to seat {self.to}"


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Chance: shuffle ``deck`` jointly, so that no seat knows the order, then apply
    ``then`` (the hidden outcome, e.g. a deal that names no card).

    The new deck is the deck's own cards followed by the cards at the ``carry``
    positions (cards kept from an earlier deck, moved without being revealed), so
    it has ``len(deck) + len(carry)`` positions. Every position of ``deck`` is new
    afterwards: the table forgets what it disclosed of it, and each replica, applying
    ``then``, what it knew. The carried positions no longer exist: ``then`` takes them
    from their holders and each replica forgets them. A carried card keeps its own
    deck's notation (``see``), so decks mixed this way need distinct card names."""

    deck: str
    then: Action
    carry: tuple[Pos, ...] = ()

    def __str__(self) -> str:
        carry = f" carrying {_positions(self.carry)}" if self.carry else ""
        return f"shuffle {self.deck}{carry}, then {self.then}"


@dataclass(frozen=True, slots=True)
class JointRandom:
    """Chance: draw one of ``outcomes`` uniformly, jointly, so that no seat chooses or
    foresees it (commit-reveal among every seat); apply the outcome drawn.

    The outcomes are listed in a fixed order that every replica computes alike; the
    table applies ``outcomes[k]`` for the joint integer ``k`` in ``0..len-1``."""

    label: str
    outcomes: tuple[Action, ...]

    def __post_init__(self) -> None:
        if not self.outcomes:
            raise ValueError("a joint draw needs at least one outcome")

    def __str__(self) -> str:
        return f"joint draw {self.label} among {len(self.outcomes)}"


@dataclass(frozen=True, slots=True)
class Reveal:
    """Chance: reveal ``positions`` to everyone, then apply
    ``GameState.identify(then, cards)`` (e.g. the unplayed cards shown at the end)."""

    positions: tuple[Pos, ...]
    then: Action

    def __str__(self) -> str:
        return f"reveal {_positions(self.positions)}, then {self.then}"


@dataclass(frozen=True, slots=True)
class Locate:
    """Chance: find, among ``positions``, the ones that hold ``card`` (a notation of
    the positions' deck, or of a deck whose cards their shuffles carried into it),
    tell everyone which, and nothing else about any of them; then apply
    ``GameState.identify(then, {pos: card for each position found})`` (``then``
    itself when none holds it). The table runs plaintext-equality tests (protocol
    8.12), so no seat, holder included, can hide the card or show it where it is not
    (a special card whose holder the rules make public)."""

    positions: tuple[Pos, ...]
    card: str
    then: Action

    def __post_init__(self) -> None:
        if len(set(self.positions)) != len(self.positions):
            raise NotationError("a position is located once")

    def __str__(self) -> str:
        return f"locate {self.card} among {_positions(self.positions)}, then {self.then}"


@dataclass(frozen=True, slots=True)
class Turn:
    """``seat`` decides: the table waits for its action (which may reveal positions:
    ``GameState.reveals``)."""

    seat: int

    def __str__(self) -> str:
        return f"turn of seat {self.seat}"


@dataclass(frozen=True, slots=True)
class SecretChoice:
    """``seat`` decides now, in secret: the table records a commitment to the
    (concealed) decision under ``label`` and every replica applies ``sealed``, the
    same stand-in whatever was chosen. An :class:`Open` later makes it public.

    Two seats choosing "at once" (say, two hidden tokens) are two secret choices in
    the engine's order, then two opens: nothing is opened before both committed."""

    seat: int
    label: str
    sealed: Action

    def __str__(self) -> str:
        return f"secret choice {self.label} of seat {self.seat}"


@dataclass(frozen=True, slots=True)
class Open:
    """``seat`` must now open its secret choice ``label``: the table checks the opening
    against the commitment and applies that decision like a :class:`Turn`'s (its
    positions revealed first)."""

    seat: int
    label: str

    def __str__(self) -> str:
        return f"open {self.label} of seat {self.seat}"


@dataclass(frozen=True, slots=True)
class Signs:
    """What a seat may tell now, off turn, in secret (``GameState.signs``): one card of
    ``menu`` placed face down (the table proves it is one of the menu's, not which),
    shown to every seat of ``partners``, and to each seat of ``watchers`` whose own draw
    on it, made once it lies face down, falls below ``catch`` (a chance
    ``(numerator, denominator)``). Everyone learns that the seat signed and who caught
    it. At most ``limit`` signs of a seat count in one ``period`` (a number the game
    names, such as its hand). A sign is never a turn: the game goes on around it, and
    nothing in the rules depends on it."""

    menu: Deck
    partners: tuple[int, ...]
    watchers: tuple[int, ...]
    catch: tuple[int, int]
    period: int
    limit: int

    def __post_init__(self) -> None:
        numerator, denominator = self.catch
        if not 1 <= len(self.menu) <= 64 or not 0 <= numerator <= denominator <= 4096:
            raise NotationError("signs: a menu of 1..64 cards and a chance n/d, 0 <= n <= d")
        if set(self.partners) & set(self.watchers) or not self.partners or self.limit < 1:
            raise NotationError("signs: partners, watchers apart, and a limit of at least 1")


@dataclass(frozen=True)
class Told:
    """A sign some seat was shown: ``seat`` signed ``card`` (a card of its
    :class:`Signs` menu) in ``period``. A search bot gives what its seat was told to
    ``GameState.determinise``, which draws the signer's hidden cards to agree with what
    the sign tells, where the game says what that is (a person's sign may lie: a game
    then draws as if untold)."""

    seat: int
    period: int
    card: str


Step = Shuffle | JointRandom | Reveal | Locate | Turn | SecretChoice | Open
"""What the table runs next for the game to go on."""

Request = Disclose | Step
"""Anything :meth:`~trutnet.engine.api.GameState.table_requests` may ask."""


def pending_disclosures(
    sight: Mapping[int, Collection[Pos]], disclosed: Mapping[int, Collection[Pos]]
) -> tuple[Disclose, ...]:
    """The private disclosures ``sight`` asks for beyond ``disclosed``: one request per
    seat with something new, in seat order, positions sorted."""
    requests = []
    for seat in sorted(sight):
        shown = disclosed.get(seat, ())
        new = sorted(p for p in sight[seat] if p not in shown)
        if new:
            requests.append(Disclose(tuple(new), seat))
    return tuple(requests)
