"""Invitation codes on the command line: ``trutnet join 7-purple-sausage`` finds the
sealed table's broker (``--broker``, else the LAN by the code's number), trades the
code for the table's id and key (docs/protocol.md 9.9), and says in one line why not.
"""

from __future__ import annotations

import argparse
import re

import aiomqtt

from trutnet.cli.arguments import Refused
from trutnet.i18n import _
from trutnet.net.broker import Endpoint, parse_broker_url
from trutnet.protocol.invitation import Code, InvitationError
from trutnet.runtime.invitations import Welcome, accept_invitation

# what a person types as a code: a number and two words, with hyphens or spaces
LOOKS_LIKE_CODE = re.compile(r"\s*\d+[\s-]+[A-Za-z]+[\s-]+[A-Za-z]+\s*")


def invitation_code(text: str | None, command: str) -> Code | None:
    """The code ``text`` is, or None when it is not one (a table's name); a code with a
    word that is not one of the codes' words: :class:`Refused` naming the nearest."""
    if text is None or not LOOKS_LIKE_CODE.fullmatch(text):
        return None
    try:
        return Code.parse(text)
    except InvitationError as exc:
        raise Refused(
            _("trutnet {command}: {problem}").format(command=command, problem=_typo_said(exc)), 2
        ) from None


def _typo_said(exc: InvitationError) -> str:
    """A code that cannot be read, in the person's words."""
    word, near = exc.values.get("word"), exc.values.get("near")
    if exc.reason == "word" and near is not None:
        return _("{word} is not a word of invitation codes; did you mean {near}?").format(
            word=repr(word), near=near
        )
    if exc.reason == "word":
        return _("{word} is not a word of invitation codes").format(word=repr(word))
    return _("an invitation code looks like 7-purple-sausage, not {text}").format(
        text=repr(exc.values.get("text", ""))
    )


def unreachable_said(broker: Endpoint, exc: BaseException) -> str:
    """Why a connection to ``broker`` failed, in one line: what it wants, when it turned
    us down (a user, a password), else that it cannot be reached."""
    from trutnet.net.mqtt_link import refusal, refused_message

    if refusal(exc):
        return refused_message(broker)
    return _("cannot reach the broker at {url}: {why}").format(url=broker.url, why=exc)


def invited_table(
    args: argparse.Namespace, code: Code, command: str, watch: bool = False
) -> tuple[Endpoint, Welcome]:
    """The broker that serves ``code`` and the host's welcome (the table's id and key;
    ``watch``: as a spectator, whom a full table still welcomes); :class:`Refused` in
    one line when no broker has it or the code does not work."""
    from trutnet.cli.running import run_to_end
    from trutnet.discovery.browse import invitation_brokers

    def refused(problem: object) -> Refused:
        return Refused(_("trutnet {command}: {problem}").format(command=command, problem=problem))

    if args.broker is not None:
        brokers = [parse_broker_url(args.broker)]
    else:
        try:
            brokers = invitation_brokers(code.nameplate, args.timeout, args.interface or None)
        except OSError as exc:
            raise refused(_("cannot search the LAN: {why}").format(why=exc)) from None
        if not brokers:
            raise refused(
                _(
                    "no table with invitation {number} on the LAN: check the code's number,"
                    " or give its broker (--broker mqtt://host:port)"
                ).format(number=code.nameplate)
            )
    problem: object = None
    for broker in brokers:  # two hosts of the LAN may have drawn one number: each in turn
        try:
            welcome = run_to_end(accept_invitation(broker, code, watch=watch))
            return broker, Welcome.read(welcome)
        except InvitationError as exc:
            problem = exc
        except (OSError, aiomqtt.MqttError) as exc:
            problem = unreachable_said(broker, exc)
    raise refused(problem)
