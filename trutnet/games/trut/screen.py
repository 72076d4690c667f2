"""Trut's parts of the table screen as text: pure functions from what one seat may see
(a :class:`~trutnet.games.trut.rules.observation.TrutObservation`) to styled lines.

The frame (:mod:`trutnet.client.view`) places them: the title, the table area (the
teams' Longs and Petits, the hand's state line, its tricks, the seat's hand or a
spectator's count of cards in each hand), the prompt and the keys of a decision, and
the end screen's score and table of hands. The hand that just ended
(:class:`HandSummary`) is given to the frame as a
:class:`~trutnet.client.frontend.RoundOver`, which it shows until a key.
Every line fits in 80 columns once the frame has cut it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from trutnet.client.frontend import RoundOver
from trutnet.client.view import ARROW, WIDTH, Line, TableInfo, fit, plain, seat_name, text_width
from trutnet.games.trut.deluxe import NAMES, help_lines, special_name
from trutnet.games.trut.rules.cards import Card
from trutnet.games.trut.rules.deluxe.cards import Special
from trutnet.games.trut.rules.observation import TrutObservation
from trutnet.i18n import N_, _

# A four-colour deck: each suit its own colour, and its sign always beside it (the
# colour is never the only cue)
SUIT_STYLE = {"s": "class:black", "h": "class:red", "d": "class:blue", "c": "class:green"}

# The help page: the game's words, then the keys (a spectator's differ). Shown by
# help_page(), in the players' language.
HELP_WORDS = N_("""\
Trut — the words of the game
  Trut!         "I will win this hand": raises the stakes. Once per hand,
                on your turn, before you play.  t
  Joue !        accept a Trut (the hand is played for a Long).            j
  Je me couche  fold: the Truter's team scores a Petit, the hand ends.    c
  Petit / Long  small and big tokens: 3 Petits make a Long; 7 Longs win
                (5 in the Gâtinaise variant).
  Patté         a trick tied between teams on the strongest card.
  Pourrie       a hand of three pattés: void, nobody scores, same dealer.
  Donneur       the dealer, who leads the first trick.
  Fortial       a team at target-1 Longs and 2 Petits: it decides alone
                whether to Trut; the others cannot see their cards meanwhile.
  Trut d'office a forced Trut (Gâtinaise) when one team holds 2 Petits.
  La Chanson    both teams at 2 Petits (Gâtinaise): sing for extra cards.
Strength: 7 > 8 > A > K > Q > J > 10 > 9; suits never matter.""")
HELP_KEYS = N_("""\
Keys: 1-3 play a card (or ←/→ and Enter), t Trut, j accept/agree,
      c fold/refuse, p pass, s sing, ? this help, q or Ctrl-C quit.
      The key bar lists only the keys that do something now.
Press ? or Esc to go back.""")
HELP = f"{HELP_WORDS}\n{HELP_KEYS}"

# A spectator's help: the same words, its own keys.
WATCH_KEYS = N_("""\
You are watching: you see what every player sees, no one's hand.
Keys: Enter go on after a hand, ↑/↓ scroll the final score,
      ? this help, q or Ctrl-C stop watching.
Press ? or Esc to go back.""")
WATCH_HELP = f"{HELP_WORDS}\n{WATCH_KEYS}"

# Trut Deluxe's help page (a table with the deluxe option): the special cards.
DELUXE_INTRO = N_(
    "Trut Deluxe — each seat keeps 1 of 2 special cards [T25]; the kept cards join\n"
    "the deck, shuffled into every hand of the game [T26]"
)
DELUXE_KEYS = N_("""\
Keys: 1-N keep a card / pick a power's choice, p pass, 1-3 play,
      t Trut, j accept, c fold, q quit. Press ? or Esc to go back.""")
DELUXE_HELP = "\n".join([DELUXE_INTRO, *help_lines(say=str), DELUXE_KEYS])  # in English


def help_page(spectator: bool = False, deluxe: bool = False) -> str:
    """The help page in the players' language: Deluxe's (its special cards), or the
    game's words with a seat's keys or a spectator's."""
    if deluxe:
        return "\n".join([_(DELUXE_INTRO), *help_lines(), _(DELUXE_KEYS)])
    return f"{_(HELP_WORDS)}\n{_(WATCH_KEYS if spectator else HELP_KEYS)}"


# What a seat is asked to decide, as the waiting line says it.
DECIDING = {
    "play": N_("to play"),
    "answer": N_("to answer the Trut"),
    "fortial": N_("to decide au Fortial"),
    "sing_ask": N_("to say whether they sing"),
    "sing_agree": N_("to agree to sing or refuse"),
    "sing_count": N_("to choose how many cards"),
    "keep": N_("to keep 3 cards"),
    "choose": N_("to keep a special card"),
    "power": N_("to use a card's power"),
    "michao": N_("to sing Michao, or pass"),
}


def deciding(phase: str) -> str:
    """What the seat to act decides in ``phase``, after its name ("" if unknown)."""
    doing = DECIDING.get(phase)
    return _(doing) if doing else ""


@dataclass
class HandSummary:
    """How a finished hand ended, kept on screen until a key after it."""

    number: int  # 0-based hand number
    tricks: list[tuple[list[tuple[int, Card]], str]]  # cards in order, who took it
    result: str  # "Bot 1 & Bot 3 win by fold"
    gain: str  # "+1 Petit", or "" when nobody scored
    scores: tuple[list[int], list[int]]  # each team's Longs and Petits after it


@dataclass
class Choice:
    """What the person is choosing on screen between key presses: the card under the
    arrows, and la Chanson's cards to keep (T19)."""

    selected: int = 0
    keep: set[int] = field(default_factory=set)


def card_text(card: Card | Special) -> tuple[str, str]:
    """A card as shown: ``7♥`` in red (♦ blue, ♣ green, ♠ black); a Deluxe card by its
    name, as the help names it (``Falcon``)."""
    if isinstance(card, Special):
        return "class:black", special_name(card.letter)
    return SUIT_STYLE[card.suit], card.symbol


def team_name(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``You & Bot 2``: the players of a team, by name."""
    return " & ".join(seat_name(info, s) for s in obs.teams[team])


def _won_by(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """A team as it follows "won by": ``you & Bot 2`` (the person's own word in the
    form that sentence takes: "gagnée par vous", "ganada por ti")."""
    return " & ".join(seat_name(info, s, N_("you")) for s in obs.teams[team])


def _wins(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``Bot 1 wins``, ``Bot 1 & Bot 3 win``, ``You win``."""
    seats = obs.teams[team]
    if len(seats) == 1 and seats[0] == info.me:
        return _("You win")
    many = len(seats) > 1 or seats[0] == info.me
    return (_("{team} win") if many else _("{team} wins")).format(team=team_name(obs, info, team))


def title(obs: TrutObservation) -> str:
    variant = _("Gâtinaise") if obs.variant == "gatinaise" else _("classic")
    name = "Trut Deluxe" if obs.deluxe else "Trut"  # T23
    line = _("{name} — {variant}, {players} players, first to {target} Longs")
    return line.format(name=name, variant=variant, players=obs.players, target=obs.target)


def tokens(
    obs: TrutObservation,
    info: TableInfo,
    labels: list[str] | None = None,
    width: int = WIDTH,
) -> list[Line]:
    """One row per team: its Longs and Petits (``labels``: "Team 1: " before the
    names); the names take the room the tokens leave, 30 columns at least."""
    names = [team_name(obs, info, team) for team in range(len(obs.teams))]
    if labels is not None:
        named = zip(labels, names, strict=True)
        names = [_("{label}: {names}").format(label=label, names=name) for label, name in named]
    room = max(30, min(max(text_width(n) for n in names), width - 17 - 2 * obs.target))
    lines = []
    for team in range(len(obs.teams)):
        longs = "●" * obs.longs[team] + "○" * (obs.target - obs.longs[team])
        petits = "▲" * obs.petits[team] + "△" * (2 - obs.petits[team])
        mark = "class:me" if obs.team == team else ""
        name = plain([fit([("", names[team])], room)])
        shown_longs = _("Longs {tokens} {count}/{target}").format(
            tokens=longs, count=obs.longs[team], target=obs.target
        )
        shown_petits = _("Petits {tokens} {count}").format(tokens=petits, count=obs.petits[team])
        line: Line = [
            (mark, f" {name:<{room}}"),
            ("", f" {shown_longs}"),
            ("", f"  {shown_petits}"),
        ]
        if obs.protected == team:  # T42: beside the tokens it protects
            line.append(("class:warn", "  " + _("Hedgehog: safe")))
        lines.append(line)
    return lines


def _state_lines(obs: TrutObservation, info: TableInfo, width: int = WIDTH) -> list[Line]:
    """The hand's state: its number and Donneur, the team au Fortial, the Trut and its
    answer; on two rows when one would be cut at ``width`` (long names, a Fortial)."""
    dealer = (  # T3: the first Donneur is drawn by card, none before
        ("class:dim", _("drawn by card"))
        if obs.phase == "draw"
        else ("class:bold", seat_name(info, obs.dealer, N_("you")))
    )
    parts: Line = [
        ("", " " + _("Hand {number}  Donneur:").format(number=obs.hand_number + 1) + " "),
        dealer,
    ]
    if obs.fortial_team is not None:
        fortial = _("Fortial: {team}").format(team=team_name(obs, info, obs.fortial_team))
        parts.append(("class:warn", f"  {fortial}"))
    trut = obs.trut
    if trut is not None:
        if trut.kind == "chanson":
            parts.append(("class:warn", "  " + _("La Chanson: played as an accepted Trut")))
        else:
            who = seat_name(info, trut.caller, N_("you")) if trut.caller is not None else "?"
            kind = {
                "office": N_("Trut d'office"),
                "fortial": N_("Trut (Fortial)"),
                "weasel": N_("Weasel's Trut d'Office"),
            }.get(trut.kind, N_("Trut"))
            status = {
                "pending": N_("waiting for the answer"),
                "accepted": N_("accepted (Joue !)"),
                "folded": N_("folded"),
            }[trut.status]
            said = _("{kind} by {who}: {status}").format(kind=_(kind), who=who, status=_(status))
            parts.append(("class:warn", f"  {said}"))
    if _width(parts) <= width or len(parts) < 3:
        return [parts]
    head, tail = parts[:2], parts[2:]
    if obs.fortial_team is not None and _width([*head, tail[0]]) <= width:
        head, tail = [*head, tail[0]], tail[1:]
    return [head, *([("class:warn", "  " + text.strip())] for _style, text in tail)]


def _width(line: Line) -> int:
    return sum(text_width(text) for _style, text in line)


def _trick_line(
    label: str, cards: Any, result: str | None, info: TableInfo, width: int = WIDTH
) -> Line:
    """``Trick 1: Ana 7♥, Bob 8♣  → Ana``, each name as long as the row allows (6
    players' cards and names fit 80 columns, the winner's name whole); ``label`` has
    its colon ("Trick 1:")."""
    for room in (10, 8, 6, 5, 4, 3):
        line: Line = [("", f" {label} ")]
        for i, (seat, card) in enumerate(cards):
            if i:
                line.append(("", ", "))
            line.append(("", f"{seat_name(info, seat)[:room]} "))
            line.append(card_text(card))
        if result:
            line.append(("class:bold", f"  {ARROW} {result}"))
        if _width(line) <= width:
            break
    return line


def _sizes_line(obs: TrutObservation, info: TableInfo) -> Line:
    """A spectator's line instead of a hand: how many cards each player holds."""
    sizes = ", ".join(
        f"{seat_name(info, seat)[:10]} {size}" for seat, size in enumerate(obs.hand_sizes)
    )
    return [("class:bold", " " + _("Cards in hand:") + " "), ("", sizes or "—")]


def _hand_line(obs: TrutObservation, info: TableInfo, choice: Choice) -> Line:
    if info.me is None:
        return _sizes_line(obs, info)
    line: Line = [("class:bold", " " + _("Your hand:") + " ")]
    if not obs.hand:
        return [*line, ("", "—")]
    for i, (_pos, card) in enumerate(obs.hand):
        selected = i == choice.selected
        kept = i in choice.keep
        style = "class:selected" if selected else ""
        line.append((style, f"[{i + 1}]"))
        if card is None:
            line.append(
                (
                    "class:dim",
                    " ?? " + _("(hidden until the Fortial decision)")
                    if obs.phase == "fortial"
                    else " ??",
                )
            )
        else:
            line.append(card_text(card))
        line.append(("class:warn" if kept else "", "* " if kept else "  "))
    return line


def round_over(obs: TrutObservation, summary: HandSummary, info: TableInfo) -> RoundOver:
    """The hand that just ended, for the frame: the tokens after it, its tricks, and
    how it ended with what it scored."""
    scored = summary.result
    if summary.gain:
        scored = _("{result}: {gain}").format(result=summary.result, gain=summary.gain)
    longs, petits = summary.scores
    after = dataclasses.replace(obs, longs=tuple(longs), petits=tuple(petits))
    tricks = [
        _trick_line(_("Trick {number}:").format(number=number), cards, result, info)
        for number, (cards, result) in enumerate(summary.tricks, start=1)
    ]
    return RoundOver(
        _("Hand {number} is over").format(number=summary.number + 1),
        (scored,),
        tuple(tokens(after, info)),
        tuple(tricks),
    )


def table_area(obs: TrutObservation, info: TableInfo, choice: Choice) -> list[Line]:
    """The tokens, the hand's state line, its tricks and the seat's hand."""
    lines = tokens(obs, info)
    lines += _state_lines(obs, info)
    for number, trick in enumerate(obs.tricks, start=1):
        winner = seat_name(info, trick.winner or 0, N_("you"))
        result = _("patté") if trick.team is None else winner
        label = _("Trick {number}:").format(number=number)
        lines.append(_trick_line(label, trick.cards, result, info))
    if obs.trick or obs.phase == "play":
        label = _("Trick {number}:").format(number=len(obs.tricks) + 1)
        lines.append(_trick_line(label, obs.trick, None, info))
    lines.append(_hand_line(obs, info, choice))
    return lines


def ready(obs: TrutObservation) -> bool:
    """The cards are still being dealt: never "Your turn" over "??"."""
    return not (obs.phase == "play" and any(card is None for _pos, card in obs.hand))


def choices(obs: TrutObservation) -> list[str]:
    """Deluxe: the decisions a number key picks, in order (not ``pass``: key p)."""
    return [str(a) for a in obs.legal if str(a) != "pass"]


# The verbs of Deluxe's choices as the prompt shows them (the notation's, in words).
CHOICE_VERBS = {
    "keep": N_("keep"),
    "target": N_("target"),
    "give": N_("give"),
    "steal": N_("steal"),
    "hit": N_("hit"),
    "bat": N_("bat"),
    "pick": N_("pick"),
}


def choice_words(obs: TrutObservation) -> list[str]:
    """Deluxe: each of :func:`choices` as the prompt says it (its number key apart)."""
    shown = []
    for number, text in enumerate(choices(obs), 1):
        verb, _space, rest = text.partition(" ")
        letter = rest.split("@")[0]
        name = f" {special_name(letter)}" if letter in NAMES else ""
        if verb == "keep" and letter in NAMES:  # T25: by name and value, as the help
            shown.append(f"{special_name(letter)} {Special(letter).value}")
            continue
        if verb == "force":  # T37: blind, the target's n-th card
            shown.append(_("card {number}").format(number=number))
            continue
        if verb == "target":  # T37: a seat
            rest = _("seat {seat}").format(seat=rest)
        elif verb == "give":  # T37: one of one's cards, by name
            rest = letter or rest
        said = _(CHOICE_VERBS[verb]) if verb in CHOICE_VERBS else verb
        shown.append(f"{said} {rest}{name}")
    return shown


def _choices(obs: TrutObservation) -> str:
    return "  ".join(f"{n} {said}" for n, said in enumerate(choice_words(obs), 1))


def _forced_key(obs: TrutObservation) -> int:
    """T37 (4): the number key of the card the Weasel forces this seat to play."""
    return next((i + 1 for i, (pos, _card) in enumerate(obs.hand) if pos == obs.forced), 1)


def _power_prompt(obs: TrutObservation) -> str:
    """The power waiting for this seat's choice, named by its first choice's verb."""
    verbs = {str(a).split(" ")[0] for a in obs.legal}
    head = _("Your card's power")
    if "target" in verbs:
        head = _("The Weasel: name an opponent [T37]")
    elif "give" in verbs:
        head = _("The Weasel (1): give a card, get one of the target's at random [T37]")
    elif "force" in verbs:
        head = _("The Weasel (4): pick blind the target's next card [T37]")
    line = _("{head}: {choices}, p pass") if legal(obs, "pass") else _("{head}: {choices}")
    return line.format(head=head, choices=_choices(obs))


def _range(count: int) -> str:
    return "1" if count <= 1 else f"1-{count}"


def legal(obs: TrutObservation, word: str) -> bool:
    return any(str(a) == word or str(a).startswith(word + " ") for a in obs.legal)


def _play_prompt(obs: TrutObservation) -> str:
    """A seat's turn to play: its card keys (or the Weasel's forced card), and t."""
    trut = legal(obs, "trut")
    if obs.forced is not None:
        if trut:
            line = _("Your turn: the Weasel forces your card {key} [T37], or t to Trut")
        else:
            line = _("Your turn: the Weasel forces your card {key} [T37]")
        return line.format(key=_forced_key(obs))
    if trut:
        line = _("Your turn: play a card ({keys} or ←/→ + Enter), or t to Trut")
    else:
        line = _("Your turn: play a card ({keys} or ←/→ + Enter)")
    return line.format(keys=_range(len(obs.hand)))


def prompt(obs: TrutObservation) -> str:
    count = len(obs.hand)
    return {
        "play": _play_prompt(obs),
        "answer": _("A Trut! j: Joue ! (accept)   c: Je me couche (fold)"),
        "fortial": _("Au Fortial: t to Trut, p to pass"),
        "sing_ask": _("La Chanson: do you sing? s: sing   p: pass"),
        "sing_agree": _("La Chanson: j: agree to sing   c: refuse"),
        "sing_count": _("How many cards? 1, 2 or 3"),
        "keep": _("Keep 3 cards: toggle with {keys}, Enter to confirm").format(keys=_range(count)),
        "choose": _("Keep a special card (it joins the deck): {choices}").format(
            choices=_choices(obs)
        ),
        "michao": _("Michao! 1: sing it (+1 Long)   p: pass [T44]"),
        "power": _power_prompt(obs),
    }.get(obs.phase, _("Your turn ({phase})").format(phase=obs.phase))


def key_hints(obs: TrutObservation) -> list[str]:
    """The keys of this seat's decision now, and only those."""
    keys: list[str] = []
    count = len(obs.hand)
    if obs.phase == "play" and obs.forced is not None:  # T37 (4): that card only
        keys.append(_("{key} play (the Weasel's pick)").format(key=_forced_key(obs)))
        if legal(obs, "trut"):
            keys.append(_("t Trut"))
    elif obs.phase == "play":
        keys.append(_("{keys}/←→+Enter play").format(keys=_range(count)))
        if legal(obs, "trut"):
            keys.append(_("t Trut"))
    elif obs.phase == "answer":
        keys.append(_("j Joue !"))
        if legal(obs, "fold"):
            keys.append(_("c Je me couche"))
    elif obs.phase == "fortial":
        keys += [_("t Trut"), _("p pass")]
    elif obs.phase == "sing_ask":
        keys += [_("s sing"), _("p pass")]
    elif obs.phase == "sing_agree":
        keys += [_("j agree"), _("c refuse")]
    elif obs.phase == "sing_count":
        keys.append(_("1-3 cards"))
    elif obs.phase == "keep":
        keys += [_("{keys} keep/unkeep").format(keys=_range(count)), _("Enter confirm")]
    elif obs.phase in ("choose", "power", "michao"):  # Deluxe [T25, T34-T44]
        if choices(obs):
            keys.append(_("{keys} choose").format(keys=_range(len(choices(obs)))))
        if legal(obs, "pass"):
            keys.append(_("p pass"))
    return keys


def end_title(obs: TrutObservation, info: TableInfo) -> str:
    winner = obs.winner
    return _("you win!") if winner == obs.team else _wins(obs, info, winner or 0)


# A finished hand on the end screen: its number, how it ended ("won by", "pourrie:
# nobody scores"), the team it names (None: none), each team's Longs and Petits after it.
HandRow = tuple[int, str, int | None, list[int], list[int]]


def _how(how: str, team: int | None, labels: list[str]) -> str:
    """How a hand ended, in the players' language, the team it names after it (by
    ``labels``): ``won by fold: Team 1``."""
    if team is None:
        return _(how)
    return _("{how} {team}").format(how=_(how), team=labels[team])


def end_table(
    obs: TrutObservation, info: TableInfo, history: list[HandRow], width: int = WIDTH
) -> tuple[list[Line], list[Line]]:
    """The score, then a table of every hand whose columns are the teams: by name when
    the names fit their column, else as Team 1, Team 2... named in the score above
    (6 players' names never cut)."""
    teams = len(obs.teams)
    column = 14 if teams > 2 else 18
    result_width = width - 8 - column * teams
    names = [team_name(obs, info, t) for t in range(teams)]
    labelled = any(text_width(n) > column - 1 for n in names) or any(
        team is not None and text_width(_how(how, team, names)) > result_width
        for _hand, how, team, _longs, _petits in history
    )
    labels = [_("Team {number}").format(number=t + 1) for t in range(teams)] if labelled else names
    top = tokens(obs, info, labels if labelled else None, width)
    hand_label, how_label = _("Hand"), _("How it ended")  # "Hand" in 4 columns
    header = f" {hand_label:>4}  {how_label:<{result_width}}" + "".join(
        f"{plain([fit([('', label)], column - 1)]):>{column}}" for label in labels
    )
    title = _("Score after each hand (Longs/Petits of each team):")
    top.append([("class:bold", f" {title}")])
    top.append([("class:bold", header)])
    rows: list[Line] = []
    objects = labels if labelled else [_won_by(obs, info, t) for t in range(teams)]
    for hand, how, team, longs, petits in history:
        result = _how(how, team, objects)
        cut = plain([fit([("", result)], result_width)])
        row = f" {hand + 1:>4}  {cut:<{result_width}}" + "".join(
            f"{f'{lo}/{pe}':>{column}}" for lo, pe in zip(longs, petits, strict=True)
        )
        rows.append([("", row)])
    return top, rows
