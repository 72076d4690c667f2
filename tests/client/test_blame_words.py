"""A blame in the person's words (``trutnet/client/blame_words.py``): every rule a
replica can blame a seat on has a phrase, and the phrase is the person's language."""

from __future__ import annotations

import re

import pytest

from tests import ROOT
from trutnet import i18n
from trutnet.client.blame_words import OTHER, RULES, RULING, blame_said, rule_said

# rules a replica refuses at the door, before any seat's signature counts: the entry is
# dropped, never blamed (docs/protocol.md 7.5)
NEVER_BLAMED = {"chain", "duplicate", "encoding", "halted", "signature", "size", "table", "version"}
RAISED = re.compile(
    r'(?:Rejected|LogError|MessageError|IllegalAction|LocalError)\(\s*"([^"]+)"'
    r'|Blame\(\s*[^,()]+,\s*"([^"]+)"'
)


def raised_rules() -> set[str]:
    """Every rule id the code refuses or blames an entry on."""
    found = set()
    for path in (ROOT / "trutnet").rglob("*.py"):
        for match in RAISED.finditer(path.read_text()):
            found.add(match.group(1) or match.group(2))
    return found


def test_every_rule_an_entry_is_refused_on_has_words_or_is_never_blamed():
    rules = raised_rules()
    assert {"shuffle-proof", "equivocation", "turn", "T37", "K21", "L6"} <= rules  # the scan
    local = {"sign", "vote", "void"}  # a seat's own refusals, before it signs (LocalError)
    unworded = {r for r in rules if not RULING.fullmatch(r)} - set(RULES) - NEVER_BLAMED - local
    assert not unworded, f"rules with no words for a blame: {sorted(unworded)}"


@pytest.fixture
def french():
    i18n.use("fr")
    yield
    i18n.use("en")


def test_a_blame_says_who_and_what_in_french(french):
    names = ["Ana", "Bob"]
    said = blame_said(1, "shuffle-proof", names)
    assert said == "Bob a mélangé avec une preuve qui ne se vérifie pas [shuffle-proof]"
    assert blame_said(1, "shuffle-proof", names, token=False) == said.rsplit(" [", 1)[0]
    assert rule_said("T37") == "a joué un coup que les règles interdisent (décision T37)"
    assert blame_said(5, "made-up", names) == "place 5 a enfreint le protocole [made-up]"


def test_each_phrase_is_translated_and_english_is_the_source(french):
    for rule, phrase in RULES.items():
        assert rule_said(rule) != phrase, rule  # French words, not the English source
    assert rule_said("made-up") == i18n._(OTHER)
    i18n.use("en")
    assert blame_said(0, "turn", ["Ana"]) == "Ana wrote out of turn [turn]"
