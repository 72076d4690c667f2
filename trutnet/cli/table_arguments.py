"""The arguments of the commands that sit at a table (``host``, ``play``, ``join``,
``watch``, ``tables``, ``games``): each checked by its argparse type, so a bad one
gets one clear line and exit status 2 before anything starts.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
from pathlib import Path
from typing import Any

from trutnet.cli.arguments import bounded, whole
from trutnet.cli.folders import person_name
from trutnet.cli.games import game_argument, game_options
from trutnet.cli.running import HelpFormatter
from trutnet.i18n import N_, _
from trutnet.net.broker import BrokerError, parse_broker_url
from trutnet.protocol.clock import ClockError, ClockRule
from trutnet.protocol.lobby import MAX_NAME, LobbyError, check_fallback, check_name
from trutnet.runtime.lobby_watch import LOBBY_TIMEOUT

seconds_arg = bounded(
    float,  # a duration: a finite number of seconds above zero (refuses nan and inf)
    N_("a number of seconds"),
    lambda seconds: 0 < seconds < 10**7,
    N_("must be above 0 and finite, not {text}"),
)


def table_id_arg(text: str) -> str:
    """A table id: 32 hex digits (16 bytes), as ``trutnet tables`` prints it."""
    if not re.fullmatch(r"[0-9a-fA-F]{32}", text.strip()):
        raise argparse.ArgumentTypeError(
            _("a table id is 32 hex digits (as `trutnet tables` prints it), not {text}").format(
                text=repr(text)
            )
        )
    return text.strip().lower()


def broker_arg(text: str) -> str:
    """A broker URL, ``mqtt://host:port`` (or ``mqtts://host:port``, over TLS)."""
    try:
        parse_broker_url(text)
    except BrokerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def fallback_arg(text: str) -> str:
    """A seat's fallback broker, ``mqtt://address:port`` (docs/protocol.md 9.3)."""
    try:
        return check_fallback(text)
    except LobbyError:
        said = _("a fallback broker is mqtt://host:port (at most 64 characters), not {text}")
        raise argparse.ArgumentTypeError(said.format(text=repr(text[:70]))) from None


def name_arg(text: str) -> str:
    """A player's name: what the lobby accepts."""
    try:
        return check_name(text)
    except LobbyError:
        said = _("a name is 1..{most} printable characters, not {text}")
        raise argparse.ArgumentTypeError(said.format(most=MAX_NAME, text=repr(text[:40]))) from None


def table_name_arg(text: str) -> str:
    """A table's name on the LAN: up to 40 printable characters (empty: NAME-table)."""
    if len(text) > 40 or not text.isprintable():
        raise argparse.ArgumentTypeError(
            _("a table name is up to 40 printable characters: {text}").format(text=repr(text))
        )
    return text


count_arg = whole(0, 5)  # a count of seats


port_arg = bounded(  # a TCP port (0: any free port)
    int, N_("a port number"), lambda port: 0 <= port <= 65535, N_("a port is 0..65535, not {value}")
)


def ipv4_arg(text: str) -> str:
    """An IPv4 address of this machine (discovery and brokers are IPv4)."""
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("an IPv4 address like 192.168.1.20, not {text}").format(text=repr(text))
        ) from None


def folder_arg(text: str) -> Path:
    """A folder: one that exists, or one that can be made (not a file)."""
    path = Path(text).expanduser()
    if not text or (path.exists() and not path.is_dir()):
        raise argparse.ArgumentTypeError(_("not a folder: {text}").format(text=repr(text)))
    return path


def seed_arg(text: str) -> str:
    """A test seed: up to 200 printable characters."""
    if not 1 <= len(text) <= 200 or not text.isprintable():
        raise argparse.ArgumentTypeError(_("a seed is 1..200 printable characters"))
    return text


CLOCK_ERRORS = {
    "form": N_("a clock is SECONDS for each decision, or BANK+INC for a chess clock (30, 300+5)"),
    "per_move": N_("a decision's clock is {low}..{high} seconds"),
    "bank": N_("a chess clock's bank is {low}..{high} seconds"),
    "increment": N_("a chess clock's increment is {low}..{high} seconds"),
}


def clock_arg(text: str) -> ClockRule:
    """``--clock``: a rule :meth:`ClockRule.parse` reads, or what it may be in the
    person's language."""
    try:
        return ClockRule.parse(text)
    except ClockError as exc:
        said = _(CLOCK_ERRORS[exc.what]).format(low=exc.bounds[0], high=exc.bounds[1])
        if exc.what == "form":
            said = _("{said}, not {text}").format(said=said, text=repr(text[:20]))
        raise argparse.ArgumentTypeError(said) from None


def _timing_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--stall-timeout",
        type=seconds_arg,
        default=30.0,
        help=_("report a seat the table waits for longer than this (s)"),
    )
    p.add_argument(
        "--void-timeout",
        type=seconds_arg,
        default=120.0,
        help=_(
            "after this long waiting for a seat (s), vote: for a newcomer's offer to take "
            "it (a partner's seat) or to abandon the game (docs/protocol.md 7.7)"
        ),
    )
    p.add_argument(
        "--accept-taker",
        action="append",
        default=[],
        metavar="FINGERPRINT|any",
        help=_(
            "when your partner stalls, vote to give the seat to this newcomer (its key "
            "fingerprint; repeatable), or to any newcomer: an opponent could be one. "
            "Default: nobody (the game is abandoned)"
        ),
    )
    p.add_argument(
        "--give-up-after",
        type=seconds_arg,
        default=900.0,
        help=_("stop after this many seconds without any progress"),
    )
    p.add_argument(
        "--bot-on-timeout",
        action="store_true",
        help=_(
            "at a table with a clock, let a bot decide for you when your time runs out "
            "(else the others may replace you or abandon the game, docs/protocol.md 7.11)"
        ),
    )
    p.add_argument(
        "--linger",
        type=seconds_arg,
        default=30.0,
        help=_(
            "after the game, stay at most this long answering peers that are still catching up (s)"
        ),
    )


def _table_options(p: argparse.ArgumentParser, players: int, name: str) -> None:
    """The table a host opens: its game, the game's options, names, bots."""
    game_argument(p)
    game_options(p, players)
    p.add_argument(
        "--name",
        type=name_arg,
        default=name,
        help=_("your name at the table (the table adds (2)... to a name it already has)"),
    )
    p.add_argument(
        "--table-name",
        type=table_name_arg,
        default="",
        help=_("the table's name on the LAN (default: NAME-table)"),
    )
    p.add_argument(
        "--bots",
        type=count_arg,
        default=0,
        help=_("seat K bots at once; the game starts when every seat is taken"),
    )
    p.add_argument("--port", type=port_arg, default=0, help=_("embedded broker port (0: any)"))
    _private_option(
        p, N_("a private table: sealed, and opened only to those who give its password")
    )
    p.add_argument(
        "--invite",
        action="store_true",
        help=_(
            "a sealed table: every message encrypted with a key of its own, given to "
            "those who type the invitation code printed (trutnet join CODE); the broker "
            "reads nothing (docs/protocol.md 9.9)"
        ),
    )
    p.add_argument(
        "--bridge",
        metavar="URL",
        help=_(
            "with --invite: bridge the sealed table from this machine's broker to a "
            "rendezvous broker, mqtt://host:port (mqtts://: TLS): friends on the LAN "
            "join here, friends elsewhere through the rendezvous (Mosquitto only)"
        ),
    )
    p.add_argument(
        "--no-announce",
        dest="announce",
        action="store_false",
        help=_("do not announce the table with zeroconf"),
    )
    p.add_argument(
        "--clock",
        type=clock_arg,
        metavar="SECONDS|BANK+INC",
        help=_(
            "a turn clock, shown to everyone: SECONDS for each decision (30), or a chess "
            "clock, BANK seconds each and INC more after each decision (300+5); a seat whose "
            "time runs out is reported as stalled (docs/protocol.md 7.11)"
        ),
    )
    p.add_argument(
        "--no-hints",
        dest="hints",
        action="store_false",
        help=_(
            "ask the players not to use the search bot's hints (said in the lobby; "
            "their screens then offer none)"
        ),
    )


def _private_option(p: argparse.ArgumentParser, what: str) -> None:
    """``--private``; ``what``: what it means, in English (marked with ``N_``)."""
    p.add_argument(
        "--private",
        action="store_true",
        help=_(
            "{what}; the password is read from $TRUTNET_TABLE_PASSWORD, else asked on "
            "the terminal (never on the command line)"
        ).format(what=_(what)),
    )


def _table_target(p: argparse.ArgumentParser) -> None:
    """The table ``join`` or ``watch`` takes: by its name on the LAN, or by its broker
    and table id."""
    p.add_argument(
        "table_name",
        nargs="?",
        help=_("name of a table found on the LAN, or an invitation code (7-purple-sausage)"),
    )
    p.add_argument(
        "--broker", type=broker_arg, help=_("mqtt://host:port, or mqtts://host:port (TLS)")
    )
    p.add_argument("--table", type=table_id_arg, help=_("table id (32 hex digits)"))


def _lan_search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timeout", type=seconds_arg, default=2.0, help=_("LAN search time (s)"))
    p.add_argument(
        "--interface",
        action="append",
        type=ipv4_arg,
        metavar="IP",
        help=_("search only on this interface address (repeatable; default: all)"),
    )


def _network_options(p: argparse.ArgumentParser, hosting: bool) -> None:
    p.add_argument(
        "--store", type=folder_arg, help=_("keep this seat's keys, log and secrets here")
    )
    p.add_argument(
        "--seed", type=seed_arg, help=_("deterministic keys and randomness (testing only)")
    )
    _timing_options(p)
    p.add_argument("--json", action="store_true", help=_("one JSON object per line"))
    # measurement only (trutnet bench network): every entry's stamps in the result
    p.add_argument("--stamp-entries", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--bot",
        metavar="KIND",
        help=_(
            "a bot plays this seat (without it, you play on the screen): a kind the "
            "game has (Trut: heuristic; every game: random)"
        )
        if not hosting
        else _(
            "the bot that plays the host's seat (default: the game's best; Trut: "
            "heuristic; every game: random)"
        ),
    )


def add_network_commands(sub: Any, seed_type: Any) -> None:
    """The parsers of ``host``, ``play``, ``tables``, ``games``, ``join`` and ``watch``."""
    for add in (
        _host_parser,
        _play_parser,
        _tables_parser,
        _games_parser,
        _join_parser,
        _watch_parser,
    ):
        add(sub)


def _host_parser(sub: Any) -> None:
    hp = sub.add_parser(
        "host",
        help=_("host a table without a UI (bots fill empty seats)"),
        formatter_class=HelpFormatter,
    )
    _table_options(hp, 4, person_name())
    hp.add_argument(
        "--broker",
        type=broker_arg,
        help=_("use an external broker mqtt://host:port (mqtts://: TLS)"),
    )
    hp.add_argument(
        "--bind",
        type=ipv4_arg,
        help=_(
            "embedded broker address (default: this machine's LAN address; "
            "127.0.0.1: this machine only)"
        ),
    )
    hp.add_argument("--inprocess-broker", action="store_true", help=argparse.SUPPRESS)
    _network_options(hp, hosting=True)


def _play_parser(sub: Any) -> None:
    pp = sub.add_parser(
        "play", help=_("host a table and play it on the terminal"), formatter_class=HelpFormatter
    )
    _table_options(pp, 2, person_name())
    pp.add_argument(
        "--bind",
        type=ipv4_arg,
        help=_(
            "broker address (default: this machine's LAN address; 127.0.0.1: this machine only)"
        ),
    )
    pp.add_argument(
        "--broker",
        type=broker_arg,
        help=_(
            "play on this broker, mqtt://host:port (mqtts://: TLS), not this machine's own: "
            "friends beyond the LAN reach it (with --invite it reads nothing of the table)"
        ),
    )
    pp.add_argument("--store", type=folder_arg, help=_("this seat's keys, log and secrets"))
    pp.add_argument("--seed", type=seed_arg, help=argparse.SUPPRESS)
    pp.add_argument(
        "--bot",
        metavar="KIND",
        help=_(
            "the bots seated (--bots, b in the lobby): a kind the game has, or a level: "
            "easy (random), normal (the game's own best), hard (search; the default)"
        ),
    )
    _timing_options(pp)


def _tables_parser(sub: Any) -> None:
    tp = sub.add_parser(
        "tables", help=_("list the tables open on the LAN"), formatter_class=HelpFormatter
    )
    _lan_search_options(tp)
    tp.add_argument("--watch", action="store_true", help=_("keep listing as tables change"))
    tp.add_argument("--json", action="store_true", help=_("one JSON list per search"))


def _games_parser(sub: Any) -> None:
    gp = sub.add_parser(
        "games",
        help=_("the seats you left mid-game (with the command to come back) and the saved games"),
        formatter_class=HelpFormatter,
    )
    del gp  # no option


def _join_parser(sub: Any) -> None:
    jp = sub.add_parser(
        "join",
        help=_("join a table (found on the LAN, or --broker/--table)"),
        formatter_class=HelpFormatter,
    )
    game_argument(jp, N_("the game this seat plays (a table of another is refused)"))
    _table_target(jp)
    jp.add_argument(
        "--name",
        type=name_arg,
        default=person_name(),
        help=_("your name at the table (the table adds (2)... to a name it already has)"),
    )
    jp.add_argument(
        "--fallback",
        type=fallback_arg,
        metavar="URL",
        help=_(
            "mqtt://address:port where this seat hosts the table if its broker "
            "is lost (docs/protocol.md 9.3)"
        ),
    )
    jp.add_argument("--resume", action="store_true", help=_("come back from --store after a crash"))
    _private_option(jp, N_("the table is private (asked anyway for one found private on the LAN)"))
    jp.add_argument(
        "--lobby-timeout",
        type=seconds_arg,
        default=LOBBY_TIMEOUT,
        help=_(
            "give up when no host has been at the table for this long, or when the "
            "table has been playing without this seat for this long (s)"
        ),
    )
    _lan_search_options(jp)
    _network_options(jp, hosting=False)


def _watch_parser(sub: Any) -> None:
    wp = sub.add_parser(
        "watch",
        help=_("follow a table as a spectator (found on the LAN, or --broker/--table)"),
        formatter_class=HelpFormatter,
    )
    _table_target(wp)
    wp.add_argument(
        "--name",
        type=name_arg,
        default=person_name(),
        help=_("your name in the players' list of spectators"),
    )
    _private_option(wp, N_("the table is private (asked anyway for one found private on the LAN)"))
    wp.add_argument(
        "--lobby-timeout",
        type=seconds_arg,
        default=LOBBY_TIMEOUT,
        help=_("give up when no host has been at the table for this long (s)"),
    )
    wp.add_argument(
        "--stall-timeout",
        type=seconds_arg,
        default=30.0,
        help=_("say so when the table waits for a seat longer than this (s)"),
    )
    wp.add_argument(
        "--give-up-after",
        type=seconds_arg,
        default=900.0,
        help=_("stop after this many seconds without any progress"),
    )
    _lan_search_options(wp)
    wp.add_argument("--json", action="store_true", help=_("one JSON object per event, no screen"))
