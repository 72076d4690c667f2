"""Truco's front-end: the screen (:mod:`.screen`), the keys turned into notation, and
the narration of its events for the log and for ``selfplay --verbose``."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from trutnet.client.frontend import Cue, Frontend, Press, RoundOver
from trutnet.client.view import Line, TableInfo, seat_name
from trutnet.games.truco import screen
from trutnet.games.truco.narration import (
    Narrator,
    Scored,
    Speaker,
    Told,
    card_text,
    chico_line,
    narrate,
    scored_lines,
)
from trutnet.games.truco.rules.actions import Deal, Discard, Play
from trutnet.games.truco.rules.declaration import TRUCO
from trutnet.games.truco.rules.observation import TrucoObservation
from trutnet.games.truco.rules.state import TrucoState
from trutnet.i18n import N_, _

# K15: each sign, and the gesture players make it with.
SIGN_WORDS = {
    "1e": N_("ancho de espada (raised brows)"),
    "1b": N_("ancho de basto (a wink)"),
    "7e": N_("siete de espada (mouth right)"),
    "7o": N_("siete de oro (mouth left)"),
    "3": N_("a three (bitten lip)"),
    "2": N_("a two (a kiss)"),
    "1f": N_("ancho falso (tilted head)"),
    "flor": N_("flor (puffed cheeks)"),
    "envido": N_("envido 30 or more (a nod)"),
    "nada": N_("nothing (closed eyes)"),
}


class TrucoFrontend(Frontend):
    game = "truco"
    long_name = TRUCO.title
    keys = (*screen.CARD_KEYS, *screen.WORD_KEYS, "d", "w")
    round_word = N_("hand")
    rounds_word = N_("hands")
    chance_step = N_("Dealing")
    chance_wait = N_("the cards are being dealt")
    not_ready = N_("your cards are being dealt")
    sign_key = "g"  # K15: the signs' menu (a gesture)

    def __init__(self) -> None:
        self._narrator = Narrator()
        self._scored: list[Scored] = []  # this hand's, so far (a duel at a time)
        self._last: tuple[Told, list[Scored]] | None = None  # the hand that just ended

    def spectator_observation(self, state: TrucoState) -> TrucoObservation:
        return dataclasses.replace(state.observation(0), seat=-1, hand=(), kept=(), legal=())

    def title(self, obs: TrucoObservation) -> str:
        return screen.title(obs)

    def table_area(self, obs: TrucoObservation, info: TableInfo, width: int) -> list[Line]:
        return screen.table_area(obs, info)

    def prompt(self, obs: TrucoObservation, info: TableInfo) -> str:
        return screen.prompt(obs)

    def deciding(self, obs: TrucoObservation) -> str:
        if obs.phase == "discard":
            return _("to discard")
        if obs.phase == "flor":
            return _("to say flor")
        if obs.phase == "declare":
            return _("to declare")
        return _("to show") if obs.phase == "show" else _("to play or call")

    def ready(self, obs: TrucoObservation, info: TableInfo) -> bool:
        return obs.phase not in ("draw", "shuffle") and all(c for _, c in obs.hand)

    def key_hints(self, obs: TrucoObservation, info: TableInfo) -> list[str]:
        return screen.key_hints(obs)

    def round_label(self, obs: TrucoObservation) -> str:
        return _("hand {hand}").format(hand=obs.hand_no + 1)

    def press(self, key: str, obs: TrucoObservation, info: TableInfo) -> Press:
        action = screen.legal_for_key(key, obs)
        if action is None:
            return Press(
                say=_("'{key}' does nothing now (the keys you may use are shown)").format(key=key)
            )
        return Press(str(action))

    def action_words(self, action: str, obs: TrucoObservation) -> str:
        """``play 7esp (key 2)``, ``truco (key t)``: a move as the screen shows it, with
        the key that sends it (a hint names it so)."""
        for key in self.keys:
            found = screen.legal_for_key(key, obs)
            if found is None or str(found) != action:
                continue
            if isinstance(found, Play | Discard):
                card = next((c for p, c in obs.hand if p == found.pos), None)
                if isinstance(found, Discard):
                    return _("discard {card} (key {key})").format(card=card_text(card), key=key)
                return _("play {card} (key {key})").format(card=card_text(card), key=key)
            # the game's words as they are (quiero, real envido); a number or a show in
            # the person's language
            said = screen.action_label(found, key) if key in ("d", "w") else action
            return _("{action} (key {key})").format(action=said, key=key)
        return action

    def why_not(self, action: str, obs: Any) -> str:
        return _("'{action}' is not possible now (K13: on your turn, or when asked)").format(
            action=action
        )

    def sign_words(self, card: str) -> str:
        """K15: a sign by the card it tells and the gesture it is made with."""
        return _(SIGN_WORDS[card]) if card in SIGN_WORDS else card

    def help(self, spectator: bool) -> str:
        return _(screen.WATCH_HELP) if spectator else _(screen.HELP)

    def events(self, state: TrucoState) -> Sequence[Told]:
        return self._narrator.events(state)

    def narrate(
        self,
        event: Any,
        state: TrucoState,
        names: Sequence[str] | None = None,
        show_hands: bool = False,
    ) -> list[str]:
        if not isinstance(event, Told):  # an action given alone
            event = Told(event, replayed=False)
        game = state.game
        return narrate(event, game.players, game.rotating, names, show_hands)

    def follow(self, event: Any, state: TrucoState, info: TableInfo) -> Cue | None:
        """A hand dealt clears the last one's messages; a hand over (every duel of a
        pica-pica hand scored) is kept for the frame's summary."""
        if not isinstance(event, Told):
            return None
        if isinstance(event.action, Deal):
            self._scored = []
            return Cue.ROUND_STARTS
        self._scored += event.scored
        if not event.hand_over:
            return None
        self._last = (event, list(self._scored))
        self._scored = []
        return Cue.ROUND_ENDS

    def round_over(self, obs: TrucoObservation, info: TableInfo) -> RoundOver | None:
        if self._last is None:
            return None
        event, scored = self._last
        names = [seat_name(info, seat) for seat in range(obs.players)]
        say = Speaker(obs.players, len(obs.scores) == 3, names)
        told = dataclasses.replace(event, scored=tuple(scored))
        lines = scored_lines(told, say)
        if event.voided:
            lines = [_("the hand is void: nobody scores; the same dealer deals again")]
        if event.chico is not None:
            lines.append(chico_line(event, say))
        score: list[Line] = [
            [
                ("class:bold", " " + _("{who}:").format(who=say.unit(u)) + " "),
                ("", say.standing(p, event.chicos[u])),
            ]
            for u, p in enumerate(event.scores)
        ]
        heading = _("Hand {hand} is over").format(hand=event.hand + 1)
        return RoundOver(heading, tuple(lines), tuple(score))

    def end_title(self, obs: TrucoObservation, info: TableInfo) -> str:
        if obs.winner is None:
            return _("nobody wins")
        name = screen.unit_name(obs, info, obs.winner)
        mine = info.me is not None and (
            obs.winner == info.me
            if len(obs.scores) == 3
            else screen._unit_of(obs, info.me) == obs.winner
        )
        if mine:
            return _("you win!")
        return (_("{who} win") if "+" in name else _("{who} wins")).format(who=name)

    def end_table(
        self, obs: TrucoObservation, info: TableInfo, width: int
    ) -> tuple[list[Line], list[Line]]:
        rows: list[Line] = [
            [
                (
                    "",
                    " "
                    + _("{who}: {what}").format(
                        who=screen.unit_name(obs, info, u), what=Speaker.standing(p, c)
                    ),
                )
            ]
            for u, (c, p) in enumerate(zip(obs.chicos, obs.scores, strict=True))
        ]
        return [[("class:bold", " " + _("Final score:"))]], rows

    def score(self, state: TrucoState) -> str:
        chicos, points = ("-".join(map(str, n)) for n in (state.chicos, state.scores))
        # by side, as Lutin's "VP 4-5"
        return _("chicos {chicos}, points {points}").format(chicos=chicos, points=points)
