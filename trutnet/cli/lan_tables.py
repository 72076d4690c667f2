"""Finding a table on the LAN: ``trutnet tables`` (once, or with ``--watch``), and
the choice of a table for ``join`` and ``watch``: the one named, the one picked, or,
when the one asked for is not there (a misspelt name, only tables of other games), the
tables that are, each with the command that takes it, in lines of 80 columns.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from trutnet.cli.arguments import Refused
from trutnet.cli.games import DEFAULT_GAME
from trutnet.client.lobby_view import variant_said
from trutnet.i18n import N_, _, ngettext
from trutnet.net.broker import Endpoint, parse_broker_url
from trutnet.runtime.lobby_watch import WrongGame


class OtherGames(Exception):
    """No table to take: tables of other games only, a name that no table has, or a
    table named that cannot be taken now. The message lists what there is."""


SHOWN = 5  # tables listed when the one asked for is not there; the others are counted
# a table's status (a lobby token) as a person reads it
STATUS_SAID = {"open": N_("open"), "playing": N_("playing")}


def status_said(status: str) -> str:
    """A table's status (``open``, ``playing``) in the person's language."""
    said = STATUS_SAID.get(status)
    return _(said) if said else status


def join_command(table: Any, command: str = "join", by_id: bool = False) -> str:
    """The command that joins (or watches) ``table``, as a person types it: by its
    name, or by its table id when ``by_id`` (another table has the same name); with
    ``--game`` for a table of another game than the default, ``--private`` for a
    private one."""
    words = ["trutnet", command, table.table if by_id else shell_word(table.name)]
    if command == "join" and table.game != DEFAULT_GAME:
        words += ["--game", table.game]
    return " ".join([*words, *(["--private"] if table.private else [])])


def shell_word(text: str) -> str:
    """``text`` as one word of a shell command, quoted the way a person would:
    ``"Ana's table"`` rather than ``'Ana'"'"'s table'``."""
    import shlex

    if re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    if not re.search(r'["$`\\!]', text):
        return f'"{text}"'
    return shlex.quote(text)


def _about_table(table: Any, private: bool = True) -> str:
    """``trut classic, seats 1/4, open, private``: a found table in a few words
    (``private``: say so, unless the command beside it does)."""
    d = table.to_dict()
    game = " ".join(w for w in (d["game"], variant_said(d["variant"] or "")) if w)
    said = (
        _("{game}, seats {seats}, {status}, private")
        if d["private"] and private
        else _("{game}, seats {seats}, {status}")
    )
    return said.format(game=game, seats=d["seats"], status=status_said(d["status"]))


def _listed(tables: list[Any], command: str) -> list[str]:
    """One line per table (at most :data:`SHOWN`, the others counted): the command
    that takes it, then what it is; two lines when that does not fit 80 columns."""
    names = [t.name for t in tables]
    lines = []
    for t in tables[:SHOWN]:
        how, about = join_command(t, command, names.count(t.name) > 1), _about_table(t, False)
        if len(f"  {how}   ({about})") <= 80:
            lines.append(f"  {how}   ({about})")
        else:  # the command whole, what the table is under it
            lines += [*wrap_command(how, "  "), f"    ({about})"[:80]]
    if len(tables) > SHOWN:
        more = len(tables) - SHOWN
        lines.append(
            ngettext(
                "  and {count} more: trutnet tables lists them all",
                "  and {count} more: trutnet tables lists them all",
                more,
            ).format(count=more)
        )
    return lines


def _closest(name: str, tables: list[Any]) -> list[Any]:
    """``tables``, the names most like ``name`` first (a misspelt name's table on top)."""
    from difflib import SequenceMatcher

    def likeness(t: Any) -> float:
        return SequenceMatcher(None, name.casefold(), t.name.casefold()).ratio()

    return sorted(tables, key=likeness, reverse=True)


def wrong_game(exc: WrongGame) -> str:
    """A table of another game, in one line that says how to join it."""
    return _("{problem}: join it with --game {game}").format(problem=exc, game=exc.game)


def table_asked(
    args: argparse.Namespace, command: str, game: str | None = None
) -> tuple[Endpoint, bytes, bool]:
    """The table ``command`` takes: ``--broker`` and ``--table``, else the one
    :func:`choose_table` finds on the LAN (open ones to join, open or playing ones to
    watch); :class:`Refused` in one line when there is none."""
    if args.broker is not None:
        return parse_broker_url(args.broker), bytes.fromhex(args.table), False
    statuses = ("open",) if command == "join" else ("open", "playing")
    try:
        found = choose_table(args, statuses, command, game)
    except (NoLan, OtherGames) as exc:
        raise Refused(str(exc)) from None
    except WrongGame as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command=command, problem=wrong_game(exc))
        ) from None
    if found is None:
        said = (
            _("trutnet {command}: no open table found on the LAN")
            if command == "join"
            else _("trutnet {command}: no table found on the LAN")
        )
        raise Refused(said.format(command=command))
    return found


def choose_table(
    args: argparse.Namespace,
    statuses: tuple[str, ...] = ("open",),
    command: str = "join",
    game: str | None = None,
) -> tuple[Endpoint, bytes, bool] | None:
    """List the tables found on the LAN (of ``statuses``: open ones, to join; of
    ``game``, unless None) and take the one named, the one the person picks (on a
    terminal), or the first; with whether it is private. A table named that plays
    another game: :class:`WrongGame`. :class:`OtherGames`, listing the tables there
    are and how to take them: a name that no table has, or tables of other games only."""
    live = [t for t in _search_lan(args, command) if t.live]
    tables = [t for t in live if t.live.get("status") in statuses]
    if args.table_name is not None:
        tables = _named(args.table_name, tables, live, command)
    mine = [t for t in tables if game is None or t.game == game]
    if tables and not mine and game is not None:
        if args.table_name is not None:
            found = tables[0]
            raise WrongGame(bytes.fromhex(found.table), found.game, game, args.table_name)
        if len(tables) == 1:
            raise OtherGames(
                _no_table_of(statuses, True).format(
                    command=command, game=game, other=tables[0].game
                )
                + "\n"
                + "\n".join(_listed(tables, command))
            )
        raise OtherGames(
            "\n".join(
                [
                    _no_table_of(statuses, False).format(command=command, game=game),
                    *_listed(tables, command),
                ]
            )
        )
    tables = mine
    sealed = [t.invite for t in live if t.invite is not None]
    if not tables and sealed and args.table_name is None:  # one only a code opens (9.9)
        raise OtherGames(
            _(
                "trutnet {command}: no open table found on the LAN; a sealed table is there"
                " (invitation {number}): come in with the code its host tells you,"
                " trutnet join {number}-WORD-WORD"
            ).format(command=command, number=sealed[0])
        )
    if not tables:
        return None
    pick = 0 if args.json else _pick(tables, command)
    chosen = tables[pick]
    return chosen.endpoint, bytes.fromhex(chosen.table), chosen.private


def _named(asked: str, tables: list[Any], live: list[Any], command: str) -> list[Any]:
    """The tables among ``tables`` named ``asked`` (by name or id); :class:`OtherGames`
    saying why none is, when a table of ``live`` has that name, or which there are."""
    named = [t for t in tables if asked in (t.name, t.table)]
    if not named and any(asked in (t.name, t.table) for t in live):
        status = next(t for t in live if asked in (t.name, t.table)).live.get("status")
        said = status_said(str(status))
        why = (
            _("every seat is taken")
            if status == "playing"
            else _("it is {status}").format(status=said)
        )
        watch = (
            _(" (watch it: {command})").format(command=f"trutnet watch {shell_word(asked)}")
            if command == "join"
            else ""
        )
        raise OtherGames(
            _("trutnet {command}: the table {name} is {status}: {why}{watch}").format(
                command=command, name=repr(asked), status=said, why=why, watch=watch
            )
        )
    if not named and live:
        found_said = ngettext(
            "trutnet {command}: no table named {name} on the LAN; the one found:",
            "trutnet {command}: no table named {name} on the LAN; those found:",
            len(live),
        )
        raise OtherGames(
            "\n".join(
                [
                    found_said.format(command=command, name=repr(asked)),
                    *_listed(_closest(asked, live), command),
                ]
            )
        )
    return named


def _pick(tables: list[Any], command: str) -> int:
    """List ``tables`` and ask which one (on a terminal, when there are several): its
    index, the first by default."""
    for number, t in enumerate(tables, start=1):
        line = f"  {number}. {t.name}   ({_about_table(t)})"
        print(line if len(line) <= 80 else f"{line[:78]}…)", file=sys.stderr)
    pick = 0
    if len(tables) > 1 and sys.stdin.isatty():
        if command == "join":
            ask = _("Join which table? [1-{count}, default 1] ")
        elif command == "watch":
            ask = _("Watch which table? [1-{count}, default 1] ")
        else:  # no command but join and watch chooses a table: said in English
            ask = command.title() + " which table? [1-{count}, default 1] "
        answer = input(ask.format(count=len(tables))).strip()
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            pick = int(answer) - 1
    return pick


def _no_table_of(statuses: tuple[str, ...], one: bool) -> str:
    """No table of the game asked for, only tables of other games (``one``: a single
    table, whose game is ``{other}``): the line that says it, before their list."""
    if statuses == ("open",):
        return (
            _("trutnet {command}: no open {game} table on the LAN; the only one plays {other}:")
            if one
            else _("trutnet {command}: no open {game} table on the LAN; tables of other games:")
        )
    if statuses == ("open", "playing"):
        return (
            _(
                "trutnet {command}: no open or playing {game} table on the LAN; "
                "the only one plays {other}:"
            )
            if one
            else _(
                "trutnet {command}: no open or playing {game} table on the LAN; "
                "tables of other games:"
            )
        )
    kinds = " or ".join(statuses)  # statuses no command asks for: said in English
    ending = "the only one plays {other}:" if one else "tables of other games:"
    return "trutnet {command}: no " + kinds + " {game} table on the LAN; " + ending


class NoLan(Exception):
    """The LAN cannot be searched (no usable interface, a bad --interface)."""


def _search_lan(args: argparse.Namespace, command: str) -> list[Any]:
    from trutnet.discovery.browse import live_tables

    try:
        return live_tables(args.timeout, args.interface or None)
    except OSError as exc:
        raise _no_lan(exc, args, command) from None


def _no_lan(exc: OSError, args: argparse.Namespace, command: str) -> NoLan:
    why = str(exc.strerror or exc)
    if args.interface:
        where = ", ".join(args.interface)
        why = _("{why} (is {where} an address of this machine?)").format(
            why=why.lower(), where=where
        )
    return NoLan(
        _("trutnet {command}: cannot search the LAN: {why}").format(command=command, why=why)
    )


def _watch_lan(args: argparse.Namespace) -> Any:
    """A search of the LAN that goes on (``tables --watch``); :class:`NoLan` when the
    LAN cannot be searched."""
    from trutnet.discovery.browse import LanSearch

    try:
        return LanSearch(args.interface or None)
    except OSError as exc:
        raise _no_lan(exc, args, "tables") from None


def cmd_tables(args: argparse.Namespace) -> int:
    try:
        return _list_tables(args)
    except NoLan as exc:
        print(exc, file=sys.stderr)
        return 1


def _list_tables(args: argparse.Namespace) -> int:
    """One search, or with ``--watch`` one after another: as text, each table in a few
    lines that fit 80 columns, printed again only when something changed; as JSON,
    every field of every table, one list per search."""
    from datetime import datetime

    shown: str | None = None
    search = _watch_lan(args) if args.watch else None
    try:
        while True:
            tables = (
                _search_lan(args, "tables") if search is None else search.live_tables(args.timeout)
            )
            if args.json:
                print(json.dumps([t.to_dict() for t in tables]), flush=True)
            else:
                text = "\n".join(_table_rows(tables)) if tables else _("no table found on the LAN")
                if text != shown:
                    if shown is not None:  # --watch: what changed, and when
                        now = f"{datetime.now():%H:%M:%S}"
                        print("\n" + _("-- {time}, the LAN now has:").format(time=now), flush=True)
                    print(text, flush=True)
                    shown = text
            if search is None:
                return 0
    finally:
        if search is not None:
            search.close()


def _table_rows(tables: list[Any]) -> list[str]:
    """Each table in three lines of at most 80 columns: its name and what it is, its
    host's key and broker, and the command that joins it (by name, or by table id
    when two tables have the same name). ``--json`` keeps every field whole."""
    names = [t.name for t in tables]
    rows = []
    for t in tables:
        if t.invite is not None:  # sealed: nothing of it is said but how to come in
            rows.append(_("invitation {number}   a sealed table").format(number=t.invite))
            rows.append(_("  at {broker}").format(broker=t.endpoint.url)[:80])
            join = _("  join: trutnet join {number}-WORD-WORD (the words its host tells you)")
            rows.append(join.format(number=t.invite)[:80])
            continue
        d = t.to_dict()
        first = f"{d['name']}   {_about_table(t)}"
        rows.append(first if len(first) <= 80 else first[:79] + "…")
        rows.append(_("  host {host} at {broker}").format(host=d["host"], broker=d["broker"])[:80])
        rows += wrap_command(join_command(t, by_id=names.count(t.name) > 1), _("  join: "))
    return rows


def wrap_command(command: str, lead: str, width: int = 80) -> list[str]:
    """A shell command in lines of at most ``width`` columns, each one but the last
    ending in `` \\`` so that it can be pasted as it is."""
    import shlex

    words, lines, line = shlex.split(command), [], lead
    for word in (shell_word(w) for w in words):
        if line.strip() and len(line) + len(word) + 3 > width:  # " " + word + " \\"
            lines.append(line + " \\")
            line = " " * len(lead) + "  "
        line += ("" if line.endswith(" ") else " ") + word
    return [*lines, line]
