"""Private tables: where the table password comes from, and what a broker's refusal
means.

A private table is a sealed table (docs/protocol.md 9.9, 9.10) whose key its host hands
to whoever proves the table password in a password-authenticated exchange: the
password never crosses the network, and the broker lets anyone in but reads nothing.
The host gives the password to its friends out of band. It never goes on the command
line (shell history, process listings): it is read from ``$TRUTNET_TABLE_PASSWORD`` or
asked on the terminal, and it is never printed, logged, announced or saved in a seat's
files (a seat keeps the table's key instead).
"""

from __future__ import annotations

import getpass
import os
import sys

from trutnet.i18n import N_, _

PASSWORD_ENV = "TRUTNET_TABLE_PASSWORD"
MAX_PASSWORD = 1024  # bytes: a password is typed, not pasted from a file


class PasswordError(Exception):
    """No table password where one is needed, said in one line."""


def table_password(prompt: str = N_("Table password: ")) -> str:
    """The table password: ``$TRUTNET_TABLE_PASSWORD``, else asked on the terminal
    (not echoed); :class:`PasswordError` without either."""
    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        if not sys.stdin.isatty():
            raise PasswordError(
                _(
                    "a private table needs its password: set {variable} (no terminal to ask on)"
                ).format(variable=PASSWORD_ENV)
            )
        try:
            password = getpass.getpass(_(prompt))
        except (EOFError, KeyboardInterrupt):
            raise PasswordError(_("no table password given")) from None
    if not password:
        raise PasswordError(_("the table password is empty"))
    if len(password.encode()) > MAX_PASSWORD:
        raise PasswordError(_("the table password is too long"))
    return password
