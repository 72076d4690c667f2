"""The players' own language: every word a person reads, in English, French or Spanish.

A shown string is marked where it is written: ``_("Your turn")``, ``ngettext("{n}
shuffle", "{n} shuffles", n).format(n=n)``, and ``N_("...")`` for a constant made at
import time, which is translated where it is shown (``_(CONSTANT)``). A string with
values takes named fields (``_("Waiting for {name}").format(name=who)``), so a
translation may put them in its own order. What is not words is never marked: a card's
notation, a key, a protocol token, a player's name.

The words live in gettext catalogs, one ``.po`` file per language (``fr.po``,
``es.po``) in a ``locale`` folder: the frame's in ``trutnet/locale``, and each game's in
its own package (``trutnet/games/<game>/locale``, which the plugin adds with
:func:`add_catalogs`), so a game brings its own words. English is the source text
and needs no catalog. Babel reads the catalogs (and ``python -m trutnet.i18n update``
extracts the marked strings into them); a message a catalog lacks is shown in English.

The language is chosen once, early, by :func:`use`: ``--lang``, else the locale's
(``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them), else
English.
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterable, Mapping
from pathlib import Path

LANGUAGES = {"en": "English", "fr": "Français", "es": "Español"}
SOURCE = "en"  # the language the strings are written in
FRAME = Path(__file__).parent / "locale"  # the frame's catalogs
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_folders: list[Path] = [FRAME]
_language = SOURCE
_translations: gettext.NullTranslations | None = None  # of _language, once read


class LanguageError(ValueError):
    """A language that trutnet does not speak (the message says which it does)."""


def language_of(locale: str) -> str | None:
    """The language of a locale name (``fr_FR.UTF-8`` -> ``fr``), if trutnet speaks it."""
    code = locale.split(".")[0].split("@")[0].split("_")[0].split("-")[0].lower()
    return code if code in LANGUAGES else None


def choose(asked: str | None, environ: Mapping[str, str]) -> str:
    """The language to speak: ``asked`` (``--lang``; :class:`LanguageError` if trutnet
    does not speak it), else the first of the environment's that it speaks, else
    English. ``LANGUAGE`` may list several (``fr:es``); ``C`` and ``POSIX`` are
    English, and the first variable that is set decides, as in gettext."""
    if asked is not None:
        code = language_of(asked)
        if code is None:
            known = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
            use(choose(None, environ))  # said in the locale's language, if it speaks it
            said = _("--lang {asked}: trutnet speaks {known}")
            raise LanguageError(said.format(asked=asked[:20], known=known))
        return code
    for variable in ENVIRONMENT:
        value = environ.get(variable, "")
        if not value:
            continue
        for locale in value.split(":"):
            code = language_of(locale)
            if code is not None:
                return code
        if variable != "LANGUAGE":
            return SOURCE  # set, and not a language trutnet speaks (C, POSIX, de_DE)
    return SOURCE


def use(language: str) -> None:
    """Speak ``language`` (a key of :data:`LANGUAGES`) from now on."""
    global _language, _translations
    if language not in LANGUAGES:
        raise LanguageError(f"not a language trutnet speaks: {language!r}")
    _language, _translations = language, None


def current() -> str:
    """The language spoken now."""
    return _language


def add_catalogs(folder: Path) -> None:
    """A plugin's own words: ``folder`` holds ``<language>.po`` files."""
    if folder not in _folders:
        _folders.append(folder)
        global _translations
        _translations = None


def _read(path: Path) -> gettext.NullTranslations | None:
    """One ``.po`` file as gettext translations (Babel parses it, in memory)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    if not path.is_file():
        return None
    with path.open("rb") as file:
        catalog = read_po(file, locale=path.stem)
    compiled = io.BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def translations() -> gettext.NullTranslations:
    """The current language's catalogs, chained (read once per language)."""
    global _translations
    if _translations is None:
        chain = gettext.NullTranslations()
        if _language != SOURCE:
            for folder in _folders:
                read = _read(folder / f"{_language}.po")
                if read is not None:
                    chain.add_fallback(read)
        _translations = chain
    return _translations


def _(message: str) -> str:
    """``message`` in the current language (itself in English, or if untranslated)."""
    if _language == SOURCE:
        return message
    return translations().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n``, in the current language."""
    if _language == SOURCE:
        return singular if n == 1 else plural
    return translations().ngettext(singular, plural, n)


def number(value: float, digits: int | None = None) -> str:
    """``value`` as the current language writes a number: ``16.708`` in English,
    ``16,708`` in French and Spanish (a decimal comma, not a thousands point);
    ``digits``: that many decimals, else as few as it needs, at most 3."""
    from babel.numbers import format_decimal

    pattern = "0" if digits == 0 else "0." + ("0" * digits if digits else "###")
    return format_decimal(value, format=pattern, locale=_language)


def labelled(label: str, value: str) -> str:
    """``Trut: 2, 3, 4 or 6``: a label and what it says, punctuated as the current
    language writes it (French puts a space before the colon)."""
    return _("{label}: {value}").format(label=label, value=value)


def clauses(parts: Iterable[str]) -> str:
    """Parts joined as the current language separates clauses: ``a; b`` (``a ; b``)."""
    return _("; ").join(parts)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs without translating it (a constant made at
    import time, translated where it is shown)."""
    return message
