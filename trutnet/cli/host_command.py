"""``trutnet host``: a table without a screen (bots in empty seats), on the embedded
broker or ``--broker``, its events one line each (``--json``: JSON).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from trutnet.bots import default_bot
from trutnet.cli.folders import store_error
from trutnet.cli.games import ChoiceError, bot_of, game_of
from trutnet.cli.passwords import password_for
from trutnet.cli.running import finish, printer, run_to_end, runtime_options
from trutnet.discovery.interfaces import lan_address, reachable
from trutnet.i18n import _
from trutnet.net.broker import BrokerError, EmbeddedBroker, Endpoint, ExternalBroker
from trutnet.runtime.lobby_watch import JoinError, probe_broker
from trutnet.runtime.seat_process import HostSetup, host


def _broker_event(
    broker: EmbeddedBroker | ExternalBroker, endpoint: Endpoint, private: bool
) -> dict[str, Any]:
    kind = broker.kind if isinstance(broker, EmbeddedBroker) else "external"
    bridge = broker.bridge if isinstance(broker, EmbeddedBroker) else None
    return {
        "broker": endpoint.url,
        "kind": kind,
        "private": private,
        "bridge": bridge.address if bridge is not None else None,
    }


def bridge_of(args: argparse.Namespace) -> Endpoint | None:
    """The rendezvous ``--bridge`` names, once it answers, or None (and
    :class:`ChoiceError` for a table both private and invited); :class:`BrokerError`
    in one line for a bridge that would carry an open table (the rendezvous would read
    it), one beside ``--broker`` (the table is on that broker already), a URL a bridge
    cannot take, or a rendezvous nobody reaches (friends elsewhere would be given a
    command that cannot work)."""
    from trutnet.net.broker import bridge_endpoint

    if args.private and args.invite:
        raise ChoiceError(
            _("--private and --invite do not go together: friends come in by a password or a code")
        )
    if args.bridge is None:
        return None
    if not (args.invite or args.private):
        raise BrokerError(
            _(
                "--bridge carries only a sealed or private table, which the rendezvous"
                " cannot read: add --invite or --private"
            )
        )
    if args.broker:
        raise BrokerError(
            _("--bridge is for this machine's own broker; with --broker the table is there already")
        )
    rendezvous = bridge_endpoint(args.bridge)
    try:
        run_to_end(probe_broker(rendezvous))
    except JoinError as exc:
        raise BrokerError(f"--bridge: {exc}") from None
    return rendezvous


def cmd_host(args: argparse.Namespace) -> int:
    from trutnet.net.private import PasswordError

    game = game_of(args)
    bot_kind = default_bot(game.name)  # the bots seated in empty seats: the game's best
    host_bot = bot_of(game, args.bot)
    if not 0 <= args.bots < game.num_players():
        raise ChoiceError(_("--bots is 0..{high}").format(high=game.num_players() - 1))
    if (problem := store_error("host", args.store)) is not None:
        print(problem, file=sys.stderr)
        return 2
    given_bind = args.bind is not None
    args.bind = args.bind or lan_address()
    if args.inprocess_broker:
        args.broker, args.announce = f"mqtt://{args.bind}:{args.port}", False
    if not args.broker and not reachable(args.bind):  # friends cannot reach it: say so
        why = unreachable(args.bind, given_bind, args.announce)
        print(
            _("trutnet {command}: {problem}").format(command="host", problem=why), file=sys.stderr
        )
    try:
        bridge = bridge_of(args)  # one the table cannot take: refused before anything starts
        password = password_for(args, confirm=True)
        broker = (
            ExternalBroker(args.broker)
            if args.broker
            else EmbeddedBroker(args.bind, args.port, bridge=bridge)
        )
        endpoint = broker.start()
        if args.broker and not args.inprocess_broker:
            run_to_end(probe_broker(endpoint))
    except (BrokerError, PasswordError, JoinError) as exc:
        print(
            _("trutnet {command}: {problem}").format(command="host", problem=exc), file=sys.stderr
        )
        return 2 if isinstance(exc, BrokerError) else 1
    announcer = None
    if args.announce and not args.broker:
        from trutnet.discovery.announce import TableAnnouncer

        announcer = TableAnnouncer(args.bind)
    emit, on_announce = _printed(args, announcer, broker, endpoint, password is not None)
    try:
        result = run_to_end(
            host(
                game,
                [endpoint],
                HostSetup(
                    name=args.name,
                    table_name=args.table_name,
                    bots=args.bots,
                    bot_kind=bot_kind,
                    host_bot=host_bot,
                    store=args.store,
                    seed=args.seed,
                    options=runtime_options(args),
                    inprocess_broker=args.inprocess_broker,
                    own_broker=isinstance(broker, EmbeddedBroker),
                    password=password,
                    hints=args.hints,
                    invite=args.invite,
                ),
                on_event=emit,
                on_announce=on_announce,
            )
        )
    finally:
        if announcer is not None:
            announcer.close()
        broker.stop()
    return finish(result, args.json)


def _printed(
    args: argparse.Namespace,
    announcer: Any,
    broker: EmbeddedBroker | ExternalBroker,
    endpoint: Endpoint,
    private: bool,
) -> tuple[Callable[[str, dict[str, Any]], None], Callable[[dict[str, Any]], None]]:
    """The host's event printer and what it does with each announcement: print it (and,
    once, which broker serves the table) and announce it on the LAN; a sealed table is
    announced by its invitation's number alone (9.9)."""
    printed, said = printer(args.json, "host"), []

    def emit(kind: str, data: dict[str, Any]) -> None:
        printed(kind, data)
        if kind == "invitation" and announcer is not None:
            announcer.update_sealed(int(data["code"].split("-")[0]), endpoint)

    def on_announce(message: dict[str, Any]) -> None:
        emit("table", message)
        if not said:  # which broker serves the table, once, after the first line
            said.append(True)
            emit("broker", _broker_event(broker, endpoint, private))
        if announcer is not None and not args.invite:
            announcer.update(message, endpoint)

    return emit, on_announce


def unreachable(bind: str, given: bool, announce: bool) -> str:
    """One line: the table's broker is bound where only this machine reaches it (and
    its announcement, made on that address alone, is seen by this machine alone)."""
    why = (
        "--bind " + bind
        if given
        else _("this machine has no LAN interface up, only {address}").format(address=bind)
    )
    if announce:
        said = _(
            "only this machine can reach the table ({why}); it is announced to this machine only"
        )
    else:
        said = _("only this machine can reach the table ({why})")
    return said.format(why=why)
