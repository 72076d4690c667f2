"""The table screen as text: pure functions from what one seat may see to styled lines.

A spectator's screen is the same frame with no seat (``TableInfo.me`` is None): no
hand, no keys for actions, and the hand sizes instead of a hand.

The terminal application (:mod:`trutnet.client.app`) shows these lines; tests read
the same lines as plain text. Every line fits in 80 columns (long ones wrap or end
in "…") and every screen in 24 rows (the end screen's score table scrolls).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.utils import get_cwidth

from trutnet.client.narration import ARROW, plural
from trutnet.engine.cards import Card
from trutnet.engine.games.trut.observation import TrutObservation

Line = list[tuple[str, str]]  # (style, text) fragments, as prompt-toolkit takes them

WIDTH = 80
HEIGHT = 24
LOG_ROWS = 6
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
RED_SUITS = ("h", "d")

HELP = """\
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
Strength: 7 > 8 > A > K > Q > J > 10 > 9; suits never matter.
Keys: 1-3 play a card (or ←/→ and Enter), t Trut, j accept/agree,
      c fold/refuse, p pass, s sing, ? this help, q or Ctrl-C quit.
      The key bar lists only the keys that do something now.
Press ? or Esc to go back."""

# A spectator's help: the same words, its own keys.
WATCH_HELP = (
    HELP.split("Keys:")[0]
    + """You are watching: you see what every player sees, no one's hand.
Keys: Enter go on after a hand, ↑/↓ scroll the final score,
      ? this help, q or Ctrl-C stop watching.
Press ? or Esc to go back."""
)
WATCHERS_SHOWN = 4  # spectators named on the table screen; the others are counted

# What a seat is asked to decide, as the waiting line says it.
DECIDING = {
    "play": "to play",
    "answer": "to answer the Trut",
    "fortial": "to decide au Fortial",
    "sing_ask": "to say whether they sing",
    "sing_agree": "to agree to sing or refuse",
    "sing_count": "to choose how many cards",
    "keep": "to keep 3 cards",
}


@dataclass
class HandSummary:
    """How a finished hand ended, kept on screen for a moment after it."""

    number: int  # 0-based hand number
    tricks: list[tuple[list[tuple[int, Card]], str]]  # cards in order, who took it
    result: str  # "Bot 1 & Bot 3 win by fold [T11]"
    gain: str  # "+1 Petit", or "" when nobody scored


@dataclass
class TableInfo:
    """What the screen needs besides the observation."""

    names: list[str]
    fingerprints: list[str]
    me: int | None  # this screen's seat; None for a spectator
    log: list[str] = field(default_factory=list)
    shuffles_verified: int = 0
    reveals_verified: int = 0
    blame: str | None = None
    message: str = ""
    selected: int = 0
    keep: set[int] = field(default_factory=set)
    waiting_seconds: float = 0.0
    history: list[tuple[int, str, list[int], list[int]]] = field(default_factory=list)
    transcript: str | None = None
    status: str = "playing"  # lobby, playing, over, stopped
    lobby: list[tuple[int, str, str]] = field(default_factory=list)
    lobby_total: int = 0
    confirm_quit: bool = False
    # An automatic step under way ("Shuffling (Bot 1)"): nobody decides, the screen waits.
    step: str = ""
    last_hand: HandSummary | None = None  # shown instead of the new hand until dismissed
    end_scroll: int = 0  # rows of the end screen's score table scrolled up from the end
    # The table's spectators (name, key fingerprint), as their signed presence says;
    # ``me_fp``: this screen's own key, shown as "you" among them.
    watchers: list[tuple[str, str]] = field(default_factory=list)
    me_fp: str = ""


def text_width(text: str) -> int:
    return sum(get_cwidth(ch) for ch in text)


def fit(line: Line, width: int = WIDTH) -> Line:
    """The line cut to ``width`` columns, ending in "…" when something was cut."""
    if sum(text_width(text) for _, text in line) <= width:
        return line
    out: Line = []
    room = width - 1
    for style, text in line:
        kept = ""
        for ch in text:
            w = get_cwidth(ch)
            if w > room:
                break
            kept += ch
            room -= w
        if kept:
            out.append((style, kept))
        if len(kept) < len(text):
            out.append((style, "…"))
            break
    return out


def wrap(text: str, width: int = WIDTH, indent: str = "    ") -> list[str]:
    """A long line wrapped to ``width`` columns, the continuation rows indented."""
    if text_width(text) <= width:
        return [text]
    lead = text[: len(text) - len(text.lstrip())]
    rows = textwrap.wrap(
        text.strip(),
        width=width,
        initial_indent=lead,
        subsequent_indent=lead + indent,
        break_long_words=True,
    )
    return [row if text_width(row) <= width else plain(fit([("", row)], width)) for row in rows]


def card_text(card: Card) -> tuple[str, str]:
    style = "class:red" if card.suit in RED_SUITS else "class:black"
    return style, card.symbol


def _name(info: TableInfo, seat: int, you: str = "You") -> str:
    if seat == info.me:
        return you
    return info.names[seat] if 0 <= seat < len(info.names) else f"seat {seat}"


def team_name(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``You & Bot 2``: the players of a team, by name."""
    return " & ".join(_name(info, s) for s in obs.teams[team])


def _wins(obs: TrutObservation, info: TableInfo, team: int) -> str:
    """``Bot 1 wins``, ``Bot 1 & Bot 3 win``, ``You win``."""
    seats = obs.teams[team]
    many = len(seats) > 1 or seats[0] == info.me
    return f"{team_name(obs, info, team)} {'win' if many else 'wins'}"


def _tokens(obs: TrutObservation, info: TableInfo) -> list[Line]:
    lines = []
    for team in range(len(obs.teams)):
        longs = "●" * obs.longs[team] + "○" * (obs.target - obs.longs[team])
        petits = "▲" * obs.petits[team] + "△" * (2 - obs.petits[team])
        mark = "class:me" if obs.team == team else ""
        name = plain([fit([("", team_name(obs, info, team))], 30)])
        lines.append(
            [
                (mark, f" {name:<30}"),
                ("", f" Longs {longs} {obs.longs[team]}/{obs.target}"),
                ("", f"  Petits {petits} {obs.petits[team]}"),
            ]
        )
    return lines


def _state_line(obs: TrutObservation, info: TableInfo) -> Line:
    if info.last_hand is not None:
        return [("", f" Hand {info.last_hand.number + 1} is over")]
    parts: Line = [
        ("", f" Hand {obs.hand_number + 1}  Donneur: "),
        ("class:bold", _name(info, obs.dealer, "you")),
    ]
    if obs.fortial_team is not None:
        parts.append(("class:warn", f"  Fortial: {team_name(obs, info, obs.fortial_team)}"))
    trut = obs.trut
    if trut is not None:
        if trut.kind == "chanson":
            parts.append(("class:warn", "  La Chanson: played as an accepted Trut"))
        else:
            who = _name(info, trut.caller, "you") if trut.caller is not None else "?"
            kind = {"office": "Trut d'office", "fortial": "Trut (Fortial)"}.get(trut.kind, "Trut")
            status = {
                "pending": "waiting for the answer",
                "accepted": "accepted (Joue !)",
                "folded": "folded",
            }[trut.status]
            parts.append(("class:warn", f"  {kind} by {who}: {status}"))
    return parts


def _trick_line(label: str, cards: Any, result: str | None, info: TableInfo) -> Line:
    line: Line = [("", f" {label}: ")]
    for i, (seat, card) in enumerate(cards):
        if i:
            line.append(("", ", "))
        line.append(("", f"{_name(info, seat)[:10]} "))
        line.append(card_text(card))
    if result:
        line.append(("class:bold", f"  {ARROW} {result}"))
    return line


def _sizes_line(obs: TrutObservation, info: TableInfo) -> Line:
    """A spectator's line instead of a hand: how many cards each player holds."""
    sizes = ", ".join(
        f"{_name(info, seat)[:10]} {size}" for seat, size in enumerate(obs.hand_sizes)
    )
    return [("class:bold", " Cards in hand: "), ("", sizes or "—")]


def _watchers_line(info: TableInfo, width: int = WIDTH) -> Line:
    """``Watching: Eve (6M55), you and 3 more``: the spectators, by name (with the
    start of their key's fingerprint) as many as fit, the others counted."""
    names = ["you" if fp == info.me_fp else f"{name[:12]} ({fp[:4]})" for name, fp in info.watchers]
    shown: list[str] = []
    for count, name in enumerate(names[:WATCHERS_SHOWN], start=1):
        rest = len(names) - count
        text = " Watching: " + ", ".join([*shown, name]) + (f" and {rest} more" if rest else "")
        if text_width(text) > width:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    if not shown:
        return [("class:dim", f" Watching: {plural(rest, 'spectator')}")]
    return [("class:dim", " Watching: " + ", ".join(shown) + (f" and {rest} more" if rest else ""))]


def _hand_line(obs: TrutObservation, info: TableInfo) -> Line:
    if info.me is None:
        return _sizes_line(obs, info)
    line: Line = [("class:bold", " Your hand: ")]
    if not obs.hand:
        return [*line, ("", "—")]
    for i, (_, card) in enumerate(obs.hand):
        selected = i == info.selected
        kept = i in info.keep
        style = "class:selected" if selected else ""
        line.append((style, f"[{i + 1}]"))
        if card is None:
            line.append(
                (
                    "class:dim",
                    " ?? (hidden until the Fortial decision)" if obs.phase == "fortial" else " ??",
                )
            )
        else:
            line.append(card_text(card))
        line.append(("class:warn" if kept else "", "* " if kept else "  "))
    return line


def my_turn(obs: TrutObservation, info: TableInfo) -> bool:
    """True when this seat has a decision to make now, with every card it needs in sight."""
    if obs.phase == "over" or obs.to_act != info.me or info.step or obs.to_act is None:
        return False
    # The cards are still being dealt: never "Your turn" over "??".
    return not (obs.phase == "play" and any(card is None for _, card in obs.hand))


def _turn_line(obs: TrutObservation, info: TableInfo) -> Line:
    spin = SPINNER[int(info.waiting_seconds * 8) % len(SPINNER)]
    if info.last_hand is not None:
        nxt = obs.hand_number + 1
        if obs.phase == "over":
            return [("class:turn", " ▶ Enter: see the final score")]
        if my_turn(obs, info):
            return [("class:turn", f" ▶ Your turn in hand {nxt}: press Enter to see it")]
        return [("class:turn", f" ▶ Enter: go on to hand {nxt}")]
    if obs.phase == "over" or obs.to_act is None:
        return [("", "")]
    if info.step:
        return [("class:dim", f" {spin} {info.step}… ({info.waiting_seconds:.0f}s)")]
    if my_turn(obs, info):
        count = len(obs.hand)
        prompt = {
            "play": f"Your turn: play a card ({_range(count)} or ←/→ + Enter)"
            + (", or t to Trut" if _legal(obs, "trut") else ""),
            "answer": "A Trut! j: Joue ! (accept)   c: Je me couche (fold)",
            "fortial": "Au Fortial: t to Trut, p to pass",
            "sing_ask": "La Chanson: do you sing? s: sing   p: pass",
            "sing_agree": "La Chanson: j: agree to sing   c: refuse",
            "sing_count": "How many cards? 1, 2 or 3",
            "keep": f"Keep 3 cards: toggle with {_range(count)}, Enter to confirm",
        }.get(obs.phase, f"Your turn ({obs.phase})")
        return [("class:turn", f" ▶ {prompt}")]
    if obs.to_act < 0 or obs.to_act == info.me:  # a chance step (CHANCE is -1): the deal
        return [("class:dim", f" {spin} Dealing… ({info.waiting_seconds:.0f}s)")]
    doing = DECIDING.get(obs.phase, "")
    return [
        (
            "class:dim",
            f" {spin} Waiting for {_name(info, obs.to_act)} {doing} ({info.waiting_seconds:.0f}s)",
        )
    ]


def _range(count: int) -> str:
    return "1" if count <= 1 else f"1-{count}"


def _legal(obs: TrutObservation, word: str) -> bool:
    return any(str(a) == word or str(a).startswith(word + " ") for a in obs.legal)


def key_bar(obs: TrutObservation, info: TableInfo) -> str:
    """The keys that do something now, and only those."""
    keys: list[str] = []
    if info.last_hand is not None:
        keys.append("Enter continue")
    elif my_turn(obs, info):
        count = len(obs.hand)
        if obs.phase == "play":
            keys.append(f"{_range(count)}/←→+Enter play")
            if _legal(obs, "trut"):
                keys.append("t Trut")
        elif obs.phase == "answer":
            keys.append("j Joue !")
            if _legal(obs, "fold"):
                keys.append("c Je me couche")
        elif obs.phase == "fortial":
            keys += ["t Trut", "p pass"]
        elif obs.phase == "sing_ask":
            keys += ["s sing", "p pass"]
        elif obs.phase == "sing_agree":
            keys += ["j agree", "c refuse"]
        elif obs.phase == "sing_count":
            keys.append("1-3 cards")
        elif obs.phase == "keep":
            keys += [f"{_range(count)} keep/unkeep", "Enter confirm"]
    keys += ["? help", "q quit"] if info.me is not None else ["? help", "q stop watching"]
    return " " + "  ".join(keys)


def table_lines(obs: TrutObservation, info: TableInfo, width: int = WIDTH) -> list[Line]:
    variant = "Gâtinaise" if obs.variant == "gatinaise" else "classic"
    lines: list[Line] = [
        [
            (
                "class:title",
                f" Trut — {variant}, {obs.players} players, first to {obs.target} Longs",
            ),
            ("class:dim", f"   {_who(info)}"),
        ]
    ]
    lines += _tokens(obs, info)
    lines.append(_state_line(obs, info))
    summary = info.last_hand
    if summary is not None:
        for number, (cards, result) in enumerate(summary.tricks, start=1):
            lines.append(_trick_line(f"Trick {number}", cards, result, info))
        gain = f" ({summary.gain})" if summary.gain else ""
        lines.append([("class:bold", f" {ARROW} {summary.result}{gain}")])
    else:
        for number, trick in enumerate(obs.tricks, start=1):
            result = "patté" if trick.team is None else _name(info, trick.winner or 0, "you")
            lines.append(_trick_line(f"Trick {number}", trick.cards, result, info))
        if obs.trick or obs.phase == "play":
            lines.append(_trick_line(f"Trick {len(obs.tricks) + 1}", obs.trick, None, info))
        lines.append(_hand_line(obs, info))
    lines.append(_turn_line(obs, info))
    lines.append([("class:dim", " " + "─" * (width - 2))])
    rows = [row for text in info.log for row in wrap(" " + text, width)]
    for row in rows[-LOG_ROWS:]:
        lines.append([("", row)])
    if info.watchers:
        lines.append(_watchers_line(info))
    lines.append(_verify_line(info))
    lines.append([("class:message", " " + (info.message or ""))])
    lines.append([("class:dim", key_bar(obs, info))])
    return [fit(line, width) for line in lines]


def _who(info: TableInfo) -> str:
    if info.me is None:
        return "watching"
    return f"you: {info.names[info.me] if info.names else ''}"


def _verify_line(info: TableInfo) -> Line:
    if info.blame:
        return [("class:blame", f" ✗ CHEAT DETECTED: {info.blame}")]
    return [
        (
            "class:ok",
            f" ✓ verified: {plural(info.shuffles_verified, 'shuffle')},"
            f" {plural(info.reveals_verified, 'reveal')}",
        )
    ]


def end_lines(
    obs: TrutObservation, info: TableInfo, width: int = WIDTH, height: int = HEIGHT
) -> list[Line]:
    """The end screen: who won, the score, and a table of every hand (scrolling with
    ↑/↓ when it does not fit), whose columns are the teams by name."""
    winner = obs.winner
    title = "you win!" if winner == obs.team else _wins(obs, info, winner or 0)
    lines: list[Line] = [[("class:title", f" Game over — {title}")]]
    lines += _tokens(obs, info)
    teams = len(obs.teams)
    column = 14 if teams > 2 else 18
    result_width = width - 8 - column * teams
    header = f" {'Hand':>4}  {'How it ended':<{result_width}}" + "".join(
        f"{plain([fit([('', team_name(obs, info, t))], column - 1)]):>{column}}"
        for t in range(teams)
    )
    lines.append([("class:bold", " Score after each hand (Longs/Petits of each team):")])
    lines.append([("class:bold", header)])
    footer: list[Line] = []
    if info.transcript:
        footer.append([("", " Transcript saved (check it with: trutnet verify FILE):")])
        path = info.transcript
        for start in range(0, len(path), width - 2):  # long paths wrap rather than run off
            footer.append([("class:bold", "  " + path[start : start + width - 2])])
    footer.append(_verify_line(info))
    history = info.history
    room = max(1, height - len(lines) - len(footer) - 1)
    footer.append(
        [("class:dim", " ↑/↓ scroll the hands  q quit" if len(history) > room else " q quit")]
    )
    if len(history) > room:
        room -= 1  # one row says which hands are shown
    last = max(0, len(history) - room)
    info.end_scroll = min(max(info.end_scroll, 0), last)
    first = last - info.end_scroll
    shown = history[first : first + room]
    for hand, result, longs, petits in shown:
        cut = plain([fit([("", result)], result_width)])
        row = f" {hand + 1:>4}  {cut:<{result_width}}" + "".join(
            f"{f'{lo}/{pe}':>{column}}" for lo, pe in zip(longs, petits, strict=True)
        )
        lines.append([("", row)])
    if len(history) > room:
        lines.append(
            [
                (
                    "class:dim",
                    f" hands {first + 1}-{first + len(shown)} of {len(history)}"
                    " (↑/↓ or PgUp/PgDn to scroll)",
                )
            ]
        )
    lines += footer
    return [fit(line, width) for line in lines]


def lobby_lines(info: TableInfo, table_name: str, players: int) -> list[Line]:
    if players == 0:  # a joiner: the host fills the seats and starts the table
        return [
            fit([("class:title", f" Lobby — {table_name}")]),
            [("", " You asked for a seat; the game starts when every seat is taken.")],
            [("class:dim", " q quit")],
            fit([("class:message", " " + info.message)]),
        ]
    lines: list[Line] = [
        [("class:title", f" Lobby — {table_name}")],
        [("", f" Seats taken: {len(info.lobby)}/{players}")],
    ]
    for seat, name, fp in info.lobby:
        lines.append([("", f"  seat {seat}: {name:<20} key {fp}")])
    for seat in range(len(info.lobby), players):
        lines.append([("class:dim", f"  seat {seat}: (empty)")])
    lines.append([("", "")])
    lines.append([("class:turn", " b: seat a bot in the next empty seat   q quit")])
    lines.append([("class:dim", " The game starts as soon as every seat is taken.")])
    lines.append([("class:message", " " + info.message)])
    return [fit(line) for line in lines]


def watch_wait_lines(info: TableInfo, table_name: str) -> list[Line]:
    """A spectator's screen until the table's ``open`` entry is in."""
    return [
        fit([("class:title", f" Watching — {table_name}")]),
        [("", " Waiting for the table's log; the game shows as soon as it is here.")],
        [("class:dim", " q stop watching")],
        fit([("class:message", " " + info.message)]),
    ]


def plain(lines: list[Line]) -> str:
    """The lines without styles, as tests and logs read them."""
    return "\n".join("".join(text for _, text in line) for line in lines)
