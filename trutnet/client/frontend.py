"""What a game gives the terminal client: its :class:`Frontend`, and the registry of them.

The client keeps one frame for every game: the lobby, the waiting line, the log, the
verification line, the spectators' line, the help screen, the quit question, the end
screen and the resume hints. The game's front-end fills that frame: the table area
drawn from one observation, the narration of its events, its help text, its keys
(which of them do something now, and the action notation each one means) and its
prompts, the names of its automatic steps, and what a round that just ended scored
(:class:`RoundOver`): the frame shows it, the same way for every game, until the person
presses a key.

An observation has at least ``seat`` (-1 for a spectator's), ``to_act`` (the seat to
act, a negative number at a chance node, None once the game is over) and ``legal``
(the seat's legal actions): the frame reads those three, the front-end the rest.

A game plugin registers its front-end with :func:`register_frontend` when imported;
:func:`frontend_for` loads the plugins (:mod:`trutnet.plugins`) when asked for a game
it does not know yet. A front-end instance serves one screen and may keep what it
shows between events (a round's summary, the card selected).
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from trutnet.i18n import N_, _
from trutnet.plugins import load_plugins

if TYPE_CHECKING:
    from trutnet.client.view import Line, TableInfo

# The keys the frame keeps for itself (prompt-toolkit names). Enter goes to the game
# when the frame has nothing to do with it (no finished round on screen: while one is,
# every key of the game's only dismisses it).
FRAME_KEYS = frozenset(
    {"q", "c-c", "y", "n", "?", "escape", "b", "up", "down", "pageup", "pagedown", " "}
)


@dataclass(frozen=True)
class Press:
    """What a key meant: an action to send (its notation), or a line saying why
    nothing happens; neither: the screen changed (a selection), draw it again."""

    action: str | None = None
    say: str | None = None


class Cue(enum.Enum):
    """What an event means to the frame."""

    ROUND_STARTS = "round starts"  # the last round's messages leave the screen
    ROUND_ENDS = "round ends"  # its summary (Frontend.round_over) stays until a key


@dataclass(frozen=True)
class RoundOver:
    """A round that just ended, as the frame shows it until a key: the score after it
    (the game's own rows), its heading ("Hand 3 is over"), what happened in it (tricks,
    a combat), and who scored what and why, one phrase a line ("You & Bot 2 win the
    hand: +1 Long"; "nobody scores: ..."). The frame draws it the same way for every
    game."""

    heading: str
    scored: tuple[str, ...]
    score: tuple[Line, ...] = ()
    rows: tuple[Line, ...] = ()


class Frontend(ABC):
    """One game's parts of the screen, for one screen (a seat's or a spectator's)."""

    game: ClassVar[str]  # the game's registry name
    long_name: ClassVar[str]  # as people say it (capitals, spaces)
    keys: ClassVar[tuple[str, ...]] = ()  # the keys it takes (never one of FRAME_KEYS)
    # The words below are marked N_ by each game and translated where shown.
    round_word: ClassVar[str] = N_("round")  # "hand": "Closing the …", the log's rounds
    rounds_word: ClassVar[str] = N_("rounds")  # "hands": the end screen's rows
    chance_step: ClassVar[str] = N_("Drawing")  # the waiting line at a chance node
    chance_wait: ClassVar[str] = N_("the table is drawing")  # a key pressed meanwhile
    not_ready: ClassVar[str] = N_("wait a moment")  # a key pressed before ready()
    sign_key: ClassVar[str] = ""  # the key of the signs' menu where the game has signs

    # ------------------------------------------------------------ observations

    def observation(self, state: Any, seat: int) -> Any:
        """What ``seat`` sees of ``state``."""
        return state.observation(seat)

    @abstractmethod
    def spectator_observation(self, state: Any) -> Any:
        """What everyone at the table sees: no seat, no hand, nothing to decide."""

    def events(self, state: Any) -> Sequence[Any]:
        """The public events so far, oldest first, as :meth:`narrate` and
        :meth:`follow` take them (default: the actions applied)."""
        return state.history()

    # ---------------------------------------------------------------- the screen

    @abstractmethod
    def title(self, obs: Any) -> str:
        """The table's title line: the game, its variant, its players and its goal."""

    @abstractmethod
    def table_area(self, obs: Any, info: TableInfo, width: int) -> list[Line]:
        """The rows between the title and the waiting line (while the frame shows a
        round that ended, :meth:`round_over` takes their place)."""

    @abstractmethod
    def prompt(self, obs: Any, info: TableInfo) -> str:
        """What this seat is asked to do now, with its keys ("Your turn: play …")."""

    def action_words(self, action: str, obs: Any) -> str:
        """An action of the notation as this screen says it (a hint names it so)."""
        return action

    def deciding(self, obs: Any) -> str:
        """What the seat to act is deciding, after its name: "to play"."""
        return ""

    def ready(self, obs: Any, info: TableInfo) -> bool:
        """Whether this seat can decide now with everything it needs in sight."""
        return True

    @abstractmethod
    def key_hints(self, obs: Any, info: TableInfo) -> list[str]:
        """The keys that do something now, and only those, each with its use: ["1-3 play"]."""

    @abstractmethod
    def press(self, key: str, obs: Any, info: TableInfo) -> Press:
        """What ``key`` means now (only keys of :attr:`keys`, on this seat's screen)."""

    def why_not(self, action: str, obs: Any) -> str:
        """One line saying why ``action`` is not possible now."""
        return _("'{action}' is not possible now").format(action=action)

    def sent(self, action: str) -> None:  # noqa: B027  (a hook: most games keep nothing)
        """The seat's decision went out: forget a choice in progress."""

    @abstractmethod
    def help(self, spectator: bool) -> str:
        """The help screen's text (a spectator's keys differ), at most 80 columns."""

    def sign_words(self, card: str) -> str:
        """A sign of the game's menu (``GameState.signs``) as the screen names it (the
        sign and the gesture it is made with); a game without signs never asks."""
        return card

    def round_label(self, obs: Any) -> str:
        """The round in progress, as the waiting line names it: "hand 3"."""
        return self.round_word

    # ---------------------------------------------------------------- events

    @abstractmethod
    def narrate(
        self,
        event: Any,
        state: Any,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        """Lines of text for one event (``state`` right after it); ``names``: one per
        seat; ``show_hands``: the cards of every hand, for a state that knows them."""

    def follow(self, event: Any, state: Any, info: TableInfo) -> Cue | None:
        """Keep what the screen shows between events; what the event means to the
        frame."""
        return None

    def round_over(self, obs: Any, info: TableInfo) -> RoundOver | None:
        """The round that ended at the last :attr:`Cue.ROUND_ENDS`, as the frame shows
        it until a key (``obs``: the table now, for what does not change: its teams,
        its target); None: the frame says only that the round is over."""
        return None

    def step_label(self, kind: str, state: Any) -> str | None:
        """The name of an automatic step of the table (``shares``, ``commit``...)
        in this game's words, or None for the frame's."""
        return None

    # ---------------------------------------------------------------- the end

    @abstractmethod
    def end_title(self, obs: Any, info: TableInfo) -> str:
        """Who won: "you win!", "Bot 1 wins"."""

    @abstractmethod
    def end_table(self, obs: Any, info: TableInfo, width: int) -> tuple[list[Line], list[Line]]:
        """The end screen's rows under the title: those that stay, and one per round
        (they scroll when they do not fit)."""

    def score(self, state: Any) -> str:
        """The final score in one phrase, for ``trutnet verify`` ("" for none)."""
        return ""


_FRONTENDS: dict[str, type[Frontend]] = {}


class NoFrontend(LookupError):
    """No screen for that game; the message says so in one line."""


def register_frontend(cls: type[Frontend]) -> type[Frontend]:
    """Register a game's front-end under its ``game`` name (usable as a class
    decorator). Its keys must leave the frame's alone."""
    taken = (set(cls.keys) & FRAME_KEYS) - {"enter"}
    if taken:
        raise ValueError(f"{cls.__name__} takes the frame's keys {sorted(taken)}")
    existing = _FRONTENDS.get(cls.game)
    if existing is not None and existing is not cls:
        raise ValueError(f"the {cls.game} game already has a front-end")
    _FRONTENDS[cls.game] = cls
    return cls


def frontend_for(game: str) -> Frontend:
    """A new front-end for ``game`` (one per screen); :class:`NoFrontend` if no plugin
    gives that game a screen."""
    if game not in _FRONTENDS:
        load_plugins()
    cls = _FRONTENDS.get(game)
    if cls is None:
        known = ", ".join(sorted(_FRONTENDS)) or _("none")
        raise NoFrontend(
            _("no screen for the game {game} (games with one: {known})").format(
                game=repr(game), known=known
            )
        )
    return cls()


def frontends() -> Mapping[str, type[Frontend]]:
    """The registered front-ends, by game name."""
    return dict(_FRONTENDS)
