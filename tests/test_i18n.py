"""The players' own language (trutnet/i18n.py): how a command chooses it, and catalogs
that keep step with the code: every string the code marks has a French and a Spanish
translation with the same fields, so no shown string lacks one and no translation can
break a ``.format`` (``python -m tests.i18n_catalogs`` brings the catalogs in step).
"""

from __future__ import annotations

import re

import pytest

from tests.i18n_catalogs import LANGUAGES, ROOT, areas, marked, read
from trutnet import i18n
from trutnet.cli.language import asked_language

BRACES = re.compile(r"\{(\w*)(?:[:!][^{}]*)?\}")
PERCENT = re.compile(r"%\(\w+\)[a-z]|%[a-z]")
AREAS = areas()


@pytest.fixture(autouse=True)
def _english_after():
    yield
    i18n.use("en")


@pytest.mark.parametrize(
    ("asked", "environ", "chosen"),
    [
        (None, {}, "en"),
        (None, {"LANG": "fr_FR.UTF-8"}, "fr"),
        (None, {"LANG": "es_AR.UTF-8"}, "es"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {"LANG": "de_DE.UTF-8"}, "en"),  # a language trutnet does not speak
        (None, {"LC_ALL": "es_ES.UTF-8", "LANG": "fr_FR.UTF-8"}, "es"),  # LC_ALL first
        (None, {"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}, "en"),  # the first set decides
        (None, {"LANGUAGE": "de:fr", "LANG": "es_ES.UTF-8"}, "fr"),  # a list, in order
        (None, {"LANGUAGE": "de", "LANG": "es_ES.UTF-8"}, "es"),  # none spoken: go on
        (None, {"LC_MESSAGES": "fr_CA", "LANG": "C"}, "fr"),
        ("es", {"LANG": "fr_FR.UTF-8"}, "es"),  # --lang wins
        ("FR", {}, "fr"),
        ("fr_BE.UTF-8", {}, "fr"),
    ],
)
def test_the_language_comes_from_lang_then_the_locale(asked, environ, chosen):
    assert i18n.choose(asked, environ) == chosen


@pytest.mark.parametrize("asked", ["de", "", "x" * 300, "../fr"])
def test_a_language_trutnet_does_not_speak_is_refused_with_those_it_does(asked):
    with pytest.raises(i18n.LanguageError, match=r"trutnet speaks en \(English\), fr"):
        i18n.choose(asked, {})
    try:  # said in the locale's language, when trutnet speaks it
        with pytest.raises(i18n.LanguageError, match=r" : trutnet parle en \(English\), fr"):
            i18n.choose(asked, {"LANG": "fr_FR.UTF-8"})
    finally:
        i18n.use("en")


def test_lang_is_read_from_the_arguments_before_any_parser():
    assert asked_language(["play", "--lang", "fr", "--players", "2"]) == "fr"
    assert asked_language(["play", "--lang=es"]) == "es"
    assert asked_language(["play", "--lang"]) is None  # argparse says what is missing
    assert asked_language(["verify", "--", "--lang", "fr"]) is None  # a file's name


def test_a_chosen_language_is_spoken_and_english_is_the_source():
    assert i18n._("show this help message and exit") == "show this help message and exit"
    i18n.use("fr")
    assert i18n._("show this help message and exit") != "show this help message and exit"
    assert i18n._("a string no catalog has") == "a string no catalog has"  # English then
    i18n.use("es")
    one, many = (
        i18n.ngettext("{n} spectator", "{n} spectators", 1),
        i18n.ngettext("{n} spectator", "{n} spectators", 3),
    )
    assert one != many and "{n}" in one and "{n}" in many


def _fields(text: str) -> list[str]:
    return sorted((BRACES if "{" in text else PERCENT).findall(text))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("folder", sorted(AREAS), ids=lambda f: str(f.relative_to(ROOT)))
def test_every_marked_string_has_a_translation_with_the_same_fields(folder, language):
    template = marked(AREAS[folder])
    catalog = read(folder / f"{language}.po", language)
    missing, broken = [], []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id)
        forms = (
            (found.string if isinstance(found.string, tuple) else (found.string,)) if found else ()
        )
        if not forms or not all(forms) or (found is not None and found.fuzzy):
            missing.append(message.id)
            continue
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = _fields(sources[-1])  # a plural's singular may spell its number out
        broken += [(message.id, form) for form in forms if not set(_fields(form)) <= set(wanted)]
        broken += [(message.id, forms[-1])] if _fields(forms[-1]) != wanted else []
    assert not missing, f"{len(missing)} untranslated in {folder}/{language}.po: {missing[:10]}"
    assert not broken, f"fields differ in {folder}/{language}.po: {broken[:10]}"
    stale = {m.id for m in catalog if m.id} - {m.id for m in template if m.id}
    assert not stale, f"no longer in the code (python -m tests.i18n_catalogs): {sorted(stale)[:10]}"


def _binds_underscore(tree) -> list[int]:
    """Lines where a module binds ``_`` in a function's scope (a comprehension's own
    scope aside), which hides the translation function there."""
    import ast

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            lines += [node.lineno for a in every if a.arg == "_"]
        targets: list = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars]
        elif isinstance(node, ast.ExceptHandler) and node.name == "_":
            lines.append(node.lineno)
        for target in targets:
            lines += [
                node.lineno for n in ast.walk(target) if isinstance(n, ast.Name) and n.id == "_"
            ]
    return lines


# the voseo's own verb forms (Río de la Plata): the Spanish catalogs say "tú" to the
# person, every game alike, so that one screen never mixes "juega" and "jugá"
VOSEO = re.compile(
    r"\b(?:[Jj]ugá|[Cc]antá|[Rr]espondé|[Dd]ecí|[Pp]odés|[Tt]enés|[Qq]uerés|[Ee]legí|[Mm]irá"
    r"|[Hh]acé|[Hh]acés|[Pp]asá|[Aa]ceptá|[Mm]ostrá|[Ee]sperá|[Tt]ocá|[Uu]sá|[Pp]oné|[Dd]ejá"
    r"|[Gg]anás|[Pp]erdés|[Ss]abés|[Aa]postá|[Dd]escartá|[Vv]olvé|[Ss]alí|[Ee]scribí|[Ss]os|vos)\b"
)


@pytest.mark.parametrize("folder", sorted(AREAS), ids=lambda f: str(f.relative_to(ROOT)))
def test_spanish_says_tu_to_the_person_in_every_catalog(folder):
    catalog = read(folder / "es.po", "es")
    said = [
        form
        for message in catalog
        if message.id
        for form in (message.string if isinstance(message.string, tuple) else (message.string,))
        if VOSEO.search(form)
    ]
    assert not said, said[:5]


def test_no_module_that_translates_hides_the_translation_function():
    """``_, writer = ...`` in a module that imports ``_`` makes the next ``_("...")``
    call a stream: every module that translates leaves ``_`` alone."""
    import ast

    hiding = []
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text()
        if not re.search(r"^from trutnet\.i18n import .*\b_\b", text, re.MULTILINE):
            continue
        hiding += [
            f"{path.relative_to(ROOT)}:{line}" for line in _binds_underscore(ast.parse(text))
        ]
    assert not hiding, f"these bind _ and hide the translation function: {hiding}"
