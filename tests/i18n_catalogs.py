"""The catalogs of the players' languages, kept in step with the code (trutnet/i18n.py).

:func:`areas` says which source files each catalog folder serves (the frame's
``trutnet/locale`` serves all of trutnet but the games; each game's ``locale`` serves
its package but its pure rules), :func:`marked` extracts the strings the code marks
(``_``, ``ngettext``, ``N_``: Babel's extractor), and

    python -m tests.i18n_catalogs [TRANSLATIONS.json ...]

writes every marked message into each language's ``.po`` (a new one untranslated,
translations kept, messages no longer marked dropped), then fills the translations
each JSON file gives: ``{"msgid": {"fr": "...", "es": "..."}}``, and for a plural
``{"msgid": {"fr": ["one", "many"], "es": ["one", "many"]}}``.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent / "trutnet"
LANGUAGES = ("fr", "es")
# two forms, one and many, as gettext's catalogs for these languages have them (CLDR's
# third form, for a million and more, is left out: no count on a table gets there)
PLURALS = {"fr": "(n > 1)", "es": "(n != 1)"}
# the marking functions, and an option's help: the third argument of a declaration's
# ``Option(key, default, help, ...)``, shown translated by the command line
KEYWORDS = {**DEFAULT_KEYWORDS, "Option": (3,)}


def areas() -> dict[Path, list[Path]]:
    """Each catalog folder and the source files whose strings it holds."""
    games = ROOT / "games"
    found: dict[Path, list[Path]] = {ROOT / "locale": []}
    for path in sorted(ROOT.rglob("*.py")):
        inside = path.relative_to(ROOT).parts
        if inside[0] != "games" or len(inside) < 3:
            found[ROOT / "locale"].append(path)
        elif inside[2] != "rules" or inside[3:] == ("declaration.py",):
            # a game's rules show no words, but for its declaration's option helps
            found.setdefault(games / inside[1] / "locale", []).append(path)
    return found


def marked(files: list[Path]) -> Catalog:
    """Every string ``files`` mark, as a template catalog."""
    template = Catalog(fuzzy=False)
    for path in files:
        for line, message, comments, _context in extract_from_file(
            "python", str(path), keywords=KEYWORDS
        ):
            if not message or (isinstance(message, tuple) and not message[0]):
                continue
            where = (str(path.relative_to(ROOT.parent)), line)
            template.add(message, None, [where], auto_comments=comments)
    return template


def read(path: Path, language: str) -> Catalog:
    if path.is_file():
        with path.open("rb") as file:
            return read_po(file, locale=language)
    catalog = Catalog(locale=language, project="trutnet", fuzzy=False)
    catalog._num_plurals, catalog._plural_expr = 2, PLURALS[language]
    return catalog


NAMES = {"fr": "French", "es": "Spanish"}
DATE = datetime(2026, 11, 28, tzinfo=UTC)  # fixed: no churn in the catalogs


def _header(catalog: Catalog, folder: Path, language: str) -> None:
    area = folder.parent.relative_to(ROOT.parent)
    catalog.header_comment = (
        f"# {NAMES[language]} words of trutnet: {area}/ (docs/languages.md).\n"
        "# Kept in step with the code by python -m tests.i18n_catalogs."
    )
    catalog.project, catalog.version = "trutnet", "1"
    catalog.msgid_bugs_address = catalog.last_translator = ""
    catalog.language_team = f"{NAMES[language]} <{language}>"
    catalog.creation_date = catalog.revision_date = DATE


def update(fills: dict[str, dict[str, object]]) -> None:
    for folder, files in areas().items():
        template = marked(files)
        if not len(template) and not folder.exists():
            continue
        folder.mkdir(exist_ok=True)
        for language in LANGUAGES:
            path = folder / f"{language}.po"
            catalog = read(path, language)
            catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
            _header(catalog, folder, language)
            for message in catalog:
                key = message.id[0] if isinstance(message.id, tuple) else message.id
                given = fills.get(key, {}).get(language) if key else None
                if given is not None:
                    message.string = tuple(given) if isinstance(message.id, tuple) else given
                message.flags.discard("fuzzy")
                message.locations = []  # the code says where: no churn in the diff
            with path.open("wb") as file:
                write_po(file, catalog, width=88, ignore_obsolete=True, sort_output=True)


def main(argv: list[str]) -> None:
    fills: dict[str, dict[str, object]] = {}
    for name in argv:
        fills.update(json.loads(Path(name).read_text()))
    update(fills)


if __name__ == "__main__":
    main(sys.argv[1:])
