"""A hint for the person at a seat: what the search bot would play now, and why, in
one line ("Hint: play 7h — 71% over 24 deals (next best: play 2c, 55%)": the mean
outlook, 0 lost to 100% won, of each move over the deals sampled).

The search bot is asked at the seat's own replica state, from which it samples only
what the seat may see (``GameState.determinise``), and is told the signs the person
was shown (a partner's, one caught): a hint knows what the person knows, no more. Its
budget is a few hundred milliseconds of samples, so a hint comes at once; the same
seat, state and seed give the same hint. A table may forbid hints (``--no-hints``,
said in the lobby): the key then says so and asks nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from trutnet.bots import make_bot
from trutnet.bots.base import BotError, decide
from trutnet.bots.signs import bot_heard
from trutnet.i18n import _

HINT_BOT = "search:ms=300:samples=64"  # at most 0.3 s, at most 64 sampled deals


@dataclass(frozen=True)
class Hint:
    """The bot's choice, its mean outlook (0 to 1) and the runner-up's, over
    ``samples`` sampled deals (no samples: one legal action, or a game that cannot
    sample its hidden cards: the game's own bot chose)."""

    action: str
    samples: int
    outlook: float | None = None
    next_action: str | None = None
    next_outlook: float | None = None

    def line(self, words: Any = str, width: int = 79) -> str:
        """The hint in one line of at most ``width`` columns (the message row): the
        move (``words`` says it as the screen does), then as much of the reason as
        fits: its chance, how many deals, the next best move."""
        said = _("Hint: {move}").format(move=words(self.action))
        if self.samples and self.outlook is not None:
            over = _(" over {samples} deals").format(samples=self.samples)
            why = [f" — {self.outlook:.0%}", over]
            if self.next_action is not None and self.next_outlook is not None:
                best = _(" (next best: {move}, {outlook:.0%})")
                why.append(best.format(move=words(self.next_action), outlook=self.next_outlook))
            while why and len(said + "".join(why)) > width:
                why.pop()  # the least needed part first
            said += "".join(why)
        elif self.samples == 0:
            said += _(" (the only move, or the game's own bot's choice)")
        return said


def hint_for(
    game: str, state: Any, seat: int, seed: int = 0, kind: str = HINT_BOT, told: Any = ()
) -> Hint:
    """What the search bot would play for ``seat`` at ``state`` (the seat's replica
    state), with its reasons, knowing the signs the seat was shown (``told``, each a
    :class:`~trutnet.engine.hidden.Told`). :class:`~trutnet.bots.base.BotError` when
    ``game`` has no search bot."""
    bot = make_bot(game, kind, random.Random(seed))
    for sign in told:
        bot_heard(bot, sign)
    action = str(decide(bot, state, seat))
    last = getattr(bot, "last", {}) or {}
    means: dict[str, float] = last.get("means", {})
    if not means:
        return Hint(action, 0)
    ranked = sorted(means.items(), key=lambda item: -item[1])
    runner = next(((a, m) for a, m in ranked if a != action), (None, None))
    return Hint(action, int(last.get("samples", 0)), means.get(action), *runner)


__all__ = ["HINT_BOT", "BotError", "Hint", "hint_for"]


def hint_said(info: Any, frontend: Any, observation: Any, peer: Any) -> str:
    """What the hint key says now, in one line: the search bot's choice for this seat
    from its own replica (it knows what the person knows, no more), or why there is
    none (hints off at this table, no game yet, not this seat's turn)."""
    from trutnet.client.view import my_turn

    if not info.hints:
        return _("hints are off at this table (the host's choice, said in the lobby)")
    if observation is None or peer is None or frontend is None or peer.replica.state is None:
        return _("the game has not started yet")
    if not my_turn(frontend, observation, info):
        return _("a hint is for your turn")
    try:
        told = [sign for sign, _words in info.signs_told]  # what the person was shown
        state, seed = peer.replica.state, len(peer.replica.log)
        said = hint_for(frontend.game, state, peer.seat, seed, told=told)
    except BotError as exc:
        return _("no hint here: {why}").format(why=exc)
    return said.line(lambda action: frontend.action_words(action, observation))
