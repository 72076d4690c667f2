"""The frame of every table screen as text: pure functions from what one seat may see
to styled lines, the game's parts drawn by its front-end (:mod:`.frontend`).

The frame owns the title line's "you: NAME", the waiting line (its spinner, the
automatic step under way, "Waiting for NAME …", a finished round's "Enter" line), a
finished round's summary (:class:`~trutnet.client.frontend.RoundOver`), the log, the
spectators' line, the verification line, the message line and the key bar's own keys;
the lobby, a spectator's waiting screen, the help screen and the end screen (its title,
the scrolling of its rounds, the transcript and the verification line), and the end
screen of an abandoned game. When the table is in trouble (a lost broker, a stalled
seat) the waiting line says so instead, and the message row says what comes next.

A spectator's screen is the same frame with no seat (``TableInfo.me`` is None): no
hand and no keys for actions.

The terminal application (:mod:`trutnet.client.app`) shows these lines; tests read
the same lines as plain text. Every line fits in 80 columns (long ones wrap or end
in "…") and every screen in 24 rows (the end screen's rounds scroll).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.utils import get_cwidth

from trutnet.client.frontend import Frontend
from trutnet.engine.hidden import Told
from trutnet.i18n import N_, _, ngettext
from trutnet.protocol.clock import clock_text

Line = list[tuple[str, str]]  # (style, text) fragments, as prompt-toolkit takes them

WIDTH = 80
HEIGHT = 24
LOG_ROWS = 6
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
ARROW = "→"
AWAY = N_("It ended while you were away: there is nothing to play.")
WATCHERS_SHOWN = 4  # spectators named on the table screen; the others are counted


@dataclass
class TableInfo:
    """What the screen needs besides the observation: the frame's state."""

    names: list[str]
    fingerprints: list[str]
    me: int | None  # this screen's seat; None for a spectator
    log: list[str] = field(default_factory=list)
    shuffles_verified: int = 0
    reveals_verified: int = 0
    openings_verified: int = 0  # sealed choices opened against their commitments
    searches_verified: int = 0  # cards found by plaintext-equality tests (a Locate)
    blame: str | None = None
    message: str = ""
    waiting_seconds: float = 0.0
    transcript: str | None = None
    status: str = "playing"  # lobby, playing, over, stopped
    lobby: list[tuple[int, str, str]] = field(default_factory=list)
    confirm_quit: bool = False
    # An automatic step under way ("Shuffling (Bot 1)"): nobody decides, the screen waits.
    step: str = ""
    # A round just ended: the front-end shows it instead of the next one until dismissed.
    paused: bool = False
    end_scroll: int = 0  # rows of the end screen's rounds scrolled up from the end
    # The table's spectators (name, key fingerprint), as their signed presence says;
    # ``me_fp``: this screen's own key, shown as "you" among them.
    watchers: list[tuple[str, str]] = field(default_factory=list)
    watchers_more: int = 0  # live spectators beyond the ones listed by name
    me_fp: str = ""
    # The table's trouble: ``alert`` (a lost broker, a stalled seat) takes the waiting
    # line's place, ``alert_next`` (what happens next, what to do) the message row's
    # when nothing else is said there; ``offline``: no decision can be sent now.
    alert: str = ""
    alert_next: str = ""
    offline: bool = False
    # The game was abandoned (7.7): why, in one line; ``away``: the game ended (so, or
    # otherwise) before this seat came back (``join --resume``), with no word from it.
    abandoned: str = ""
    away: bool = False
    # The lobby's words on the table itself: whether it is private (None: not said),
    # how friends join it (the host's, each a line), its seats (a joiner's, 0: unknown).
    private: bool | None = None
    join_how: list[str] = field(default_factory=list)
    invitation: str | None = None  # a sealed table's code, once the host serves it (9.9)
    invitation_broker: str | None = None  # the broker its friends name (not on the LAN)
    invitation_bridge: str | None = None  # the rendezvous a bridged table's friends name
    invitation_live: bool = False  # the code still lets spectators in (not expired)
    table_seats: int = 0
    hints: bool = True  # the table lets a person ask the search bot for a hint (``i``)
    # The table's chat (Tab): the lines shown (who, text; muted authors left out), the
    # panel open in the log's place, messages come while it was closed, and the text
    # being typed (None: not typing).
    chat: list[tuple[str, str]] = field(default_factory=list)
    chat_open: bool = False
    chat_unread: int = 0
    typing: str | None = None
    chat_note: str = ""  # what became of the last message or command (a refusal: why)
    # The game's signs (``g``): the menu shown in the log's place, each (key, card, its
    # words; empty: not shown), and what became of the last key pressed there.
    sign_menu: list[tuple[str, str, str]] = field(default_factory=list)
    sign_note: str = ""
    # The signs this seat was shown (a partner's, one it caught), each with its words
    # ("Bob: a three"), on the rule above the log while its period is ``round_now``.
    signs_told: list[tuple[Told, str]] = field(default_factory=list)
    round_now: int = -1
    # The table's turn clock (7.11): its rule for a person ("30 s a decision"; empty: no
    # clock), this seat's time left, and the deciding seat's (seat, time left)
    clock: str = ""
    clock_mine: float | None = None
    clock_turn: tuple[int, float] | None = None
    # The end screen's rematch (9.7): what it says of one (empty: nobody asked yet);
    # None: no rematch from this screen (a spectator's)
    rematch: str | None = None
    replaying: bool = False  # a saved game (``trutnet replay``): no clock, no game keys


def plural(count: int, word: str) -> str:
    """``1 Petit``, ``2 Petits``, ``0 cards``: a count and its word, agreed."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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


def log_tail(log: Sequence[str], width: int = WIDTH, height: int = LOG_ROWS) -> list[str]:
    """The last rows of the log that fit in ``height`` rows, whole entries only: never
    the end of a wrapped entry without its start (the newest one alone if it is taller).
    A full log keeps its ``height`` rows (blank ones first) so nothing below moves."""
    rows: list[str] = []
    for text in reversed(log):
        entry = wrap(" " + text, width)
        if len(rows) + len(entry) > height:
            return [""] * (height - len(rows)) + rows if rows else entry[-height:]
        rows[:0] = entry
    return rows


def seat_name(info: TableInfo, seat: int, you: str = N_("You")) -> str:
    """A seat by its player's name, ``you`` for this screen's own seat (translated)."""
    if seat == info.me:
        return _(you)
    return info.names[seat] if 0 <= seat < len(info.names) else _("seat {n}").format(n=seat)


def plain(lines: list[Line]) -> str:
    """The lines without styles, as tests and logs read them."""
    return "\n".join("".join(text for _, text in line) for line in lines)


CHAT_HELP = N_(" Tab  the table's chat: type, Enter sends, Esc back; /mute NAME hides someone")


SIGNS_HELP = N_(" {key}  sign to your partners: the menu, then a digit (an opponent may catch it)")


HINTS_HELP = N_(" {key}  on your turn: what the search bot would play, and why")


def help_lines(frontend: Frontend, spectator: bool, hints: bool = False) -> list[Line]:
    """The game's help, and the frame's chat key (every game's screen has it), its
    signs' key where the game has signs, and the hint key where the table allows
    hints (``hints``)."""
    lines = [*frontend.help(spectator).splitlines(), _(CHAT_HELP)]
    if frontend.sign_key and not spectator:
        lines.append(_(SIGNS_HELP).format(key=frontend.sign_key))
    if hints and not spectator and len(lines) < HEIGHT:  # (else the lobby says it)
        lines.append(_(HINTS_HELP).format(key=HINT_KEY))
    return [[("", line)] for line in lines]


def verified_counts(replica: Any) -> tuple[int, int, int, int]:
    """What a replica has checked so far, for the verification line: shuffles, reveals
    (decisions that carry the player's share), sealed choices opened, card searches
    (one round of blindings a Locate)."""
    entries = replica.log.entries
    kinds = [e.type for e in entries]
    reveals = sum(e.type == "act" and "shares" in e.body for e in entries)
    searches = kinds.count("blind") // max(1, len(replica.seats))
    return kinds.count("shuffle"), reveals, kinds.count("unseal"), searches


HINT_KEY = "i"  # asks the search bot for a hint (a game's own key of that name wins)


def my_turn(frontend: Frontend, obs: Any, info: TableInfo) -> bool:
    """True when this seat has a decision to make now, with everything it needs in
    sight (never "Your turn" over cards still being dealt)."""
    if obs.to_act is None or obs.to_act != info.me or info.step or info.offline:
        return False
    return frontend.ready(obs, info)


def _watchers_line(info: TableInfo, width: int = WIDTH) -> Line:
    """``Watching: Eve (6M55), you and 3 more``: the spectators, by name (with the
    start of their key's fingerprint) as many as fit, the others counted."""
    you = _("you")
    names = [you if fp == info.me_fp else f"{name[:12]} ({fp[:4]})" for name, fp in info.watchers]
    total = len(names) + info.watchers_more

    def watching(shown: list[str], rest: int) -> str:
        if not rest:
            return _(" Watching: {names}").format(names=", ".join(shown))
        more = ngettext(" Watching: {names} and {n} more", " Watching: {names} and {n} more", rest)
        return more.format(names=", ".join(shown), n=rest)

    shown: list[str] = []
    for count, name in enumerate(names[:WATCHERS_SHOWN], start=1):
        if text_width(watching([*shown, name], total - count)) > width:
            break
        shown.append(name)
    rest = total - len(shown)
    if not shown:
        spectators = ngettext("{n} spectator", "{n} spectators", rest).format(n=rest)
        return [("class:dim", _(" Watching: {names}").format(names=spectators))]
    return [("class:dim", watching(shown, rest))]


def turn_line(frontend: Frontend, obs: Any, info: TableInfo) -> Line:
    """The waiting line: what this screen waits for, or what it is asked."""
    spin = SPINNER[int(info.waiting_seconds * 8) % len(SPINNER)]
    if info.replaying:  # a saved game: what comes next, with no clock
        if info.paused:
            said = _(" ▷ The {round} is over: → goes on")  # the game's word: hand, manche
            return [("class:turn", said.format(round=_(frontend.round_word)))]
        if obs.to_act is None:
            return [("", "")]
        if obs.to_act < 0:
            return [("class:dim", _(" ▷ Next: {step}").format(step=_(frontend.chance_step)))]
        doing = frontend.deciding(obs)
        said = _(" ▷ Next: {who} {doing}").format(who=seat_name(info, obs.to_act), doing=doing)
        return [("class:dim", said.rstrip())]
    if info.alert:  # the table is in trouble: say that rather than wait in silence
        return [("class:warn", f" {info.alert}")]
    if info.paused:
        if obs.to_act is None:
            return [("class:turn", _(" ▶ Enter: see the final score"))]
        round_label = frontend.round_label(obs)
        if my_turn(frontend, obs, info):
            said = _(" ▶ Your turn in {round}: press Enter to see it").format(round=round_label)
            return [("class:turn", said)]
        return [("class:turn", _(" ▶ Enter: go on to {round}").format(round=round_label))]
    if obs.to_act is None:
        return [("", "")]
    if info.step:
        return [("class:dim", f" {spin} {info.step}… ({info.waiting_seconds:.0f}s)")]
    if my_turn(frontend, obs, info):
        return [("class:turn", f" ▶ {frontend.prompt(obs, info)}")]
    if obs.to_act < 0 or obs.to_act == info.me:  # a chance step (CHANCE is -1)
        step = _(frontend.chance_step)
        return [("class:dim", f" {spin} {step}… ({info.waiting_seconds:.0f}s)")]
    doing = frontend.deciding(obs)
    who = seat_name(info, obs.to_act)
    waited = f"{info.waiting_seconds:.0f}s"
    if info.clock_turn is not None and info.clock_turn[0] == obs.to_act:  # its clock
        left = clock_text(info.clock_turn[1])
        waited = _("{waited}; ⏱ {left} left").format(waited=waited, left=left)
    said = _("Waiting for {who} {doing} ({waited})").format(who=who, doing=doing, waited=waited)
    return [("class:dim", f" {spin} {said}")]


def key_bar(frontend: Frontend, obs: Any, info: TableInfo) -> str:
    """The keys that do something now, and only those."""
    if info.typing is not None:
        return _(CHAT_KEYS)
    if info.sign_menu:  # its keys: 1-9, then 0 for a tenth sign
        keys = info.sign_menu[0][0] + "-" + info.sign_menu[-1][0]
        return _(" {keys} make that sign  Esc back to the game").format(keys=keys)
    keys: list[str] = []
    if info.paused:
        keys.append(_("Enter continue"))
    elif my_turn(frontend, obs, info):
        keys += frontend.key_hints(obs, info)
    leave = _("q quit") if info.me is not None else _("q stop watching")
    said = " " + "  ".join([*keys, _("? help"), leave])
    if text_width(said) > WIDTH:  # the way out stays in sight: ? help goes first
        said = " " + "  ".join([*keys, leave])
    return said


def invitation_said(info: TableInfo) -> str:
    """The code as a friend types it: with the broker it plays on when that is not the
    LAN's (``--broker``)."""
    code = info.invitation or ""
    if info.invitation_broker is not None:
        code += f" --broker {info.invitation_broker}"
    return code


def watch_said(info: TableInfo) -> str:
    """How a spectator comes to a sealed table: the watch command with its code."""
    return _("Spectators watch with: trutnet watch {code}").format(code=invitation_said(info))


def table_lines(frontend: Frontend, obs: Any, info: TableInfo, width: int = WIDTH) -> list[Line]:
    """The table screen: the game's title and table area in the frame."""
    lines: list[Line] = [
        [("class:title", f" {frontend.title(obs)}"), ("class:dim", f"   {_who(info)}")]
    ]
    if info.paused:  # the round that just ended, until a key
        lines += round_over_lines(frontend, obs, info, width)
    else:
        lines += frontend.table_area(obs, info, width)
    lines.append(turn_line(frontend, obs, info))
    lines.append(_separator(info, width))
    if info.sign_menu:
        from trutnet.client.sign_panel import sign_rows  # the signs' menu, its own room

        rows = sign_rows(info, width, LOG_ROWS)
    else:
        rows = chat_rows(info, width, LOG_ROWS) if info.chat_open else log_tail(info.log, width)
    lines += [[("", row)] for row in rows]
    if info.watchers:
        lines.append(_watchers_line(info))
    elif info.invitation is not None and info.invitation_live:  # nobody yet: how to come
        lines.append([("class:dim", " " + watch_said(info))])
    lines.append(_verify_line(info))
    lines.append(_message_line(info))
    lines.append([("class:dim", key_bar(frontend, obs, info))])
    return [fit(line, width) for line in lines]


CHAT_KEYS = N_(" Enter send  Esc back to the game  /mute NAME  /unmute NAME")


def _separator(info: TableInfo, width: int) -> Line:
    """The rule above the log: it says so when the chat is shown in the log's place,
    and how many messages came while it was not."""
    tab = _(" Tab: chat ") + "─"  # the chat's key, at the rule's end
    if info.replaying:  # a saved game has no chat: a plain rule
        return [("class:dim", " " + "─" * (width - 3))]
    if info.sign_menu:
        said = _(" signs (Esc: back to the game's log) ")
    elif info.chat_open:
        said = _(" chat (Esc: back to the game's log) ")
    elif info.chat_unread:
        n = info.chat_unread
        said = ngettext(
            " {n} new message: Tab shows the chat ", " {n} new messages: Tab shows the chat ", n
        ).format(n=n)
    elif info.clock_mine is not None:  # this seat's clock, at the rule's start
        mine = _(" ⏱ your time: {time} ").format(time=clock_text(info.clock_mine))
        late = (
            info.clock_mine < 10 and info.clock_turn is not None and info.clock_turn[0] == info.me
        )
        rule = "─" * (width - 5 - text_width(tab) - text_width(mine))
        return [("class:dim", " ──"), ("class:warn" if late else "class:dim", mine),
                ("class:dim", rule + tab)]  # fmt: skip
    elif told_this_round(info):  # the signs this seat was shown this round
        told = fit([("", f" ✋ {told_this_round(info)} ")], width - 6 - text_width(tab))
        rule = "─" * max(1, width - 4 - text_width(tab) - sum(text_width(t) for _s, t in told))
        return [("class:dim", " ──"), *[("class:bold", t) for _s, t in told],
                ("class:dim", rule + tab)]  # fmt: skip
    else:  # the key bar is the game's
        return [("class:dim", " " + "─" * (width - 3 - text_width(tab)) + tab)]
    rule = "─" * max(1, width - 4 - text_width(said))
    return [("class:dim", " ──"), ("class:warn", said), ("class:dim", rule)]


def told_this_round(info: TableInfo) -> str:
    """The signs this seat was shown in the round on screen, one after the other."""
    return " · ".join(text for told, text in info.signs_told if told.period == info.round_now)


def _message_line(info: TableInfo) -> Line:
    if info.typing is not None:  # what the person is typing, with a cursor
        return [("class:bold", _(" say: ")), ("", info.typing), ("class:selected", " ")]
    return [("class:message", " " + (info.message or info.alert_next))]


def chat_rows(info: TableInfo, width: int, height: int) -> list[str]:
    """The newest chat lines that fit in ``height`` rows (wrapped, whole messages
    only, blank rows first so nothing below moves); a line for an empty chat."""
    note = [f" ⚠ {info.chat_note}"] if info.chat_note else []
    if not info.chat:
        said = _(" Nothing said yet. Type, then Enter: everyone at the table reads it.")
        return [said, *[""] * (height - 1 - len(note)), *note]
    lines = log_tail([f"{who}: {text}" for who, text in info.chat], width, height - len(note))
    return [""] * (height - len(note) - len(lines)) + lines + note


def round_over_lines(
    frontend: Frontend, obs: Any, info: TableInfo, width: int = WIDTH
) -> list[Line]:
    """The round that just ended, the same way for every game: the score after it, its
    heading, what happened in it, then who scored what and why (one arrow a phrase)."""
    over = frontend.round_over(obs, info)
    if over is None:
        return [[("class:bold", _(" The {round} is over").format(round=_(frontend.round_word)))]]
    lines: list[Line] = [*over.score, [("class:bold", f" {over.heading}")], *over.rows]
    for phrase in over.scored or (_("nobody scores"),):
        for row in wrap(f" {ARROW} {phrase}", width, indent="  "):
            lines.append([("class:bold", row)])
    return lines


def _who(info: TableInfo) -> str:
    if info.replaying:
        return _("replay")
    if info.me is None:
        return _("watching")
    return _("you: {name}").format(name=info.names[info.me] if info.names else "")


def _verify_line(info: TableInfo) -> Line:
    """What this replica has checked so far: shuffles and reveals, and, when the game
    uses them, sealed choices opened and cards found by equality tests."""
    if info.blame:
        return [("class:blame", _(" ✗ CHEAT DETECTED: {blame}").format(blame=info.blame))]
    opened, searched = info.openings_verified, info.searches_verified
    said = []
    if opened:
        said.append(
            ngettext("{n} sealed choice opened", "{n} sealed choices opened", opened).format(
                n=opened
            )
        )
    if searched:
        said.append(ngettext("{n} card search", "{n} card searches", searched).format(n=searched))
    if info.shuffles_verified or info.reveals_verified or not said:
        shuffles, reveals = info.shuffles_verified, info.reveals_verified
        said[:0] = [
            ngettext("{n} shuffle", "{n} shuffles", shuffles).format(n=shuffles),
            ngettext("{n} reveal", "{n} reveals", reveals).format(n=reveals),
        ]
    return [("class:ok", _(" ✓ verified: {checks}").format(checks=", ".join(said)))]


def _transcript_lines(info: TableInfo, width: int = WIDTH) -> list[Line]:
    if not info.transcript:
        return []
    lines: list[Line] = [[("", _(" Transcript saved (check it with: trutnet verify FILE):"))]]
    path = info.transcript
    for start in range(0, len(path), width - 2):  # long paths wrap rather than run off
        lines.append([("class:bold", "  " + path[start : start + width - 2])])
    return lines


def abandoned_lines(
    frontend: Frontend, obs: Any, info: TableInfo, width: int = WIDTH
) -> list[Line]:
    """The end screen of a game the table abandoned (``docs/protocol.md`` 7.7): no
    winner, who stalled and who voted, the last of the log, the transcript."""
    lines: list[Line] = [
        [("class:title", _(" Game over — abandoned, no winner"))],
        [("class:dim", f" {frontend.title(obs)}   {_who(info)}")],
    ]
    lines += [[("class:warn", row)] for row in wrap(" " + info.abandoned, width)]
    if info.away:
        lines.append([("class:warn", " " + _(AWAY))])
    lines.append([("class:dim", " " + "─" * (width - 2))])
    lines += [[("", row)] for row in log_tail(info.log, width)]
    lines.append([("", "")])
    lines += _transcript_lines(info, width)
    lines.append(_verify_line(info))
    if info.rematch:  # a game abandoned may be played again too (9.7)
        lines.append([("class:warn", f" {info.rematch}")])
    keys = [_("r rematch"), _("q quit")] if info.rematch is not None else [_("q quit")]
    lines.append([("class:dim", " " + "  ".join(keys))])
    return [fit(line, width) for line in lines]


def end_lines(
    frontend: Frontend, obs: Any, info: TableInfo, width: int = WIDTH, height: int = HEIGHT
) -> list[Line]:
    """The end screen: who won, the game's score and a row per round (scrolling with
    ↑/↓ when they do not fit), the transcript and the verification line."""
    over = _(" Game over — {result}").format(result=frontend.end_title(obs, info))
    lines: list[Line] = [[("class:title", over)]]
    if info.away:
        lines.append([("class:warn", " " + _(AWAY))])
    top, rounds = frontend.end_table(obs, info, width)
    lines += top
    footer = _transcript_lines(info, width)
    footer.append(_verify_line(info))
    if info.rematch:
        footer.append([("class:warn", f" {info.rematch}")])
    if info.chat_open:  # the chat in the rounds' place ("well played")
        room = max(1, height - len(lines) - len(footer) - 3)
        lines.append(_separator(info, width))
        lines += [[("", row)] for row in chat_rows(info, width, room)]
        lines += [*footer, _message_line(info), [("class:dim", _(CHAT_KEYS))]]
        return [fit(line, width) for line in lines]
    room = max(1, height - len(lines) - len(footer) - 1)
    many = _(frontend.rounds_word)
    keys = [_("↑/↓ scroll the {rounds}").format(rounds=many)] if len(rounds) > room else []
    keys += [_("r rematch")] if info.rematch is not None else []  # a seat's screen
    keys += [_("Tab chat"), _("q quit")]
    footer.append([("class:dim", " " + "  ".join(keys))])
    if len(rounds) > room:
        room -= 1  # one row says which rounds are shown
    last = max(0, len(rounds) - room)
    info.end_scroll = min(max(info.end_scroll, 0), last)
    first = last - info.end_scroll
    shown = rounds[first : first + room]
    lines += shown
    if len(rounds) > room:
        which = _(" {rounds} {first}-{last} of {total} (↑/↓ or PgUp/PgDn to scroll)")
        last_shown = first + len(shown)
        said = which.format(rounds=many, first=first + 1, last=last_shown, total=len(rounds))
        lines.append([("class:dim", said)])
    lines += footer
    return [fit(line, width) for line in lines]
