"""A private table's password: typed twice by its host, asked again when a joiner
types it wrong (at most :data:`PASSWORD_TRIES` times), read from
``$TRUTNET_TABLE_PASSWORD`` when not on a terminal; never printed.
"""

from __future__ import annotations

import argparse
import os
import sys

from trutnet.cli.arguments import Refused
from trutnet.cli.running import run_to_end
from trutnet.i18n import _, ngettext
from trutnet.net.broker import Endpoint
from trutnet.runtime.lobby_watch import JoinError

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


def password_to_enter(
    args: argparse.Namespace, endpoint: Endpoint, private: bool, command: str
) -> str | None:
    """The password that lets ``command`` in at the table on ``endpoint`` (``private``:
    found private on the LAN), asked as :func:`password_for` and checked by
    :func:`let_in`; :class:`Refused` in one line when there is none to be had."""
    from trutnet.net.private import PasswordError

    try:
        password = password_for(args, needed=private)
    except PasswordError as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command=command, problem=exc), 2
        ) from None
    try:
        if password is not None:  # without one, the broker's probe says what to do
            password = let_in(endpoint, password)
    except (JoinError, PasswordError) as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command=command, problem=exc)
        ) from None
    return password


def password_typed() -> bool:
    """Whether a table password is asked on the terminal (rather than read from
    ``$TRUTNET_TABLE_PASSWORD``, or not to be had)."""
    from trutnet.net.private import PASSWORD_ENV

    return os.environ.get(PASSWORD_ENV) is None and sys.stdin.isatty()


def let_in(endpoint: Endpoint, password: str | None) -> str | None:
    """The password the table's broker takes: ``password`` if it does; when it does
    not and the password is typed on a terminal, the person is told and asked again
    (at most :data:`PASSWORD_TRIES` times), or asked for it when it was not given (a
    seat resumed at a private table: the command printed for it has no --private).
    :class:`JoinError` saying why otherwise; the password itself is never printed."""
    from trutnet.net.private import check_access, table_password

    for tries in range(1, PASSWORD_TRIES + 1):
        why = run_to_end(check_access(endpoint, password))
        if why is None:
            return password
        if not password_typed():
            break
        if tries == PASSWORD_TRIES:
            why += ngettext(" ({count} try)", " ({count} tries)", PASSWORD_TRIES).format(
                count=PASSWORD_TRIES
            )
            break
        if password is None:
            print(_("This table is private: type its password."), file=sys.stderr)
        else:
            print(_("Wrong table password; type it again."), file=sys.stderr)
        password = table_password()
    raise JoinError(why)
