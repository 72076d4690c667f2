"""The language a command speaks (:mod:`trutnet.i18n`): ``--lang``, read from the
arguments before the parser is built so that ``--help`` is in that language too, else
the locale's (``LANG``...), else English; argparse's own words (``usage:``, its
error lines) taken from the same catalogs; and the placeholder each option's value
shows in ``--help`` (:func:`name_placeholders`), in that language too.
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

SECONDS = N_("SECONDS")
PROBABILITY = "P"  # the same word in every language
COUNT = "N"
# each option's placeholder as the code writes it (its ``metavar``, or argparse's from
# its name), and the word ``--help`` shows for it; a word that is the same in every
# language is not marked (a test walks every command: no option is left out)
PLACEHOLDERS = {
    "COMMAND": N_("COMMAND"),
    "NAME": N_("NAME"),
    "PLAYERS": N_("PLAYERS"),
    "VARIANT": N_("VARIANT"),
    "KEY=VALUE": N_("KEY=VALUE"),
    "VALUE": N_("VALUE"),
    "KIND": N_("KIND"),
    "KIND|K1,K2,...": N_("KIND|K1,K2,..."),
    "A,B": "A,B",
    "SECONDS|BANK+INC": N_("SECONDS|BANK+INC"),
    "FINGERPRINT|any": N_("FINGERPRINT|any"),
    "BOTS": "K",
    "PORT": N_("PORT"),
    "BIND": N_("ADDRESS"),
    "STORE": N_("DIR"),
    "DIR": N_("DIR"),
    "BROKER": "URL",
    "URL": "URL",
    "IP": "IP",
    "TABLE": "ID",
    "table_name": N_("TABLE"),
    "TABLE_NAME": N_("TABLE"),
    "file": N_("FILE"),
    "LANG": N_("LANG"),
    "SEED": N_("SEED"),
    "AT": N_("MOVE"),
    "MS": "MS",
    "N,N-M,...": "N,N-M,...",
    "DRIFT": N_("RATE"),
    **dict.fromkeys(
        ("SEEDS", "GAMES", "REPEATS", "JOBS", "HANDS", "NEWCOMERS", "DOWN_AT_ONCE", "N"),
        COUNT,
    ),
    **dict.fromkeys(
        ("LOSS", "DUP", "REORDER", "KILL", "GONE", "JUNK", "SPLIT", "BROKER_RESTART", "TORN"),
        PROBABILITY,
    ),
    **dict.fromkeys(
        (
            "STALL_TIMEOUT",
            "VOID_TIMEOUT",
            "GIVE_UP_AFTER",
            "LINGER",
            "LOBBY_TIMEOUT",
            "TIMEOUT",
            "DELAY",
            "BASE_DELAY",
            "DOWN",
            "SPLIT_FOR",
            "BROKER_DOWN",
            "GIVE_UP",
            "BOUND",
        ),
        SECONDS,
    ),
}


def placeholder(action: argparse.Action) -> str | None:
    """The placeholder an option's value has as the code wrote it (None: the option
    takes no value, or shows its choices)."""
    if action.nargs == 0 or (action.choices is not None and action.metavar is None):
        return None
    if isinstance(action.metavar, str):
        return action.metavar
    return action.dest.upper() if action.option_strings else action.dest


def name_placeholders(parser: argparse.ArgumentParser) -> None:
    """Show each option's value in ``--help`` with the word :data:`PLACEHOLDERS` gives
    it, in this command's language, on ``parser`` and every command under it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in set(action.choices.values()):
                name_placeholders(command)
        written = placeholder(action)
        if written is not None and written in PLACEHOLDERS:
            action.metavar = _(PLACEHOLDERS[written])


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


__all__ = [
    "ARGPARSE_WORDS",
    "PLACEHOLDERS",
    "LanguageError",
    "add_lang_option",
    "asked_language",
    "name_placeholders",
    "placeholder",
    "speak",
]
