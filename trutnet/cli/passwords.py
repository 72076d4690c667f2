"""Passwords on the command line, never printed. A private table's: typed twice by its
host, traded by a joiner or a spectator for the table's key at the table's host
(docs/protocol.md 9.10), asked again when typed wrong (at most :data:`PASSWORD_TRIES`
times), read from ``$TRUTNET_TABLE_PASSWORD`` when not on a terminal. A broker's, for
a ``--broker`` or ``--bridge`` given with a user (``mqtt://USER@host:port``): read
from ``$TRUTNET_BROKER_PASSWORD``, else asked once on the terminal.
"""

from __future__ import annotations

import argparse
import os
import sys

import aiomqtt

from trutnet.cli.arguments import Refused
from trutnet.cli.running import run_to_end
from trutnet.i18n import _, ngettext
from trutnet.net.broker import Endpoint

PASSWORD_TRIES = 3  # a password typed wrong (or two that differ) is asked again, this often


def password_for(
    args: argparse.Namespace, needed: bool = False, confirm: bool = False
) -> str | None:
    """The table password with ``--private`` (or ``needed``: a private table was
    picked), from the environment or the terminal; None for an open table.
    ``confirm`` (the host's): typed on a terminal, it is typed twice, and asked again
    when the two differ. :class:`PasswordError` if there is none to be had."""
    from trutnet.net.private import PasswordError, table_password

    if not (getattr(args, "private", False) or needed):
        return None
    if not (confirm and password_typed()):
        return table_password()
    for _attempt in range(PASSWORD_TRIES):
        password = table_password()
        if table_password(_("Table password again: ")) == password:
            return password
        print(_("The two passwords differ; type it again."), file=sys.stderr)
    raise PasswordError(
        ngettext(
            "the two passwords differed {count} time",
            "the two passwords differed {count} times",
            PASSWORD_TRIES,
        ).format(count=PASSWORD_TRIES)
    )


def password_typed() -> bool:
    """Whether a table password is asked on the terminal (rather than read from
    ``$TRUTNET_TABLE_PASSWORD``, or not to be had)."""
    from trutnet.net.private import PASSWORD_ENV

    return os.environ.get(PASSWORD_ENV) is None and sys.stdin.isatty()


def enter_private(
    args: argparse.Namespace,
    endpoint: Endpoint,
    table_id: bytes,
    private: bool,
    command: str,
    watch: bool = False,
) -> None:
    """At a private table (``--private``, ``private``: found private on the LAN, or a
    table whose place is claimed at ``endpoint``), the password traded for the table's
    key (``watch``: as a spectator): ``args.table_key`` and ``args.password`` (kept for
    a rematch) are set. Nothing for an open table. :class:`Refused` in one line when
    there is no password, a wrong one (typed: asked again, :data:`PASSWORD_TRIES` times
    at most), or no host answers."""
    from trutnet.discovery.browse import place_claimed
    from trutnet.net.private import PASSWORD_ENV, PasswordError

    def refused(problem: object, status: int = 1) -> Refused:
        return Refused(
            _("trutnet {command}: {problem}").format(command=command, problem=problem), status
        )

    args.password = None
    if not (private or getattr(args, "private", False)):
        if args.broker is None or not run_to_end(place_claimed(endpoint, table_id.hex())):
            return  # an open table
        if password_typed():
            print(_("This table is private: type its password."), file=sys.stderr)
        elif os.environ.get(PASSWORD_ENV) is None:  # no terminal to ask on
            raise refused(
                _(
                    "the table at {url} is private: it needs the table password"
                    " ({command} --private, or set {variable})"
                ).format(url=endpoint.url, command=command, variable=PASSWORD_ENV),
            )
    try:
        args.password = password_for(args, needed=True)
        args.table_key = let_in(endpoint, table_id, args.password, watch)
    except PasswordError as exc:
        raise refused(exc, 2) from None
    except PasswordRefused as exc:
        raise refused(exc) from None


class PasswordRefused(Exception):
    """A password the table's host did not take, or no host to ask, in one line."""


def let_in(endpoint: Endpoint, table_id: bytes, password: str | None, watch: bool) -> bytes:
    """The key of the private table ``table_id`` at ``endpoint``, for ``password``;
    typed on a terminal and wrong, the person is told and asked again (at most
    :data:`PASSWORD_TRIES` times). :class:`PasswordRefused` saying why otherwise; the password
    itself is never printed. Every try is one guess the host counts (9.10)."""
    from trutnet.cli.invitations import unreachable_said
    from trutnet.net.private import table_password
    from trutnet.protocol.invitation import InvitationError, TablePassword
    from trutnet.runtime.invitations import Welcome, accept_invitation

    assert password is not None
    for tries in range(1, PASSWORD_TRIES + 1):
        try:
            secret = TablePassword(table_id, password)
            welcome = Welcome.read(run_to_end(accept_invitation(endpoint, secret, watch=watch)))
        except (OSError, aiomqtt.MqttError) as exc:
            raise PasswordRefused(unreachable_said(endpoint, exc)) from None
        except InvitationError as exc:
            if exc.reason != "wrong" or not password_typed():
                raise PasswordRefused(str(exc)) from None
            if tries == PASSWORD_TRIES:
                raise PasswordRefused(
                    str(exc)
                    + ngettext(" ({count} try)", " ({count} tries)", PASSWORD_TRIES).format(
                        count=PASSWORD_TRIES
                    )
                ) from None
            print(_("Wrong table password; type it again."), file=sys.stderr)
            password = table_password()
            continue
        if welcome.table != table_id:  # a host that knows the password: a broken one
            raise PasswordRefused(_("the host's welcome names another table"))
        return welcome.key
    raise AssertionError("unreachable")


def ask_broker_password(args: argparse.Namespace) -> None:
    """For a ``--broker`` or ``--bridge`` given with a user and no
    ``$TRUTNET_BROKER_PASSWORD``: the password, asked once on the terminal (not
    echoed) and kept in this process's environment, where every connection to that
    broker reads it. Without a terminal, nothing: the broker's refusal says what to
    set."""
    import getpass

    from trutnet.net.broker import BROKER_PASSWORD_ENV, BrokerError, parse_broker_url

    if os.environ.get(BROKER_PASSWORD_ENV) is not None or not sys.stdin.isatty():
        return
    for url in (getattr(args, "broker", None), getattr(args, "bridge", None)):
        try:
            endpoint = parse_broker_url(url) if url else None
        except BrokerError:
            continue  # said by the command
        if endpoint is not None and endpoint.user is not None:
            prompt = _("Password of {user} at the broker {host}: ")
            try:
                typed = getpass.getpass(prompt.format(user=endpoint.user, host=endpoint.host))
            except (EOFError, KeyboardInterrupt):
                said = _("trutnet {command}: no broker password given")
                raise Refused(said.format(command=args.command), 2) from None
            os.environ[BROKER_PASSWORD_ENV] = typed
            return
