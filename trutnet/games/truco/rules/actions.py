"""Truco's actions and their notation (K1: the Spanish calls). ``str`` is the
notation and :func:`parse_action` its exact inverse.

::

    dealer 2                      chance: the first dealer (K7)
    deal | deal 1e 4c ...         chance: the joint shuffle (order unknown | known, K8)
    discard @9 | discard 5c@9     the gallo's discard, by position (K9)
    flor | no flor                the flor round (K16)
    envido | real envido | falta envido           envido bets (K18)
    truco | retruco | vale cuatro                 truco calls (K22)
    quiero | no quiero | quiero retruco | quiero vale cuatro | paso   answers (K14, K23)
    contraflor | contraflor al resto | con flor quiero | con flor me achico  (K17)
    declare 27 | son buenas       declarations (K20)
    mazo                          fold (K25)
    play @12 | play 7o@12         a card, face up (K25, K26)
    show @3 @7 | show 1e@3 7e@7   showing (K21)
    void                          the table voids the hand in progress (KD9)

A position is written ``@index`` in the deck ``spanish40``.
"""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.api import Action
from trutnet.engine.errors import NotationError
from trutnet.engine.hidden import Pos
from trutnet.games.truco.rules.cards import CARD_SET, CARDS, DECK_NAME

WORDS = (
    "flor",
    "no flor",
    "envido",
    "real envido",
    "falta envido",
    "truco",
    "retruco",
    "vale cuatro",
    "quiero",
    "no quiero",
    "quiero retruco",
    "quiero vale cuatro",
    "paso",
    "contraflor",
    "contraflor al resto",
    "con flor quiero",
    "con flor me achico",
    "son buenas",
    "mazo",
)
ENVIDO_BETS = ("envido", "real envido", "falta envido")
TRUCO_CALLS = {"truco": 2, "retruco": 3, "vale cuatro": 4}


def ref(pos: Pos, card: str | None) -> str:
    return f"{card or ''}@{pos.index}"


def parse_ref(text: str) -> tuple[Pos, str | None]:
    card, at, index = text.partition("@")
    if not at or not index.isdigit() or not index.isascii() or (len(index) > 1 and index[0] == "0"):
        raise NotationError(f"not a card reference: {text!r} (expected @12 or 7o@12)")
    if card and card not in CARD_SET:
        raise NotationError(f"not a card: {card!r} (K2)")
    if int(index) >= len(CARDS):
        raise NotationError(f"no position {index} in the 40-card deck")
    return Pos(DECK_NAME, int(index)), card or None


@dataclass(frozen=True, slots=True)
class Word(Action):
    """A call, an answer, a flor announcement, son buenas, mazo."""

    word: str

    def __str__(self) -> str:
        return self.word

    def public(self) -> Word:
        return self


@dataclass(frozen=True, slots=True)
class Dealer(Action):
    seat: int

    def __str__(self) -> str:
        return f"dealer {self.seat}"

    def public(self) -> Dealer:
        return self


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """The joint shuffle; ``order`` is the whole deck order when known (self-play)."""

    order: tuple[str, ...] | None = None

    def __str__(self) -> str:
        return "deal" + ("" if self.order is None else " " + " ".join(self.order))

    def public(self) -> Deal:
        return Deal()


@dataclass(frozen=True, slots=True)
class Declare(Action):
    value: int

    def __str__(self) -> str:
        return f"declare {self.value}"

    def public(self) -> Declare:
        return self


@dataclass(frozen=True, slots=True)
class Play(Action):
    pos: Pos
    card: str | None = None

    def __str__(self) -> str:
        return f"play {ref(self.pos, self.card)}"

    def public(self) -> Play:
        return self


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """K9: never revealed: its public form names the position only."""

    pos: Pos
    card: str | None = None

    def __str__(self) -> str:
        return f"discard {ref(self.pos, self.card)}"

    def public(self) -> Discard:
        return Discard(self.pos)


@dataclass(frozen=True, slots=True)
class Show(Action):
    cards: tuple[tuple[Pos, str | None], ...]

    def __str__(self) -> str:
        return "show " + " ".join(ref(p, c) for p, c in self.cards)

    def public(self) -> Show:
        return self

    @property
    def positions(self) -> tuple[Pos, ...]:
        return tuple(p for p, _ in self.cards)


@dataclass(frozen=True, slots=True)
class Void(Action):
    """Administrative: the table voids the hand in progress when a newcomer takes a
    stalled seat (KD9). No seat chooses it."""

    def __str__(self) -> str:
        return "void"

    def public(self) -> Void:
        return self


def parse_action(text: str) -> Action:
    if not isinstance(text, str) or not text or text != text.strip() or "  " in text:
        raise NotationError(f"bad action {text!r}")
    if len(text) > 200:
        raise NotationError("action too long")
    if text in WORDS:
        return Word(text)
    if text == "void":
        return Void()
    verb, *args = text.split(" ")
    if verb == "dealer" and len(args) == 1 and args[0] in tuple("01234567"):
        return Dealer(int(args[0]))
    if verb == "deal":
        if args and (len(args) != len(CARDS) or set(args) != CARD_SET):
            raise NotationError("a deal names all 40 cards once (K2, K8)")
        return Deal(tuple(args) or None)
    if verb == "declare" and len(args) == 1 and args[0].isdigit() and args[0].isascii():
        if len(args[0]) > 1 and args[0][0] == "0":
            raise NotationError(f"bad number in {text!r}")
        return Declare(int(args[0]))
    if verb == "play" and len(args) == 1:
        return Play(*parse_ref(args[0]))
    if verb == "discard" and len(args) == 1:
        return Discard(*parse_ref(args[0]))
    if verb == "show" and 1 <= len(args) <= 3:
        cards = tuple(parse_ref(a) for a in args)
        if len({p for p, _ in cards}) != len(cards):
            raise NotationError("a show names each position once")
        return Show(cards)
    raise NotationError(f"not a truco action: {text!r}")
