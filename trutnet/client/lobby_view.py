"""The screens before and beside a game: the lobby (the host's seats filling, or a
joiner's wait), a spectator's wait for the log, a table whose game has no screen
here, and a table's game in a few words."""

from __future__ import annotations

from trutnet.client.view import WIDTH, Line, TableInfo, fit, invitation_said, watch_said, wrap
from trutnet.i18n import _, ngettext
from trutnet.protocol.clock import ClockRule, clock_text


def clock_rule_said(rule: ClockRule | None) -> str:
    """A table's clock for a person (7.11): ``30 s a decision``, ``5:00 each, +5 s a
    decision``, ``10:00 each``; nothing for a table without one."""
    if rule is None:
        return ""
    if rule.per_move is not None:
        return _("{seconds} s a decision").format(seconds=rule.per_move)
    assert rule.bank is not None
    said = _("{bank} each, +{seconds} s a decision") if rule.increment else _("{bank} each")
    return said.format(bank=clock_text(rule.bank), seconds=rule.increment)


def variant_said(variant: str) -> str:
    """A table's announced variant (``classic fast``) in the person's language, word by
    word, as the games' catalogs say them (``classique fast``); a word no catalog knows
    stays as announced."""
    return " ".join(_(word) for word in variant.split())


def game_summary(long_name: str, variant: str, players: int) -> str:
    """The game of a table in the lobby: ``Long name (variant), 4 players``."""
    variant = variant_said(variant)
    if variant:
        said = ngettext(
            "{game} ({variant}), {n} player", "{game} ({variant}), {n} players", players
        )
    else:
        said = ngettext("{game}, {n} player", "{game}, {n} players", players)
    return said.format(game=long_name, variant=variant, n=players)


def lobby_lines(info: TableInfo, table_name: str, players: int, game: str = "") -> list[Line]:
    """The lobby: the seats taken (the host's, ``players`` seats) or a joiner's wait
    (``players`` 0: the seats the host announces, ``info.lobby``, as they fill);
    ``game``: which game the table plays. Both say whether the table is private, and
    the host's says how friends join it (``info.join_how``)."""
    lines: list[Line] = [[("class:title", _(" Lobby — {table}").format(table=table_name))]]
    lines += [[("", _(" Game: {game}").format(game=game))]] if game else []
    if info.private is not None:
        said = (
            _(" Private table: joining needs its password.")
            if info.private
            else _(" Open table: no password needed to join.")
        )
        lines.append([("", said)])
        hints = (
            _(" Hints: on (i on your turn asks the search bot).")
            if info.hints
            else _(" Hints: off at this table.")
        )
        lines.append([("", hints)])
    if info.clock:
        clock = _(" Clock: {clock}; a seat out of time is reported as stalled.")
        lines.append([("", clock.format(clock=info.clock))])
    for how in info.join_how:
        lines += [[("class:bold", row)] for row in wrap(" " + how, WIDTH, "  ")]
    if info.invitation is not None:
        code = invitation_said(info)  # not announced on the LAN: with its broker
        said = _("Sealed table: friends join with: trutnet join {code}").format(code=code)
        lines += [[("class:bold", row)] for row in wrap(" " + said, WIDTH, "  ")]
        if info.invitation_bridge is not None:  # bridged: friends elsewhere, by its rendezvous
            far = _("Beyond this LAN: trutnet join {code} --broker {url}").format(
                code=info.invitation, url=info.invitation_bridge
            )
            lines += [[("class:bold", row)] for row in wrap(" " + far, WIDTH, "  ")]
        lines += [[("", row)] for row in wrap(" " + watch_said(info), WIDTH, "  ")]
        note = _(
            "The code lets a friend in until the table is full (10 minutes at most; five"
            " wrong tries end it). Everything said at the table is encrypted: the broker"
            " reads nothing."
        )
        lines += [[("", row)] for row in wrap(" " + note, WIDTH, "  ")]
    if players == 0:  # a joiner: the host fills the seats and starts the table
        said = _(" You asked for a seat; the game starts when every seat is taken.")
        lines.append([("", said)])
        if info.lobby:
            taken = (
                _(" Seats taken: {taken}/{seats}")
                if info.table_seats
                else _(" Seats taken: {taken}")
            )
            lines.append([("", taken.format(taken=len(info.lobby), seats=info.table_seats))])
        for seat, name, what in info.lobby:
            row = _("  seat {n}: {name} (bot)") if what == "bot" else _("  seat {n}: {name}")
            lines.append([("", row.format(n=seat, name=name))])
        lines.append([("class:dim", " " + _("q quit"))])
        lines.append([("class:message", " " + info.message)])
        return [fit(line) for line in lines]
    taken = _(" Seats taken: {taken}/{seats}").format(taken=len(info.lobby), seats=players)
    lines.append([("", taken)])
    for seat, name, fp in info.lobby:
        lines.append([("", _("  seat {n}: {name:<20} key {fp}").format(n=seat, name=name, fp=fp))])
    for seat in range(len(info.lobby), players):
        lines.append([("class:dim", _("  seat {n}: (empty)").format(n=seat))])
    lines.append([("", "")])
    lines.append([("class:turn", _(" b: seat a bot in the next empty seat   q quit"))])
    lines.append([("class:dim", _(" The game starts as soon as every seat is taken."))])
    lines.append([("class:message", " " + info.message)])
    return [fit(line) for line in lines]


def watch_wait_lines(info: TableInfo, table_name: str) -> list[Line]:
    """A spectator's screen until the table's ``open`` entry is in."""
    return [
        fit([("class:title", _(" Watching — {table}").format(table=table_name))]),
        fit([("", _(" Waiting for the table's log; the game shows as soon as it is here."))]),
        [("class:dim", " " + _("q stop watching"))],
        fit([("class:message", " " + info.message)]),
    ]


def no_screen_lines(info: TableInfo, table_name: str, why: str) -> list[Line]:
    """A table whose game has no screen here (no plugin gives it one)."""
    return [
        fit([("class:title", f" {table_name}")]),
        fit([("class:warn", f" {why}")]),
        [("class:dim", " " + _("q quit"))],
        fit([("class:message", " " + info.message)]),
    ]
