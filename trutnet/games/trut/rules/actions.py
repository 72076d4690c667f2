"""Trut actions: immutable values with a readable notation that round-trips.

Notation (``docs/games/trut.md``, "Action notation")::

    draw 7h              chance: a face-up card to choose the first Donneur [T3]
    deal                 chance: a deal whose deck order is unknown here [T4]
    deal 7h 8d ...       chance: a deal with the whole deck order (32 cards)
    play 7h | play 7h@12 | play @12
    prepare | prepare A C ...   chance (Deluxe): the pool of special cards [T25]
    keep E@3 | keep @3          Deluxe: the special card a seat keeps [T25]
    die 4                       chance (Deluxe): a joint die [T22, T30]
    hit Kh | steal | steal 2 | bat Kh +1 | bat Kh -1   Deluxe: a power's choice [T36-T40]
    falcon E@35 | falcon none   chance (Deluxe): where the table found the Falcon [T33]
    hedgehog M@7 | hedgehog none   chance (Deluxe): the Hedgehog found in a new pool,
                                kept aside while its protection stands [T42]
    hare 7h@12 | hare @12       chance (Deluxe): the Hare's drawn card, revealed [T34]
    michao                      Deluxe: sing Michao in its window [T44]
    nutria 7h@12 | pick 7h@12 | pick @12   Deluxe: the Nutria's replacement [T35]
    target 2 | give 7h@3 | give @3 | force @5   Deluxe: the Weasel's choices [T37]
    swap @5                     chance (Deluxe): the target's card the Weasel takes [T37]
    trut | accept | fold | pass | sing | agree | refuse | sing 2
    keep 7h 8d As | keep @3 @7 @12 | keep 7h@3 8d@7 As@12

A card reference (:class:`CardRef`) is a card, a deck position, or both. ``str`` of any
action is its notation, and :func:`parse_action` of that string gives an equal value.
"""

from __future__ import annotations

from dataclasses import dataclass

from trutnet.engine.api import Action
from trutnet.engine.errors import NotationError
from trutnet.games.trut.rules.cards import Card, format_cards, parse_card
from trutnet.games.trut.rules.deluxe.cards import AnyCard, Special, is_letter, special

MAX_POSITION = 255


def parse_any_card(text: str) -> AnyCard:
    """A normal card (``7h``) or, in Deluxe, a special card's letter (``E``) [T23]."""
    return special(text) if is_letter(text) else parse_card(text)


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card in a hand: its identity, its deck position, or both."""

    card: AnyCard | None = None
    pos: int | None = None

    def __post_init__(self) -> None:
        if self.card is None and self.pos is None:
            raise NotationError("a card reference needs a card or a position")
        if self.pos is not None and not 0 <= self.pos <= MAX_POSITION:
            raise NotationError(f"deck position out of range: {self.pos}")

    def __str__(self) -> str:
        card = "" if self.card is None else str(self.card)
        return card if self.pos is None else f"{card}@{self.pos}"

    def hidden(self) -> CardRef:
        """The reference without its identity (position only); it must have a position."""
        if self.pos is None:
            raise NotationError("cannot hide the identity of a reference with no position")
        return CardRef(None, self.pos)

    @staticmethod
    def parse(text: str) -> CardRef:
        card_text, at, pos_text = text.partition("@")
        card = parse_any_card(card_text) if card_text else None
        pos: int | None = None
        if at:
            if not pos_text.isdigit() or (len(pos_text) > 1 and pos_text[0] == "0"):
                raise NotationError(f"bad deck position in {text!r}")
            pos = int(pos_text)
        return CardRef(card, pos)


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Chance: one face-up card for the choice of the first Donneur [T3]."""

    card: Card

    def __str__(self) -> str:
        return f"draw {self.card}"

    def public(self) -> Draw:
        return self


@dataclass(frozen=True, slots=True)
class Deal(Action):
    """Chance: a hand's deal; ``deck`` is the whole deck order when known [T4]."""

    deck: tuple[AnyCard, ...] | None = None

    def __str__(self) -> str:
        return "deal" if self.deck is None else f"deal {format_cards(self.deck)}"  # type: ignore[arg-type]

    def public(self) -> Deal:
        return Deal(None)


@dataclass(frozen=True, slots=True)
class Prepare(Action):
    """Chance (Deluxe): the special cards' pool, shuffled; ``pool`` is its order when
    known [T25]. Two positions per seat are dealt in T4 order."""

    pool: tuple[Special, ...] | None = None

    def __str__(self) -> str:
        return "prepare" if self.pool is None else "prepare " + " ".join(map(str, self.pool))

    def public(self) -> Prepare:
        return Prepare(None)


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play a card of one's hand [T5]. A played card always shows its identity."""

    ref: CardRef

    def __str__(self) -> str:
        return f"play {self.ref}"

    def public(self) -> Play:
        return self


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """After la Chanson, the three cards a seat keeps [T19]; the rest are discarded."""

    refs: tuple[CardRef, ...]

    def __str__(self) -> str:
        return "keep " + " ".join(str(r) for r in self.refs)

    def public(self) -> Keep:
        return Keep(tuple(r.hidden() if r.pos is not None else r for r in self.refs))


@dataclass(frozen=True, slots=True)
class SingCount(Action):
    """The singer asks for 1, 2 or 3 extra cards per seat [T19]."""

    count: int

    def __str__(self) -> str:
        return f"sing {self.count}"

    def public(self) -> SingCount:
        return self


@dataclass(frozen=True, slots=True)
class Word(Action):
    """An action that is a single word: trut, accept, fold, pass, sing, agree, refuse."""

    word: str

    def __str__(self) -> str:
        return self.word

    def public(self) -> Word:
        return self


@dataclass(frozen=True, slots=True)
class Void(Action):
    """Administrative: the table voids the hand in progress (D16). No seat chooses it;
    the table protocol applies it when a stalled seat is replaced by a bot."""

    def __str__(self) -> str:
        return "void"

    def public(self) -> Void:
        return self


@dataclass(frozen=True, slots=True)
class Die(Action):
    """Chance (Deluxe): the die, 1 to 6, drawn jointly [T22, T30]."""

    value: int

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise NotationError(f"a die shows 1 to 6, not {self.value}")

    def __str__(self) -> str:
        return f"die {self.value}"

    def public(self) -> Die:
        return self


@dataclass(frozen=True, slots=True)
class HareDraw(Action):
    """Chance (Deluxe): the next stock card, revealed, lends its value to the Hare [T34]."""

    ref: CardRef

    def __str__(self) -> str:
        return f"hare {self.ref}"

    def public(self) -> HareDraw:
        return self


@dataclass(frozen=True, slots=True)
class NutriaDraw(Action):
    """Chance (Deluxe): the next stock card, revealed, replaces the Nutria [T35]."""

    ref: CardRef

    def __str__(self) -> str:
        return f"nutria {self.ref}"

    def public(self) -> NutriaDraw:
        return self


@dataclass(frozen=True, slots=True)
class FalconShown(Action):
    """Chance (Deluxe): the Falcon found among the dealt hands by the table, shown at
    its position (``falcon E@35``), or in no hand (``falcon none``) [T33]."""

    ref: CardRef | None

    def __post_init__(self) -> None:
        if self.ref is not None and (
            self.ref.pos is None
            or not isinstance(self.ref.card, Special)
            or self.ref.card.letter != "E"
        ):
            raise NotationError("the Falcon is shown as E at its position: falcon E@35")

    def __str__(self) -> str:
        return f"falcon {'none' if self.ref is None else self.ref}"

    def public(self) -> FalconShown:
        return self


@dataclass(frozen=True, slots=True)
class HedgehogAside(Action):
    """Chance (Deluxe): after a void (D22), the Hedgehog found by the table among the
    new pool's positions (``hedgehog M@7``) stays aside while its team's protection
    stands, out of the specials dealt to choose [T42]; ``hedgehog none`` is what a
    replica waits for before the table has looked."""

    ref: CardRef | None

    def __post_init__(self) -> None:
        if self.ref is not None and (
            self.ref.pos is None
            or not isinstance(self.ref.card, Special)
            or self.ref.card.letter != "M"
        ):
            raise NotationError("the Hedgehog is found as M at its position: hedgehog M@7")

    def __str__(self) -> str:
        return f"hedgehog {'none' if self.ref is None else self.ref}"

    def public(self) -> HedgehogAside:
        return self


@dataclass(frozen=True, slots=True)
class Swap(Action):
    """Chance (Deluxe): the position of the target's hand that the Weasel's player
    receives in the exchange, drawn jointly among the target's positions [T37]."""

    pos: int

    def __post_init__(self) -> None:
        if not 0 <= self.pos <= MAX_POSITION:
            raise NotationError(f"deck position out of range: {self.pos}")

    def __str__(self) -> str:
        return f"swap @{self.pos}"

    def public(self) -> Swap:
        return self


POWER_VERBS = ("hit", "steal", "bat", "michao", "pick", "target", "give", "force")


@dataclass(frozen=True, slots=True)
class Power(Action):
    """Deluxe: a power's choice: ``hit Kh`` (the Badger's Figure, T39), ``steal`` or
    ``steal 2`` (the Magpie, T36; a seat with 3 players), ``bat Kh +1`` (the Bat, T40),
    ``target 2``, ``give 7h@3`` and ``force @5`` (the Weasel, T37)."""

    verb: str
    args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        shapes = {"hit": (1,), "steal": (0, 1), "bat": (2,), "michao": (0,)}
        shapes.update(pick=(1,), target=(1,), give=(1,), force=(1,))
        if self.verb not in shapes or len(self.args) not in shapes[self.verb]:
            raise NotationError(f"not a power: {self.verb} {' '.join(self.args)}")
        if self.verb in ("hit", "bat"):
            parse_any_card(self.args[0])
        if self.verb in ("pick", "give", "force"):
            ref = CardRef.parse(self.args[0])
            if self.verb in ("give", "force") and ref.pos is None:
                raise NotationError(f"{self.verb} names a deck position ({self.verb} @3)")
        if self.verb == "force" and CardRef.parse(self.args[0]).card is not None:
            raise NotationError("the Weasel's pick is blind: force @5, no card")
        if self.verb == "target" and self.args[0] not in ("0", "1", "2", "3", "4", "5"):
            raise NotationError("target names a seat 0-5")
        if self.verb == "bat" and self.args[1] not in ("+1", "-1"):
            raise NotationError("the Bat gives +1 or -1")
        if self.verb == "steal" and self.args and self.args[0] not in ("0", "1", "2"):
            raise NotationError("steal names a seat 0-2")

    def __str__(self) -> str:
        return " ".join((self.verb, *self.args))

    def public(self) -> Power:
        return self


WORDS = ("trut", "accept", "fold", "pass", "sing", "agree", "refuse")
TRUT, ACCEPT, FOLD, PASS, SING, AGREE, REFUSE = (Word(w) for w in WORDS)


def parse_action(text: str) -> Action:
    """Parse Trut action notation exactly; anything else is a NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"action notation must be a string, not {type(text).__name__}")
    parts = text.split(" ")
    if "" in parts or text != text.strip():
        raise NotationError(f"bad spacing in action {text!r}")
    verb, args = parts[0], parts[1:]
    if verb in WORDS and not args:
        return Word(verb)
    if verb == "void" and not args:
        return Void()
    if verb == "die" and len(args) == 1 and args[0] in ("1", "2", "3", "4", "5", "6"):
        return Die(int(args[0]))
    if verb == "nutria" and len(args) == 1:
        return NutriaDraw(CardRef.parse(args[0]))
    if verb == "hare" and len(args) == 1:
        return HareDraw(CardRef.parse(args[0]))
    if verb == "falcon" and args == ["none"]:
        return FalconShown(None)
    if verb == "falcon" and len(args) == 1:
        return FalconShown(CardRef.parse(args[0]))
    if verb == "hedgehog" and args == ["none"]:
        return HedgehogAside(None)
    if verb == "hedgehog" and len(args) == 1:
        return HedgehogAside(CardRef.parse(args[0]))
    if verb == "swap" and len(args) == 1:
        ref = CardRef.parse(args[0])
        if ref.card is not None or ref.pos is None:
            raise NotationError(f"swap names a position only: {text!r}")
        return Swap(ref.pos)
    if verb in POWER_VERBS:
        return Power(verb, tuple(args))
    if verb == "draw" and len(args) == 1:
        return Draw(parse_card(args[0]))
    if verb == "deal":
        return Deal(tuple(parse_any_card(a) for a in args) if args else None)
    if verb == "prepare":
        if not all(is_letter(a) for a in args):
            raise NotationError(f"prepare names special cards A-R: {text!r}")
        return Prepare(tuple(special(a) for a in args) if args else None)
    if verb == "play" and len(args) == 1:
        return Play(CardRef.parse(args[0]))
    if verb == "keep" and args:
        return Keep(tuple(CardRef.parse(a) for a in args))
    if verb == "sing" and len(args) == 1 and args[0] in ("1", "2", "3"):
        return SingCount(int(args[0]))
    raise NotationError(f"not a Trut action: {text!r}")
