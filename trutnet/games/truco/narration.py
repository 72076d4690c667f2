"""Truco's narration: the history told as a person reads it, each action from the
table as it was when it was taken.

The engine's history holds actions without their author (``play 7o@12``, ``quiero``).
:class:`Narrator` replays it in a state of its own, one action at a time, and keeps
for each what the narration needs (:class:`Told`): who acted, the hand and its dealer
then, the gallo, the cards dealt when the deal is known (self-play), and, when the
action ends a hand (or a pica-pica duel), what each side scored and why, the score and
the chicos after it. Replaying a history is what every replica does, so a seat, a
spectator catching up and ``trutnet verify`` tell the same story, whenever they read
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trutnet.engine.api import Action
from trutnet.engine.errors import EngineError
from trutnet.games.truco.rules.actions import (
    Deal,
    Dealer,
    Declare,
    Discard,
    Play,
    Show,
    Void,
    Word,
)
from trutnet.games.truco.rules.cards import rank, suit
from trutnet.i18n import _, clauses, ngettext

SUIT_TEXT = {"e": "esp", "b": "bas", "o": "oro", "c": "cop"}  # espadas, bastos, oros, copas
CALLS = ("", "", "truco", "retruco", "vale cuatro")  # by the step called (K22)


def card_text(card: str | None) -> str:
    """A card as the table and the log write it: ``7esp``, ``1bas``; ``??`` unknown."""
    if card is None:
        return "??"
    return f"{rank(card)}{SUIT_TEXT[suit(card)]}"


def points(count: int) -> str:
    return ngettext("{n} point", "{n} points", count).format(n=count)


def malas_buenas(score: int) -> str:
    """K29: 0-15 are the malas, 16-30 the buenas ("8 buenas" = 23); one of each in the
    singular."""
    if score <= 15:
        return ngettext("{n} mala", "{n} malas", score).format(n=score)
    return ngettext("{n} buena", "{n} buenas", score - 15).format(n=score - 15)


@dataclass(frozen=True)
class Scored:
    """Points a side scored at the end of a hand (or a duel), and why."""

    units: tuple[int, ...]  # the scores credited (a team; each member when rotating)
    points: int
    why: str  # "flor", "envido", "won the hand (retruco)", "truco refused"...


@dataclass(frozen=True)
class Told:
    """One action of the history and the table as it was then: its author (None for
    chance), the hand (0-based) and its dealer, the gallo; ``dealt``: each seat's cards
    when the deal is known; ``scored``: what the action scored; ``scores``, ``chicos``:
    after it; ``hand_over``: the action ended the hand (``voided``: unscored, KD9);
    ``chico``: the unit that won a chico with it; ``winner``: the match's."""

    action: Action
    seat: int | None = None
    hand: int = 0
    dealer: int = 0
    gallo: int | None = None
    replayed: bool = True
    dealt: tuple[tuple[str | None, ...], ...] = ()
    scored: tuple[Scored, ...] = ()
    scores: tuple[int, ...] = ()
    chicos: tuple[int, ...] = ()
    hand_over: bool = False
    voided: bool = False
    chico: int | None = None
    winner: int | None = None


@dataclass
class _Scoring:
    """What the shadow state scores while one action is applied."""

    items: list[tuple[str, int, int]] = field(default_factory=list)  # (why, side, points)


class Narrator:
    """The history as :class:`Told` events, replayed incrementally for a state that
    grows (a replica's), from the start for any other."""

    def __init__(self) -> None:
        self._state: Any = None
        self._shadow: Any = None
        self._events: list[Told] = []
        self._truco_why = ""  # how the hand's truco points were decided, once they are
        self._pending_why = ""  # how the action being replayed would decide them
        self._scoring = _Scoring()

    def events(self, state: Any) -> list[Told]:
        history = state.history()
        if state is not self._state or len(history) < len(self._events):
            self._state, self._events = state, []
            self._shadow = state.game.new_initial_state()
            self._watch_scoring(self._shadow)
            self._truco_why = ""
        for action in history[len(self._events) :]:
            self._events.append(self._replay(action))
        return list(self._events)

    def _watch_scoring(self, shadow: Any) -> None:
        """Read the hand's items (flor, envido, truco: K28's order) at the moment the
        shadow scores them: the next hand has forgotten them once the action is over."""
        score = shadow._score
        scoring = self

        def watched() -> None:
            items = [(_("flor"), side, pts) for side, pts in shadow.flor_pts]
            if shadow.envido_pts is not None:
                side, pts = shadow.envido_pts
                why = (
                    _("envido")
                    if shadow.envido_winner is not None
                    else _("no quiero to the envido")
                )
                items.append((why, side, pts))
            if shadow.truco_pts is not None:
                side, pts = shadow.truco_pts
                items.append((scoring._truco_why or scoring._pending_why, side, pts))
            scoring._scoring.items = items
            score()

        shadow._score = watched  # type: ignore[method-assign]

    def _replay(self, action: Action) -> Told:
        shadow = self._shadow
        if shadow is None:
            return Told(action, replayed=False)
        seat = shadow.current_seat()
        hand, dealer, gallo = shadow.hand_no, shadow.dealer, shadow.gallo()
        chicos_before = tuple(shadow.chicos)
        call = shadow.truco_call
        level = shadow.truco_level
        self._scoring = _Scoring()
        had_truco = shadow.truco_pts is not None
        self._pending_why = _truco_why(action, call, level)
        try:
            shadow.apply(action)
        except EngineError:  # told plainly from here on
            self._shadow = None
            return Told(action, replayed=False)
        if not had_truco and shadow.truco_pts is not None:
            self._truco_why = self._pending_why
        items = self._scoring.items[: len(shadow.last_scored)] if self._scoring.items else []
        if items:
            self._truco_why = ""
        scored = tuple(Scored(tuple(shadow.units_of(side)), pts, why) for why, side, pts in items)
        if isinstance(action, Deal):  # the hand dealt, not the one before
            hand, dealer, gallo = shadow.hand_no, shadow.dealer, shadow.gallo()
        dealt: tuple[tuple[str | None, ...], ...] = ()
        if isinstance(action, Deal) and action.order is not None:
            dealt = tuple(tuple(shadow.identity_of(p) for p in d) for d in shadow.dealt)
        chico = next(
            (u for u, (a, b) in enumerate(zip(chicos_before, shadow.chicos, strict=True)) if b > a),
            None,
        )
        over = shadow.phase == "over"
        return Told(
            action,
            seat=seat if seat is not None and seat >= 0 else None,
            hand=hand,
            dealer=dealer,
            gallo=gallo,
            dealt=dealt,
            scored=scored,
            scores=tuple(shadow.scores),
            chicos=tuple(shadow.chicos),
            hand_over=over or (shadow.hand_no != hand and not isinstance(action, Deal)),
            voided=isinstance(action, Void),
            chico=chico,
            winner=shadow.winner if over else None,
        )


def _truco_why(action: Action, call: list[int] | None, level: int) -> str:
    """How the truco points of a hand were decided, by the action that decided them."""
    if action == Word("no quiero") and call is not None:
        return _("no quiero to the {call}").format(call=CALLS[call[0]])
    if action == Word("mazo"):
        return _("the others went to the mazo")
    if level > 1:
        return _("won the hand at {call}").format(call=CALLS[level])
    return _("won the hand")


class Speaker:
    """Seats and scores by the players' names (``seat 2`` without them)."""

    def __init__(self, players: int, rotating: bool, names: Sequence[str] | None) -> None:
        self.players = players
        self.rotating = rotating
        self.names = list(names) if names else None

    def seat(self, seat: int | None) -> str:
        if seat is None:
            return _("someone")
        if self.names is not None and 0 <= seat < len(self.names):
            return self.names[seat]
        return _("seat {seat}").format(seat=seat)

    def unit_seats(self, unit: int) -> list[int]:
        """The seats whose score is ``unit`` (K6, K9)."""
        if self.rotating:
            return [unit]
        if self.players == 3:
            return [0] if unit == 0 else [1, 2]
        return [s for s in range(self.players) if s % 2 == unit]

    def unit(self, unit: int) -> str:
        return "+".join(self.seat(s) for s in self.unit_seats(unit))

    def verb(self, unit: int, you: str, one: str, many: str) -> str:
        """``Ana wins``, ``Ana+Cid win``, ``You win``: a unit as one subject, in the
        sentence (already translated, ``{who}`` the unit) for ``You`` alone, another
        seat alone, or a team."""
        seats = self.unit_seats(unit)
        if len(seats) == 1 and self.seat(seats[0]) in ("You", _("You")):
            return you
        return (one if len(seats) == 1 else many).format(who=self.unit(unit))

    def units(self, units: Sequence[int]) -> str:
        said = ""
        for u in units:
            name = self.unit(u)
            said = _("{some} and {other}").format(some=said, other=name) if said else name
        return said

    @staticmethod
    def standing(score: int, chicos: int) -> str:
        """A unit's score: ``8 malas, 1 chico`` (K29)."""
        count = ngettext("{n} chico", "{n} chicos", chicos).format(n=chicos)
        return f"{malas_buenas(score)}, {count}"

    def score(self, scores: Sequence[int], chicos: Sequence[int]) -> str:
        return clauses(
            _("{who}: {what}").format(who=self.unit(u), what=self.standing(p, chicos[u]))
            for u, p in enumerate(scores)
        )


def scored_lines(event: Told, say: Speaker) -> list[str]:
    """What the hand scored, one phrase a side and reason: ``Ana+Cid: +2 (envido)``."""
    return [
        _("{who}: +{points} ({why})").format(
            who=say.units(s.units), points=points(s.points), why=s.why
        )
        for s in event.scored
    ]


def chico_line(event: Told, say: Speaker) -> str:
    """Who won a chico with the event: ``Ana+Cid win a chico``."""
    assert event.chico is not None
    return say.verb(
        event.chico, _("You win a chico"), _("{who} wins a chico"), _("{who} win a chico")
    )


def narrate(
    event: Told, players: int, rotating: bool, names: Sequence[str] | None, show_hands: bool
) -> list[str]:
    """Lines for one event, by the players' names (``seat 0`` without them)."""
    say = Speaker(players, rotating, names)
    action = event.action
    if isinstance(action, Dealer):
        return [_("{who} deals first").format(who=say.seat(action.seat))]
    if isinstance(action, Void):
        return [_("the hand is void: a new player took a seat; the same dealer deals again")]
    if not event.replayed:
        return [str(action)]
    who = say.seat(event.seat)
    lines: list[str] = []
    if isinstance(action, Deal):
        lines.append(
            _("hand {hand}: {who} deals").format(hand=event.hand + 1, who=say.seat(event.dealer))
        )
        if show_hands:
            for seat, cards in enumerate(event.dealt):
                dealt = " ".join(card_text(c) for c in cards)
                lines.append("  " + _("{who}: {what}").format(who=say.seat(seat), what=dealt))
    elif isinstance(action, Discard):
        lines.append(_("{who}, the gallo, discards a card face down").format(who=who))
    elif isinstance(action, Play):
        lines.append(_("{who} plays {card}").format(who=who, card=card_text(action.card)))
    elif isinstance(action, Declare):
        lines.append(_("{who} declares {value}").format(who=who, value=action.value))
    elif isinstance(action, Show):
        if all(c is not None for _pos, c in action.cards):
            cards = " ".join(card_text(c) for _pos, c in action.cards)
            lines.append(_("{who} shows {cards}").format(who=who, cards=cards))
        else:  # K21: turned face up by the shares that follow, not known here yet
            count = len(action.cards)
            said = ngettext("{who} shows a card", "{who} shows {n} cards", count)
            lines.append(said.format(who=who, n=count))
    elif isinstance(action, Word):
        lines.append(_("{who}: {what}").format(who=who, what=action.word))
    else:
        lines.append(_("{who}: {what}").format(who=who, what=action))
    if event.scored:
        lines += ["  " + line for line in scored_lines(event, say)]
    if event.chico is not None:
        lines.append("  " + chico_line(event, say))
    if event.scored or event.chico is not None:
        lines.append("  " + _("score: {score}").format(score=say.score(event.scores, event.chicos)))
    if event.winner is not None:
        lines.append(
            say.verb(
                event.winner,
                _("game over: You win the match"),
                _("game over: {who} wins the match"),
                _("game over: {who} win the match"),
            )
        )
    return lines
