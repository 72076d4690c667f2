"""Truco's table area as text (K29's malas and buenas, K2's Spanish suits in colour),
its keys, and its help page. Pure functions of one observation."""

from __future__ import annotations

from trutnet.client.view import Line, TableInfo, seat_name
from trutnet.engine.api import Action
from trutnet.games.truco.narration import CALLS, card_text, malas_buenas, points
from trutnet.games.truco.rules.actions import Declare, Discard, Play, Show, Word
from trutnet.games.truco.rules.cards import envido, suit
from trutnet.games.truco.rules.observation import TrucoObservation
from trutnet.i18n import N_, _, ngettext

SUIT_STYLE = {"e": "class:black", "b": "class:ok", "o": "class:warn", "c": "class:red"}

# Each key, and the words it says (the first legal one is sent).
WORD_KEYS: dict[str, tuple[str, ...]] = {
    "t": ("truco", "retruco", "vale cuatro"),
    "e": ("envido",),
    "r": ("real envido",),
    "f": ("falta envido",),
    "a": ("quiero", "con flor quiero"),
    "x": ("no quiero", "con flor me achico"),
    "u": ("quiero retruco", "quiero vale cuatro"),
    "c": ("contraflor",),
    "z": ("contraflor al resto",),
    "l": ("flor", "no flor"),
    "s": ("son buenas",),
    "p": ("paso",),
    "m": ("mazo",),
}
CARD_KEYS = tuple("1234")
# Short labels, so that the key bar fits 80 columns with every key legal at once.
LABELS = {
    "no quiero": N_("no"),
    "quiero retruco": N_("retruco"),
    "quiero vale cuatro": N_("vale 4"),
    "vale cuatro": N_("vale 4"),
    "real envido": N_("real"),
    "falta envido": N_("falta"),
    "paso": N_("pass"),
    "con flor quiero": N_("quiero"),
    "con flor me achico": N_("achico"),
    "contraflor": N_("contra"),
    "contraflor al resto": N_("resto"),
    "son buenas": N_("buenas"),
}

HELP = N_("""Truco — the bluffing trick-taking game of the Río de la Plata (40 cards)
Each hand: three cards each. Win two tricks of three to win the hand; a tied
trick (parda) goes to whoever won another one. Strongest: 1 of espadas, 1 of
bastos, 7 of espadas, 7 of oros, then 3s, 2s, the other 1s, 12, 11, 10, ...
Envido: bet on your two best cards of one suit (20 + their values) before your
first card; the best number wins. Truco raises what the hand is worth: truco 2,
retruco 3, vale cuatro 4. Refuse and the other side scores the step below.
30 points (15 malas, then 15 buenas) win a chico; two chicos win the match.
Cards: value then suit, 7esp = 7 of espadas, 1bas = 1 of bastos, 12oro = 12
of oros, 3cop = 3 of copas. "Hand worth 3 points": what winning the hand scores.
Keys (only those you may use now are shown below the table):
 1-4 play a card (or the gallo's discard, or which cards to show)
 t truco / retruco / vale cuatro   e envido  r real envido  f falta envido
 a quiero   x no quiero   u quiero and raise   p pass the answer to a partner
 d declare your envido/flor   s son buenas   w show your proof   m mazo (fold)
 l say flor / no flor   c contraflor   z contraflor al resto   q quit  ? help
Press ? or Esc to go back.""")

WATCH_HELP = N_("""Truco — you are watching: nobody's hidden cards are shown to you.
Keys: q stop watching, ? this help. Press ? or Esc to go back.""")


def card_part(card: str | None) -> tuple[str, str]:
    return (SUIT_STYLE[suit(card)] if card else "class:dim", card_text(card))


def unit_name(obs: TrucoObservation, info: TableInfo, unit: int) -> str:
    if len(obs.scores) == 3:  # K9, rotating gallo: one score per seat
        return seat_name(info, unit, N_("you"))
    seats = [s for s in range(obs.players) if _unit_of(obs, s) == unit]
    return "+".join(seat_name(info, s, N_("you")) for s in seats)


def side_name(obs: TrucoObservation, info: TableInfo, side: int) -> str:
    """The seats of one side of this hand (K6, K9), by name: who won a trick."""
    seats = [s for s in range(obs.players) if obs.sides[s] == side]
    return "+".join(seat_name(info, s, N_("you")) for s in seats) or _("side {side}").format(
        side=side
    )


def _unit_of(obs: TrucoObservation, seat: int) -> int:
    if obs.players == 3:
        return 0 if seat == 0 else 1
    return seat % 2


def title(obs: TrucoObservation) -> str:
    players, hand = obs.players, obs.hand_no + 1
    if obs.pica:
        return _("Truco — {players} players, hand {hand}, pica-pica").format(
            players=players, hand=hand
        )
    if obs.players >= 6:
        return _("Truco — {players} players, hand {hand}, redondo").format(
            players=players, hand=hand
        )
    return _("Truco — {players} players, hand {hand}").format(players=players, hand=hand)


def table_area(obs: TrucoObservation, info: TableInfo) -> list[Line]:
    you = N_("you")  # seat_name translates it
    score = "   ".join(
        _("{who}: {what}").format(
            who=unit_name(obs, info, u),
            what=f"{malas_buenas(p)}, "
            + ngettext("{n} chico", "{n} chicos", obs.chicos[u]).format(n=obs.chicos[u]),
        )
        for u, p in enumerate(obs.scores)
    )
    lines: list[Line] = [[("class:bold", " " + _("Score:") + " "), ("", score)]]
    where = " " + _("Dealer {dealer}, mano {mano}").format(
        dealer=seat_name(info, obs.dealer, you), mano=seat_name(info, obs.mano, you)
    )
    if obs.pica and obs.seg:
        duel = " vs ".join(seat_name(info, s, you) for s in obs.seg)
        where += "  " + _("duel: {seats}").format(seats=duel)
    lines.append([("", where)])
    level = obs.truco_level
    if level > 1:
        bets = _("Hand worth {points} ({call} accepted)").format(
            points=points(level), call=CALLS[level]
        )
    else:
        bets = _("Hand worth {points}").format(points=points(level))
    bets = " " + bets
    if obs.truco_call is not None:
        step, caller = obs.truco_call
        bets += "; " + _("{call} by {who}, awaiting the answer").format(
            call=CALLS[step], who=seat_name(info, caller, you)
        )
    lines.append([("", bets)])
    if obs.envido_chain:
        chain = ", ".join(obs.envido_chain)
        lines.append([("", " " + _("Envido bets: {bets}").format(bets=chain))])
    for i, trick in enumerate(obs.tricks):
        if not trick:
            continue
        line: Line = [("", " " + _("Trick {n}:").format(n=i + 1) + " ")]
        for seat, card in trick:
            line += [("", f"{seat_name(info, seat, you)} "), card_part(card), ("", "  ")]
        if i < len(obs.results):
            r = obs.results[i]
            line.append(("class:bold", "→ " + (_("parda") if r < 0 else side_name(obs, info, r))))
        lines.append(line)
    if obs.calls:
        said = " · ".join(
            _("{who}: {what}").format(who=seat_name(info, s, you), what=w)
            for s, w in obs.calls[-4:]
        )
        lines.append([("class:dim", f" {said}")])
    if obs.declared:
        said = ", ".join(
            _("{who} son buenas").format(who=seat_name(info, s, you))
            if v < 0
            else f"{seat_name(info, s, you)} {v}"
            for s, v in obs.declared
        )
        lines.append([("", " " + _("Declared: {said}").format(said=said))])
    if info.me is None or obs.seat < 0:
        return lines
    mine: Line = [("class:bold", " " + _("Your cards:") + " ")]
    for i, (_pos, card) in enumerate(obs.hand):
        mine += [("", f"[{i + 1}]"), card_part(card), ("", " ")]
    kept = [c for _pos, c in obs.kept if c is not None]
    if len(kept) == 3:
        mine.append(("class:dim", " " + _("(envido {n})").format(n=envido(kept))))
    lines.append(mine)
    return lines


def legal_for_key(key: str, obs: TrucoObservation) -> Action | None:
    legal = obs.legal
    if key in WORD_KEYS:
        for word in WORD_KEYS[key]:
            if Word(word) in legal:
                return Word(word)
        return None
    if key == "d":
        return next((a for a in legal if isinstance(a, Declare)), None)
    if key == "w":
        return next((a for a in legal if isinstance(a, Show)), None)
    if key in CARD_KEYS:
        index = int(key) - 1
        shows = [a for a in legal if isinstance(a, Show)]
        if shows:
            return shows[index] if index < len(shows) else None
        if index >= len(obs.hand):
            return None
        pos = obs.hand[index][0]
        return next((a for a in legal if isinstance(a, Play | Discard) and a.pos == pos), None)
    return None


def key_hints(obs: TrucoObservation) -> list[str]:
    hints = []
    cards = [a for a in obs.legal if isinstance(a, Play | Discard)]
    if cards:
        keys = "1" if len(obs.hand) == 1 else f"1-{len(obs.hand)}"
        if isinstance(cards[0], Discard):
            hints.append(_("{keys} discard").format(keys=keys))
        else:
            hints.append(_("{keys} play").format(keys=keys))
    for key in [*WORD_KEYS, "d", "w"]:
        action = legal_for_key(key, obs)
        if action is not None:
            hints.append(f"{key} {action_label(action, key)}")
    return hints


def action_label(action: Action, key: str) -> str:
    """A move of a word key as the key bar says it: ``declare 27``, ``no``, ``show``
    (the game's own words, quiero and truco, stay)."""
    if key == "w":
        return _("show")
    if isinstance(action, Declare):  # K20: the seat's envido, a number
        return _("declare {value}").format(value=action.value)
    word = str(action)
    return _(LABELS[word]) if word in LABELS else word


def prompt(obs: TrucoObservation) -> str:
    if obs.phase == "discard":
        return _("You are the gallo: discard one of your 4 cards (1-4), never shown")
    if obs.phase == "flor":
        return _("Flor round: say whether you hold a flor (l)")
    if obs.phase == "declare":  # name only the keys that do something now
        declare = legal_for_key("d", obs) is not None
        buenas = legal_for_key("s", obs) is not None
        if declare and buenas:
            return _("Declare your number (d), or say son buenas (s)")
        if declare:
            return _("Declare your number (d)")
        return _("Your number does not beat the one declared: say son buenas (s)")
    if obs.phase == "show":
        return _("Show the cards that prove your number (w, or 1-3 to choose)")
    if obs.envido_waiting or obs.truco_call is not None:
        return _("Answer the bet: a quiero, x no quiero, or raise")
    cards = len(obs.hand)
    keys = "1" if cards == 1 else f"1-{cards}"
    return _("Your turn: play a card ({keys}), or call").format(keys=keys)
