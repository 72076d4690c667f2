"""Numbers from the command line: one parser-maker for every bounded number option, and
the suggestion for a misspelt word (:func:`meant`), and :class:`Refused`, the one line
that ends a command that cannot go on.

Each option's type is made by :func:`bounded`: the text is converted (``int`` or
``float``), a text that is no number gets ``not <what>: 'text'``, and a number out of
range gets the option's own one-line refusal. argparse prints either and exits with
status 2, so a typo never reaches the code behind the option.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from trutnet.i18n import N_, _

N = TypeVar("N", int, float)


class Refused(Exception):
    """A command that cannot go on: its one line (printed on stderr by :func:`main`)
    and its exit status (1: the table cannot be had; 2: an argument or a file)."""

    def __init__(self, line: str, status: int = 1) -> None:
        super().__init__(line)
        self.status = status


def bounded(
    convert: Callable[[str], N],
    what: str,
    accept: Callable[[N], bool],
    refusal: str,
) -> Callable[[str], N]:
    """An argparse ``type``: ``convert(text)`` if ``accept`` takes it, else an error.

    ``refusal`` may name ``{value}`` (the number read) and ``{text}`` (as typed).
    ``what`` and ``refusal`` are English (marked with ``N_``), said in the person's
    language when a text is refused."""
    return _bounded(convert, what, accept, refusal, {})


def _bounded(
    convert: Callable[[str], N],
    what: str,
    accept: Callable[[N], bool],
    refusal: str,
    fields: dict[str, Any],
) -> Callable[[str], N]:
    """:func:`bounded`, its refusal given ``fields`` too (``whole``'s bounds)."""

    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("not {what}: {text}").format(what=_(what) if what else what, text=repr(text))
            ) from None
        if not accept(value):
            said = _(refusal) if refusal else refusal
            raise argparse.ArgumentTypeError(said.format(**fields, value=value, text=text))
        return value

    return parse


def whole(low: int, high: int, refusal: str = "") -> Callable[[str], int]:
    """A whole number in ``low..high`` (by default refused as ``must be low..high``)."""
    return _bounded(
        int,
        N_("a whole number"),
        lambda value: low <= value <= high,
        refusal or N_("must be {low}..{high}, not {value}"),
        {"low": low, "high": high},
    )


def meant(word: str, known: list[str], cutoff: float = 0.75) -> str:
    """``; did you mean KEY?`` when ``word`` is close to one of ``known``, or nothing."""
    import difflib

    close = difflib.get_close_matches(word, known, n=1, cutoff=cutoff)
    return _("; did you mean {word}?").format(word=close[0]) if close else ""


MAX_JOBS = 64


def add_jobs_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--jobs J``: processes working at once (by default this machine's processors,
    at most 2); ``help`` says what each does."""
    import os

    parser.add_argument(
        "--jobs", type=whole(1, MAX_JOBS), default=min(2, os.cpu_count() or 1), help=help
    )
