"""Lutin & Troll's actions and their notation (``docs/games/lutin.md``).

::

    first 0                     chance: the first attacker, a joint coin (L5)
    take g5                     a card chosen for the hand, in secret (L16):
    seal | seal take g5         ... as every replica records it | as its own seat does
    play hand/2                 base: the card under that commitment is played (L6, L16);
                                then its opening ``take g5`` (the Open of ``hand/2``)
    deal lutin0 | deal lutin0 g2a ...   initiation: a deck's joint shuffle (L31)
    play lutin0@7 | play lutin0@7=g5    initiation: a card of one's hand, by position
    show lutin0@3=g2 lutin1@9=b6 ...    initiation: the unplayed cards shown (L15)
    deal tokens | deal tokens t13 t21 ...  expert: the token pool's joint shuffle (L21)
    discard tokens@1 | discard tokens@1=t13   expert: the set-up discard, sealed (L21)
    token none | token tokens@4 own | token tokens@4=t11 own | token bonus hand/2
                                        expert: a token window's choice, sealed (L22)
    bonus t13                           expert: the 6th manche's bonus token, sealed (L30)

A card is named by its kind (L2); only a full-knowledge deal names lettered copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.api import Action
from trutnet.engine.errors import NotationError
from trutnet.engine.hidden import Pos
from trutnet.games.lutin.rules.cards import COPY_NAMES, HAND, KINDS, kind
from trutnet.games.lutin.rules.powers import SIDES, TOKEN_NAMES

LABELS = tuple(f"hand/{k}" for k in range(HAND))


@dataclass(frozen=True, slots=True)
class First(Action):
    seat: int

    def __str__(self) -> str:
        return f"first {self.seat}"

    def public(self) -> First:
        return self


@dataclass(frozen=True, slots=True)
class Take(Action):
    """A card kind chosen for the hand (committed), or opened from it."""

    card: str

    def __str__(self) -> str:
        return f"take {self.card}"

    def public(self) -> Take:
        return self


@dataclass(frozen=True, slots=True)
class Seal(Action):
    """A secret choice as recorded: ``seal``, or ``seal take g5`` by the seat that knows."""

    choice: Take | Discard | TokenPlay | BonusPick | None = None

    def __str__(self) -> str:
        return "seal" if self.choice is None else f"seal {self.choice}"

    def public(self) -> Seal:
        return Seal()


@dataclass(frozen=True, slots=True)
class PlayLabel(Action):
    """Base: play the card under commitment ``hand/<slot>``."""

    slot: int

    def __str__(self) -> str:
        return f"play hand/{self.slot}"

    def public(self) -> PlayLabel:
        return self


@dataclass(frozen=True, slots=True)
class PlayPos(Action):
    """Initiation: play the card at a position of one's hand; its kind once revealed."""

    pos: Pos
    card: str | None = None

    def __str__(self) -> str:
        return f"play {_ref(self.pos, self.card)}"

    def public(self) -> PlayPos:
        return self


@dataclass(frozen=True, slots=True)
class Dealt(Action):
    """Initiation: a deck's joint shuffle; ``order`` (lettered copies) when known."""

    deck: str
    order: tuple[str, ...] | None = None

    def __str__(self) -> str:
        return f"deal {self.deck}" + ("" if self.order is None else " " + " ".join(self.order))

    def public(self) -> Dealt:
        return Dealt(self.deck)


@dataclass(frozen=True, slots=True)
class Show(Action):
    """Initiation: the unplayed hand cards shown at a manche's end (L15)."""

    cards: tuple[tuple[Pos, str | None], ...]

    def __str__(self) -> str:
        return "show " + " ".join(_ref(p, c) for p, c in self.cards)

    def public(self) -> Show:
        return self


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Expert: the token a seat discards at set-up (L21); its name once revealed."""

    pos: Pos
    name: str | None = None

    def __str__(self) -> str:
        return f"discard {_ref(self.pos, self.name)}"

    def public(self) -> Discard:
        return self


@dataclass(frozen=True, slots=True)
class TokenPlay(Action):
    """Expert: a token window's choice (L22): ``source`` is a token position, ``bonus``
    (L30) or None (no token); ``name`` once revealed; ``target`` what its effect needs."""

    source: Pos | str | None
    name: str | None = None
    target: str | None = None

    def __str__(self) -> str:
        if self.source is None:
            return "token none"
        where = self.source if isinstance(self.source, str) else _ref(self.source, self.name)
        return f"token {where}" + ("" if self.target is None else f" {self.target}")

    def public(self) -> TokenPlay:
        return self


@dataclass(frozen=True, slots=True)
class BonusPick(Action):
    """Expert: the bonus token chosen among the face-up ones (L30)."""

    name: str

    def __str__(self) -> str:
        return f"bonus {self.name}"

    def public(self) -> BonusPick:
        return self


TARGETS = (*SIDES, *KINDS, *(f"hand/{k}" for k in range(HAND)))


def _ref(pos: Pos, card: str | None) -> str:
    return str(pos) if card is None else f"{pos}={card}"


def _parse_ref(text: str) -> tuple[Pos, str | None]:
    where, eq, card = text.partition("=")
    pos = Pos.parse(where)
    if not eq:
        return pos, None
    if card not in KINDS:
        raise NotationError(f"not a Lutin & Troll card: {card!r}")
    return pos, card


def parse_action(text: str) -> Action:
    """The action written ``text``; :class:`NotationError` if it is none."""
    if not isinstance(text, str) or not text or text != text.strip() or "  " in text:
        raise NotationError(f"bad action {text!r}")
    if len(text) > 1000:
        raise NotationError("an action is at most 1000 characters")
    verb, *args = text.split(" ")
    if verb == "seal":
        if not args:
            return Seal()
        inner = parse_action(" ".join(args))
        if not isinstance(inner, Take | Discard | TokenPlay | BonusPick):
            raise NotationError(f"not a sealed choice: {text!r}")
        return Seal(inner)
    if verb == "first" and args in (["0"], ["1"]):
        return First(int(args[0]))
    if verb == "take" and len(args) == 1 and args[0] in KINDS:
        return Take(args[0])
    if verb == "play" and len(args) == 1:
        if args[0] in LABELS:
            return PlayLabel(LABELS.index(args[0]))
        return PlayPos(*_parse_ref(args[0]))
    if verb == "discard" and len(args) == 1:
        pos, _, name = args[0].partition("=")
        if name and name not in TOKEN_NAMES:
            raise NotationError(f"not a token: {name!r}")
        return Discard(Pos.parse(pos), name or None)
    if verb == "bonus" and len(args) == 1 and args[0] in TOKEN_NAMES:
        return BonusPick(args[0])
    if verb == "token" and args == ["none"]:
        return TokenPlay(None)
    if verb == "token" and len(args) in (1, 2):
        target = args[1] if len(args) == 2 else None
        if target is not None and target not in TARGETS:
            raise NotationError(f"not a token's target: {target!r}")
        if args[0] == "bonus":
            return TokenPlay("bonus", None, target)
        pos, _, name = args[0].partition("=")
        if name and name not in TOKEN_NAMES:
            raise NotationError(f"not a token: {name!r}")
        return TokenPlay(Pos.parse(pos), name or None, target)
    if verb == "deal" and args and args[0] == "tokens":
        if any(c not in TOKEN_NAMES for c in args[1:]):
            raise NotationError(f"a deal of the tokens names tokens: {text!r}")
        return Dealt(args[0], tuple(args[1:]) or None)
    if verb == "deal" and args:
        if any(c not in COPY_NAMES for c in args[1:]):
            raise NotationError(f"a deal names lettered cards: {text!r}")
        return Dealt(args[0], tuple(args[1:]) or None)
    if verb == "show" and args:
        return Show(tuple(_parse_ref(a) for a in args))
    raise NotationError(f"not a Lutin & Troll action: {text!r}")


__all__ = [
    "BonusPick",
    "Dealt",
    "Discard",
    "First",
    "PlayLabel",
    "PlayPos",
    "Seal",
    "Show",
    "Take",
    "TokenPlay",
    "kind",
    "parse_action",
]
