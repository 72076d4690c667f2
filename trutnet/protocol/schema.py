"""Refusals, and the schema checks of entry bodies (sans-I/O).

Every check of a body field lives here, so that every replica refuses a bad entry with
the same rule and message (7.5). :class:`Rejected` is a peer's bad entry (with a
blame where a seat is at fault); :class:`LocalError` is this seat's own decision that
the rules refuse, raised before anything is signed (h11's ``LocalProtocolError``).
"""

from __future__ import annotations

from typing import Any

from trutnet.protocol.blame import Blame


class Rejected(Exception):
    """An entry that was refused; ``blame`` names the seat at fault, if any."""

    def __init__(
        self, rule: str, message: str, blame: Blame | None = None, halt: bool = False
    ) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message
        self.blame = blame
        self.halt = halt


class LocalError(Exception):
    """This seat's own decision is not legal now: refused before anything is signed,
    and nothing changed (h11's ``LocalProtocolError``; a peer's bad entry is a
    :class:`Rejected` with a blame instead)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


def detail(exc: Exception) -> str:
    """An error's message without its ``[rule]`` prefix (so that a rule is named once)."""
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        return message
    text, rule = str(exc), getattr(exc, "rule", None)
    prefix = f"[{rule}] "
    return text[len(prefix) :] if rule and text.startswith(prefix) else text


def bytes_field(
    body: dict[str, Any], name: str, size: int | None = None, limit: int = 60_000
) -> bytes:
    value = body.get(name)
    if (
        not isinstance(value, bytes)
        or (size is not None and len(value) != size)
        or len(value) > limit
    ):
        raise Rejected("schema", f"field {name!r} must be {size or 'some'} bytes")
    return value


def int_field(body: dict[str, Any], name: str, low: int, high: int) -> int:
    value = body.get(name)
    if type(value) is not int or not low <= value <= high:
        raise Rejected("schema", f"field {name!r} must be an integer {low}..{high}")
    return value


def text_field(body: dict[str, Any], name: str, limit: int = 1024) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not 1 <= len(value) <= limit:
        raise Rejected("schema", f"field {name!r} must be a string of 1..{limit} characters")
    return value


def exact_fields(body: dict[str, Any], names: set[str]) -> None:
    if set(body) != names:
        raise Rejected("schema", f"body fields must be {sorted(names)}")
