"""Trut's front-end: what the terminal client shows and takes for a Trut table.

It follows the game's events to keep what the screen shows between them (this hand's
tricks, the last hand's result, the table of hands of the end screen), turns Trut's
keys into action notation (``1``-``9`` a card or la Chanson's count, arrows and Enter,
``t`` Trut, ``j`` Joue !/agree, ``c`` fold/refuse, ``p`` pass, ``s`` sing) and says
in one line why an action is not possible now, citing the rule (T9, T19). The drawing
is :mod:`.screen`, the narration :mod:`.narration`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press, RoundOver
from trutnet.client.view import Line, TableInfo
from trutnet.games.trut import screen
from trutnet.games.trut.narration import Speaker, hand_result, narrate
from trutnet.games.trut.rules.actions import Deal, SingCount, parse_any_card
from trutnet.games.trut.rules.declaration import TRUT
from trutnet.games.trut.rules.observation import TrutObservation
from trutnet.games.trut.rules.state import TrutState
from trutnet.i18n import N_, _, ngettext

NUMBER_KEYS = tuple("123456789")
WORD_KEYS = {"t": "trut", "j": None, "c": None, "p": "pass", "s": "sing"}
# How a summary says Trut's options that are on (the declaration's ``said``, and
# its keys in words), for the catalog: the command line shows them translated
OPTIONS_SAID = (N_("sum on patté"), N_("Michao with the Hare"), N_("bonus cards"))
# A word of the notation as a hint says it, with its key (the key bar's words)
WORDS_SAID = {
    "trut": N_("Trut (key t)"),
    "accept": N_("Joue ! (key j)"),
    "fold": N_("Je me couche (key c)"),
    "pass": N_("pass (key p)"),
    "sing": N_("sing (key s)"),
    "agree": N_("agree to sing (key j)"),
    "refuse": N_("refuse to sing (key c)"),
}


def share_step(state: Any) -> str:
    """Which of Trut's share rounds the table runs, from the action before it: the deal
    (T4), la Chanson's cards (T19), or the Fortial opponents' cards (T15)."""
    history = state.history() if state is not None else []
    last = history[-1] if history else None
    if last is None or isinstance(last, Deal):
        return _("Dealing")
    if isinstance(last, SingCount):
        return _("Dealing la Chanson's cards")
    return _("Dealing the cards held back for the Fortial")


class TrutFrontend(Frontend):
    """Trut on one screen."""

    game = "trut"
    long_name = TRUT.title
    keys = (*NUMBER_KEYS, *WORD_KEYS, "left", "right", "enter")
    round_word = N_("hand")
    rounds_word = N_("hands")
    chance_step = N_("Dealing")
    chance_wait = N_("the cards are being dealt")
    not_ready = N_("your cards are being dealt")

    def __init__(self) -> None:
        self.choice = screen.Choice()
        self.last_hand: screen.HandSummary | None = None  # shown while the frame pauses
        self.history: list[screen.HandRow] = []  # every finished hand, for the end screen
        self._tricks: list[tuple[list[tuple[int, Any]], str]] = []  # this hand's, so far
        self._score: tuple[list[int], list[int]] | None = None  # tokens before this hand
        self.deluxe = False  # the table plays Trut Deluxe: its help page [T23]

    # ------------------------------------------------------------ observations

    def spectator_observation(self, state: TrutState) -> TrutObservation:
        """A seat's observation without the seat, its hand or its choices (a
        spectator's replica knows no card in any hand anyway)."""
        return dataclasses.replace(state.observation(0), seat=-1, team=-1, hand=(), legal=())

    def events(self, state: TrutState) -> Sequence[dict[str, Any]]:
        return state.events

    # ---------------------------------------------------------------- the screen

    def title(self, obs: TrutObservation) -> str:
        return screen.title(obs)

    def table_area(self, obs: TrutObservation, info: TableInfo, width: int) -> list[Line]:
        self.deluxe = obs.deluxe
        return screen.table_area(obs, info, self.choice)

    def prompt(self, obs: TrutObservation, info: TableInfo) -> str:
        return screen.prompt(obs)

    def deciding(self, obs: TrutObservation) -> str:
        return screen.deciding(obs.phase)

    def ready(self, obs: TrutObservation, info: TableInfo) -> bool:
        return screen.ready(obs)

    def key_hints(self, obs: TrutObservation, info: TableInfo) -> list[str]:
        return screen.key_hints(obs)

    def round_label(self, obs: TrutObservation) -> str:
        return _("hand {number}").format(number=obs.hand_number + 1)

    def help(self, spectator: bool) -> str:
        # Deluxe's when the table plays the special cards [T23]
        return screen.help_page(spectator, deluxe=self.deluxe)

    # ------------------------------------------------------------------ keys

    def press(self, key: str, obs: TrutObservation, info: TableInfo) -> Press:
        mine = obs.to_act == obs.seat
        if key in NUMBER_KEYS:
            number = int(key)
            if obs.phase in ("choose", "power", "michao") and mine:  # Deluxe
                options = screen.choices(obs)
                if number > len(options):
                    return Press(say=_("choose 1-{count}").format(count=len(options)))
                return Press(options[number - 1])
            if obs.phase == "sing_count" and mine:
                return Press(f"sing {number}")
            if obs.phase == "keep" and mine:
                self.choice.keep ^= {number - 1}
                return Press()
            return self._play(number - 1, obs)
        if key in ("left", "right"):
            if obs.hand:
                step = -1 if key == "left" else 1
                self.choice.selected = (self.choice.selected + step) % len(obs.hand)
            return Press()
        if key == "enter":
            if obs.phase == "keep":
                chosen = sorted(self.choice.keep)
                cards = [obs.hand[i][1] for i in chosen if i < len(obs.hand)]
                if len(cards) != 3:
                    return Press(say=_("choose exactly 3 cards to keep (toggle with 1-9)"))
                return Press("keep " + " ".join(str(c) for c in cards if c is not None))
            return self._play(self.choice.selected, obs)
        word = WORD_KEYS[key]
        if key == "j":
            word = "agree" if obs.phase == "sing_agree" else "accept"
        if key == "c":
            word = "refuse" if obs.phase == "sing_agree" else "fold"
        return Press(word)

    def action_words(self, action: str, obs: TrutObservation) -> str:
        """A move as the screen says it, with the key that sends it: ``play 7♥ (key
        2)``, ``Joue ! (key j)``, a Deluxe choice as its prompt names it."""
        word, _space, rest = action.partition(" ")
        if word == "play":
            for index, (_pos, card) in enumerate(obs.hand):
                if card is not None and str(card) == rest:
                    said = _("play {card} (key {key})")
                    return said.format(card=screen.card_text(card)[1], key=index + 1)
        if action in WORDS_SAID:
            return _(WORDS_SAID[action])
        if word == "sing" and rest.isdigit():  # T19: how many cards, by its number key
            return _("sing {n} cards (key {n})").format(n=rest)
        options = screen.choices(obs) if obs.phase in ("choose", "power", "michao") else []
        if action in options:  # Deluxe [T25, T34-T44]: by its number key
            index = options.index(action)
            said = screen.choice_words(obs)[index]
            return _("{choice} (key {key})").format(choice=said, key=index + 1)
        if word == "keep":  # T25 (Deluxe's discard): the three cards kept
            cards = " ".join(screen.card_text(parse_any_card(c))[1] for c in rest.split())
            return _("keep {cards}").format(cards=cards)
        return action

    def _play(self, index: int, obs: TrutObservation) -> Press:
        if index >= len(obs.hand):
            count = len(obs.hand)
            return Press(
                say=ngettext("you have {n} card", "you have {n} cards", count).format(n=count)
            )
        card = obs.hand[index][1]
        if card is None:
            return Press(say=_("you cannot see that card yet (Fortial)"))
        self.choice.selected = 0
        return Press(f"play {card}")

    def sent(self, action: str) -> None:
        self.choice.keep = set()

    def why_not(self, action: str, obs: TrutObservation) -> str:
        """One line saying why an action is not possible now."""
        if action == "trut":
            if obs.trut is not None:
                return _("you cannot Trut: there is already a Trut this hand (T9)")
            return _("you can Trut only on your turn to play, before your card (T9)")
        if action in ("accept", "fold"):
            if obs.trut is not None and obs.trut.kind == "chanson":
                return _("no fold under la Chanson: the hand is an accepted Trut (T19)")
            return _("there is no Trut to answer now")
        if action.startswith("play"):
            instead = {
                "answer": N_("answer the Trut with j or c"),
                "fortial": N_("t to Trut or p to pass"),
                "sing_ask": N_("s to sing or p to pass"),
                "sing_agree": N_("j to agree or c to refuse"),
            }.get(obs.phase, N_("wait"))
            return _("you cannot play now: {instead}").format(instead=_(instead))
        if action == "pass":
            return _("nothing to pass now")
        if action.startswith("sing"):
            return _("there is no Chanson to sing now")
        return super().why_not(action, obs)

    # ---------------------------------------------------------------- events

    def narrate(
        self,
        event: dict[str, Any],
        state: TrutState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        return narrate(event, state, show_hands=show_hands, names=names)

    def follow(self, event: dict[str, Any], state: TrutState, info: TableInfo) -> Cue | None:
        """Keep this hand's tricks, the last hand's result and the score table."""
        kind = event["event"]
        if kind == "deal":
            self._tricks = []
            self.choice = screen.Choice()
            if self._score is None:
                self._score = ([0] * len(state.teams), [0] * len(state.teams))
            return Cue.ROUND_STARTS
        if kind == "trick":
            if event["patte"]:
                taker = _("patté")
            elif event["by_sum"]:
                team = self._team(state.teams[event["team"]], info)
                taker = _("{team} (on the sum)").format(team=team)
            else:
                taker = _("you") if event["winner"] == info.me else info.names[event["winner"]]
            cards = [(seat, parse_any_card(card)) for seat, card in event["cards"]]  # T23
            self._tricks.append((cards, taker))
        elif kind == "hand_end":
            before = self._score or ([0] * len(state.teams), [0] * len(state.teams))
            self._score = (list(event["longs"]), list(event["petits"]))
            outcome = self._outcome(event, state, info)
            scores = (list(event["longs"]), list(event["petits"]))
            gain = self._gain(before, event, state, info)
            self.history.append((event["hand"], *self._short(event), *scores))
            self.last_hand = screen.HandSummary(event["hand"], self._tricks, outcome, gain, scores)
            self._tricks = []
            return Cue.ROUND_ENDS
        return None

    def _team(self, seats: Any, info: TableInfo) -> str:
        return " & ".join(_("You") if s == info.me else info.names[s] for s in seats)

    def _outcome(self, event: dict[str, Any], state: TrutState, info: TableInfo) -> str:
        """How the hand ended, with "You" for this seat: ``You & Bot 2 win by fold``."""
        text = hand_result(event, Speaker(state, info.names, me=info.me))
        return text.split(" [")[0] if event["result"] in ("fold", "won") else text

    def _short(self, event: dict[str, Any]) -> tuple[str, int | None]:
        """How the hand ended, for the end screen's table: the how (marked, translated
        there), and the team it names after it (the end screen names the team: by its
        players, or Team 1)."""
        team = event["team"]
        return {
            "won": (N_("won by"), team),
            "fold": (N_("won by fold:"), team),
            "target": (N_("the target reached by"), team),
            "pourrie": (N_("pourrie: nobody scores"), None),
            "void": (N_("void: nobody scores"), None),
            "fortial_pass": (N_("Fortial passed: opponents score"), None),
        }.get(event["result"], (event["result"], None))

    def _gain(
        self,
        before: tuple[list[int], list[int]],
        event: dict[str, Any],
        state: TrutState,
        info: TableInfo,
    ) -> str:
        """What the hand scored: ``+1 Long``, ``Bot 1 +1 Petit`` (another team)."""
        gains = []
        for team in range(len(state.teams)):
            longs = event["longs"][team] - before[0][team]
            petits = event["petits"][team] - before[1][team]
            if longs > 0:
                won = ngettext("+{n} Long", "+{n} Longs", longs).format(n=longs)
            elif petits > 0 and not any(
                event["longs"][t] > before[0][t] for t in range(len(state.teams))
            ):
                won = ngettext("+{n} Petit", "+{n} Petits", petits).format(n=petits)
            else:
                continue
            same = event["team"] == team
            gains.append(won if same else f"{self._team(state.teams[team], info)} {won}")
        return ", ".join(gains)

    def round_over(self, obs: TrutObservation, info: TableInfo) -> RoundOver | None:
        if self.last_hand is None:
            return None
        return screen.round_over(obs, self.last_hand, info)

    def step_label(self, kind: str, state: TrutState) -> str | None:
        if kind in ("commit", "reveal"):
            return _("Drawing for Donneur")  # T3
        if kind == "shares":
            return share_step(state)
        if kind == "checkpoint":
            return _("Closing the hand")
        return None

    # ---------------------------------------------------------------- the end

    def end_title(self, obs: TrutObservation, info: TableInfo) -> str:
        return screen.end_title(obs, info)

    def end_table(
        self, obs: TrutObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        return screen.end_table(obs, info, self.history, width)

    def score(self, state: TrutState) -> str:
        longs, petits = ("-".join(map(str, n)) for n in (state.longs, state.petits))
        # by team, as Lutin's "VP 4-5"
        return _("Longs {longs}, Petits {petits}").format(longs=longs, petits=petits)
