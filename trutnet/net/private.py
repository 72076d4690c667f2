"""Private tables: where the table password comes from, and whether a broker takes it.

A private table's embedded broker accepts only MQTT user :data:`TABLE_USER` with the
table password (``broker.py``); the host gives the password to its friends out of
band. The password never goes on the command line (shell history, process listings):
it is read from ``$TRUTNET_TABLE_PASSWORD`` or asked on the terminal, and it is
never printed, logged, announced or saved in a seat's files.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import sys

import aiomqtt
from aiomqtt.exceptions import MqttConnectError

from trutnet.i18n import N_, _
from trutnet.net.broker import TABLE_USER, Endpoint

PASSWORD_ENV = "TRUTNET_TABLE_PASSWORD"
HOW = f"join --private, or set {PASSWORD_ENV}"
# CONNACK codes that mean "not you": MQTT 3.1.1 (4, 5) and MQTT 5 (134, 135).
_REFUSED = {4, 5, 134, 135}


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
    if len(password.encode()) > 65535:  # an MQTT password field's limit
        raise PasswordError(_("the table password is too long"))
    return password


def credentials(password: str | None) -> dict[str, str | None]:
    """aiomqtt's ``username``/``password`` for a table (none for an open one)."""
    return {"username": TABLE_USER if password else None, "password": password or None}


def refusal(exc: BaseException) -> bool:
    """Whether ``exc`` is a broker turning down our user or password."""
    if not isinstance(exc, MqttConnectError):
        return False
    code = getattr(exc, "rc", None)
    value = getattr(code, "value", code)
    return isinstance(value, int) and value in _REFUSED


def refused_message(endpoint: Endpoint, password: str | None, command: str = "join") -> str:
    """Why the broker turned us down, and (``command``: ``join``, ``watch``) what to do."""
    if password is None:
        return _(
            "the table at {url} is private: it needs the table password"
            " ({command} --private, or set {variable})"
        ).format(url=endpoint.url, command=command, variable=PASSWORD_ENV)
    return _("the table at {url} refused the password: wrong table password").format(
        url=endpoint.url
    )


async def check_access(
    endpoint: Endpoint, password: str | None, timeout: float = 5.0
) -> str | None:
    """One connection to ``endpoint``: a clear line if the broker refuses our password
    (or our lack of one), else None (also when it cannot be reached: that is for the
    caller's connection to report)."""
    from trutnet.net.mqtt_link import mqtt_client  # it imports this module

    try:
        async with asyncio.timeout(timeout + 1):
            async with mqtt_client(
                endpoint,
                timeout=timeout,
                **credentials(password),
            ):
                return None
    except (aiomqtt.MqttError, OSError, TimeoutError) as exc:
        return refused_message(endpoint, password) if refusal(exc) else None
