"""``trutnet play``: host a table and play it on the terminal: the lobby (bots,
friends joining with the command it shows), then the game; a table that never
opened leaves no folder. The table's broker is this machine's own, or ``--broker``'s
(friends beyond the LAN; sealed with ``--invite``, that broker reads nothing).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from typing import Any

from trutnet.cli.arguments import Refused
from trutnet.cli.folders import data_dir, player_identity, resume_alone, store_error
from trutnet.cli.games import DEFAULT_GAME, ChoiceError, bot_of, describe, game_of
from trutnet.cli.host_command import bridge_of, unreachable
from trutnet.cli.lan_tables import shell_word
from trutnet.cli.on_screen import game_over, need_terminal, seat_screen
from trutnet.cli.passwords import password_for
from trutnet.cli.running import run_to_end, runtime_options
from trutnet.client.lobby_view import clock_rule_said
from trutnet.discovery.interfaces import lan_address, reachable
from trutnet.engine.api import Game
from trutnet.i18n import _
from trutnet.net.broker import BrokerError, EmbeddedBroker, Endpoint, ExternalBroker
from trutnet.protocol.lobby import default_table_name, table_id_for
from trutnet.runtime.seat_process import HostSetup, host

PLAY_BOT = "hard"  # the level of the bots ``play`` seats unless told


def cmd_play(args: argparse.Namespace) -> int:
    """Host a table with the terminal client: lobby, bots, then the game; and again,
    with the same seats, for as long as everyone asks for a rematch (r, 9.7)."""
    game = game_of(args)
    # a person plays against the strongest bot that decides fast enough (issue 21's
    # goals: the search bot, tens of milliseconds a decision)
    bot_kind = bot_of(game, args.bot or PLAY_BOT)
    if (problem := store_error("play", args.store)) is not None:
        raise Refused(problem, 2)
    if not 0 <= args.bots < game.num_players():
        raise ChoiceError(_("--bots is 0..{high}").format(high=game.num_players() - 1))
    try:
        args.rendezvous = bridge_of(args)  # one the table cannot take: refused at once
    except BrokerError as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command="play", problem=exc), 2
        ) from None
    need_terminal()  # the person's seat is on screen
    bind = args.bind or lan_address()
    if args.broker is not None:  # friends beyond the LAN: a broker all can reach
        args.announce = False
        broker, endpoint, password = _their_broker(args)
    else:
        broker, endpoint, password = _own_broker(args, bind)
    table: tuple[bytes, bytes | None] | None = (os.urandom(16), None)
    try:
        while table is not None:  # the table, then each rematch's (the same broker)
            table = _play_table(args, game, bot_kind, bind, (endpoint, password), table)
            if table is not None:
                print(_("trutnet play: rematch: the next table opens"), file=sys.stderr)
                args.store = None  # the next table's seat: a folder of its own
    finally:
        broker.stop()
    return 0


def _play_table(
    args: argparse.Namespace,
    game: Game,
    bot_kind: str,
    bind: str,
    broker: tuple[Endpoint, str | None],
    table: tuple[bytes, bytes | None],
) -> tuple[bytes, bytes | None] | None:
    """One table of ``trutnet play``, of id given by ``table``'s nonce (and, a sealed
    rematch's, sealed with its key); the next table's nonce and key when everyone asked
    for a rematch, else None."""
    from trutnet.client.playing import play_with_ui

    endpoint, password = broker
    nonce, next_key = table
    ui = seat_screen(game.name, table_name="", players=game.num_players(), about=_about(game))
    identity = player_identity()
    table_id = table_id_for(identity.public, nonce)
    store = args.store or data_dir() / "tables" / table_id.hex()
    created = not store.exists()
    ui.resume_alone = resume_alone(store)
    ui.rematch.host_url = endpoint.url
    transcript = data_dir() / "games" / f"{table_id.hex()}.json"
    table_name = args.table_name or default_table_name(args.name)
    announcer = None
    if args.announce:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(bind)
    on_announce = _on_announce(announcer, endpoint, ui.info, args.invite)
    where = None if args.announce else (endpoint, table_id)
    _lobby_says(ui, args, game, (table_name, table_id), where, password is not None, bind)
    try:
        result = run_to_end(
            play_with_ui(
                lambda hooks: host(
                    game,
                    [endpoint],
                    HostSetup(
                        name=args.name,
                        table_name=table_name,
                        bots=args.bots,
                        bot_kind=bot_kind,
                        host_bot=None,
                        store=store,
                        seed=args.seed,
                        options=runtime_options(args),
                        nonce=nonce,
                        identity=identity,
                        own_broker=args.broker is None,
                        password=password,
                        hints=args.hints,
                        invite=args.invite,
                        table_key=next_key,
                    ),
                    hooks=hooks,
                    on_announce=on_announce,
                ),
                ui,
                transcript,
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        # A table that never opened (the person left the lobby) leaves no folder.
        if created and not (store / "seat-0" / "log.bin").exists():
            shutil.rmtree(store, ignore_errors=True)
    if result is not None:
        game_over(result, ui, store / "seat-0")
    following = ui.rematch.to
    return (following, ui.rematch.next_key) if isinstance(following, bytes) else None


def _lobby_says(
    ui: Any,
    args: argparse.Namespace,
    game: Game,
    table: tuple[str, bytes],
    where: tuple[Endpoint, bytes] | None,
    private: bool,
    bind: str,
) -> None:
    """What the host's lobby says of the ``table`` (its name and id): whether it is
    private, its hints and clock, and how friends join (``where``: its broker and id,
    when it is not announced; through the rendezvous too, when it is bridged); first,
    when friends cannot reach its own broker, that they cannot."""
    table_name, table_id = table
    alone = []
    if args.broker is None and not reachable(bind):
        alone = [unreachable(bind, args.bind is not None, args.announce)]
    ui.table_name = table_name
    ui.info.private, ui.info.hints = private, args.hints
    ui.info.clock = clock_rule_said(args.clock)
    how = [] if args.invite else [_how_to_join(game, table_name, private, where)]
    if args.rendezvous is not None and not args.invite:  # a private table, bridged (9.10)
        far = _join_words(game, "", private, (args.rendezvous, table_id))
        how.append(_("Beyond this LAN: {command}").format(command=far))
    ui.info.join_how = [*alone, *how]  # a sealed table's: its code, once served
    ui.info.invitation_broker = args.broker  # the broker a code's friend must name
    ui.info.invitation_bridge = args.bridge  # and the rendezvous, for friends elsewhere


def _on_announce(
    announcer: Any, endpoint: Endpoint, info: Any, sealed: bool
) -> Callable[[dict[str, Any]], None]:
    """What the host does with each announcement: say it on the LAN; a sealed table
    says its invitation's number alone, once the lobby shows the code (9.9)."""

    def on_announce(message: dict[str, Any]) -> None:
        if announcer is not None and not sealed:
            announcer.update(message, endpoint)
        elif announcer is not None and info.invitation is not None:
            announcer.update_sealed(int(info.invitation.split("-")[0]), endpoint)

    return on_announce


def _their_broker(args: argparse.Namespace) -> tuple[ExternalBroker, Endpoint, str | None]:
    """The broker ``--broker`` names, once it answers, and a private table's password;
    :class:`Refused` in one line when it does not."""
    from trutnet.net.private import PasswordError
    from trutnet.runtime.lobby_watch import JoinError, probe_broker

    try:
        password = password_for(args, confirm=True)
        broker = ExternalBroker(args.broker)
        endpoint = broker.start()
        run_to_end(probe_broker(endpoint))
        return broker, endpoint, password
    except (BrokerError, PasswordError, JoinError) as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command="play", problem=exc)
        ) from None


def _own_broker(args: argparse.Namespace, bind: str) -> tuple[EmbeddedBroker, Endpoint, str | None]:
    """The table's embedded broker at ``bind``, with a private table's password (typed
    twice); :class:`Refused` (exit status 2) when it cannot start."""
    from trutnet.net.private import PasswordError

    try:
        password = password_for(args, confirm=True)
        broker = EmbeddedBroker(bind, args.port, bridge=args.rendezvous)
        return broker, broker.start(), password
    except (BrokerError, PasswordError) as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command="play", problem=exc), 2
        ) from None


def _how_to_join(
    game: Game, table_name: str, private: bool, where: tuple[Endpoint, bytes] | None
) -> str:
    """The host's lobby line that tells friends how to join: the command, by the
    table's name when it is announced on the LAN, else (``where``) by its broker and
    table id."""
    how = _join_words(game, table_name, private, where)
    if where is None:
        return _("Friends join with: {command}").format(command=how)
    return _("Not announced on the LAN; friends join with: {command}").format(command=how)


def _join_words(
    game: Game, table_name: str, private: bool, where: tuple[Endpoint, bytes] | None
) -> str:
    """The command that joins the table: by its name, or (``where``) by its broker and
    id."""
    words = ["trutnet", "join", shell_word(table_name) if where is None else ""]
    words += ["--game", game.name] if game.name != DEFAULT_GAME else []
    if where is not None:
        words += ["--broker", where[0].url, "--table", where[1].hex()]
    words += ["--private"] if private else []
    return " ".join(w for w in words if w)


def _about(game: Game) -> str:
    """The lobby's line about the table's game: ``Trut (classic), 4 players``."""
    from trutnet.client.lobby_view import game_summary
    from trutnet.protocol.lobby import announced_variant

    return game_summary(describe(game)[0], announced_variant(game), game.num_players())
