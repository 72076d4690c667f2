"""The language a command speaks (:mod:`trutnet.i18n`): ``--lang``, read from the
arguments before the parser is built so that ``--help`` is in that language too, else
the locale's (``LANG``...), else English; and argparse's own words (``usage:``, its
error lines) taken from the same catalogs.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from trutnet import i18n
from trutnet.i18n import N_, LanguageError, _

# argparse's own words that a person may read, for the catalogs (argparse looks them
# up through its module's ``_``, which :func:`speak` points at trutnet's)
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("ignored explicit argument %r"),
)


def asked_language(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` among ``argv`` (the last one given), if any."""
    asked = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--lang" and index + 1 < len(argv):
            asked = argv[index + 1]
        elif word.startswith("--lang="):
            asked = word.split("=", 1)[1]
    return asked


def speak(argv: Sequence[str], environ: Mapping[str, str]) -> None:
    """Choose the language for this command (:class:`LanguageError` for an unknown
    ``--lang``), argparse's words included."""
    i18n.use(i18n.choose(asked_language(argv), environ))
    argparse._ = i18n._  # type: ignore[attr-defined]
    argparse.ngettext = i18n.ngettext  # type: ignore[attr-defined]


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang``, on a parser and every command's under it (read before any parser is
    built, by :func:`speak`: here for ``--help`` and so that the parsers accept it)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in set(action.choices.values()):
                add_lang_option(command)
    names = ", ".join(f"{code} ({name})" for code, name in i18n.LANGUAGES.items())
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=_(
            "the language of the screens and messages: {names} (default: the locale's, from LANG)"
        ).format(names=names),
    )


__all__ = ["ARGPARSE_WORDS", "LanguageError", "add_lang_option", "asked_language", "speak"]
