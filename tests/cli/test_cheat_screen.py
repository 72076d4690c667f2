"""A cheat as an honest person meets it (docs/protocol.md 7.5): Ana plays ``trutnet
play`` on a real terminal at 80x24, in French, with default arguments; a cheating
peer joins as Bob (``tests/hostile/bad_shuffler.py``: its shuffles carry a broken
proof). Ana's replica refuses Bob's shuffle, stops the table and blames him: her
screen says so in her language, by his name, with the rule's token; leaving says
it again, and the command ends with status 1. Every wait is on what a screen or a
process says.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests import ROOT
from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from tests.runtime.test_watch import table_of_play

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

SHOWN = "TRICHE DÉTECTÉE : Bob a mélangé avec une preuve qui ne se vérifie pas"
BLAMED = "Bob a mélangé avec une preuve qui ne se vérifie pas [shuffle-proof]"
STOPPED = "⚠ La table s'est arrêtée : Bob a triché, et la partie ne peut pas continuer"


@pytest.mark.timeout(240)
def test_a_seat_that_cheats_is_named_on_the_honest_screen_in_its_language(tmp_path, screen):  # noqa: F811
    ana_home = tmp_path / "ana"
    env = {**person_env(ana_home), "LANG": "fr_FR.UTF-8"}
    ana = screen()
    ana.start([*TRUTNET, "play", "--players", "2", "--name", "Ana"], env, tmp_path)
    table, url = table_of_play(ana_home)
    bob_home = tmp_path / "bob"
    cheat = ["join", "--broker", url, "--table", table, "--bot", "random", "--name", "Bob"]
    bob = subprocess.Popen(
        [sys.executable, "-m", "tests.hostile.bad_shuffler", *cheat, "--json"],
        cwd=ROOT,
        env=person_env(bob_home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        text = fits(ana.wait_for(SHOWN, timeout=120))  # the verification line, in red
        # what happens and what to do, in the waiting line's place: no spinner waits on
        text = ana.wait_for(STOPPED, timeout=10)
        assert "q pour partir ; sa transcription garde la preuve" in text, text
        assert "Distribution" not in text and "(2s)" not in text, text
        ana.keys("q")  # nothing more will be played: q leaves without a question
        status, text = ana.exit_status(timeout=60)
        said = " ".join(text.split())  # the line may wrap at 80 columns
        assert status == 1 and "Traceback" not in text, text
        assert "la table s'est arrêtée à la main 1" in said and BLAMED in said, text
        assert "partie terminée" not in said, text  # not a game over: nobody won it
        # the evidence stays: the transcript (verify names the same seat) and the folder
        assert "trutnet verify" in said and "Les fichiers de cette place sont gardés" in said
        saved = next(row.strip() for row in text.splitlines() if row.strip().endswith(".json"))
        verify = subprocess.run(
            [*TRUTNET, "verify", saved], cwd=ROOT, env=env, capture_output=True, text=True
        )
        # anyone can check the blame offline: the evidence is Bob's own signed entry
        proven = " ".join(verify.stdout.split())
        assert verify.returncode == 1 and f"TRICHE PROUVÉE : {BLAMED}" in proven, verify
        # the record's detail is evidence, kept as the protocol wrote it, and said so
        assert "(les mots du protocole, en anglais)" in proven, proven
        assert "la partie n'a pas de résultat" in verify.stderr, verify.stderr
    finally:
        bob.kill()
        out, _err = bob.communicate(timeout=30)
    # the cheater's own replica never checked its own shuffle: it saw no fault of its own
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    blamed = [e for e in events if e.get("event") == "rejected" and e.get("blamed") == 1]
    assert not blamed, events
