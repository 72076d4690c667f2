"""The players' own language as a person meets it (docs/languages.md), in a real
terminal at 80x24 in tmux: a person whose locale is French plays a whole table in
French (lobby to leaving), one who asks ``--lang es`` plays Truco in Spanish and reads
``--help`` in Spanish, and a language trutnet does not speak is one clear line.
The expected words are the catalogs' own (not copied here), and no English word of the
frame is left on those screens.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.cli.test_leaving import fits
from tests.cli.test_person_path import TRUTNET, person_env, screen  # noqa: F401
from trutnet import i18n

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
PLAY = [*TRUTNET, "play", "--bind", "127.0.0.1", "--no-announce", "--players", "2", "--bots", "1"]
ENGLISH = ["? help", "q quit", "Waiting for", "verified", "Your turn", "Quit the game"]


def said(language: str, message: str) -> str:
    """``message`` as the catalogs say it in ``language``."""
    i18n.use(language)
    try:
        return i18n._(message)
    finally:
        i18n.use("en")


def quit_question(language: str) -> str:
    """The quit question in ``language``, with its yes key (``o``, ``s``)."""
    from trutnet.client.app import QUIT, YES

    return said(language, QUIT).format(yes=said(language, YES))


def english_left(text: str) -> list[str]:
    """The frame's English words on a screen (``q quit``, not ``q quitter``)."""
    return [words for words in ENGLISH if re.search(re.escape(words) + r"(?![^\W\d_])", text)]


@pytest.mark.timeout(180)
def test_a_person_whose_locale_is_french_plays_in_french(tmp_path, screen):  # noqa: F811
    env = {**person_env(tmp_path / "ana"), "LANG": "fr_FR.UTF-8", "LC_CTYPE": "C.UTF-8"}
    ana = screen()
    ana.start([*PLAY, "--name", "Ana"], env, tmp_path)
    keys = said("fr", "? help")
    assert keys != "? help"
    text = ana.wait_for(keys, timeout=60)  # the table, its key bar in French
    fits(text)
    assert said("fr", "q quit") in text and not english_left(text), text
    assert said("fr", " ✓ verified: {checks}").split("{")[0] in text, text
    ana.keys("?")
    help_line = said(
        "fr", " Tab  the table's chat: type, Enter sends, Esc back; /mute NAME hides someone"
    )
    text = ana.wait_for(help_line.strip()[:30], timeout=30)
    fits(text)
    ana.keys("Escape")
    ana.keys("q")
    question = quit_question("fr")
    assert question.startswith("Quitter la partie ? o/n"), question
    fits(ana.wait_for(question, timeout=30))
    ana.keys("o")  # oui: the French key (y works too)
    status, text = ana.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text, text
    assert "trutnet join --resume" in text and not english_left(text), text


@pytest.mark.timeout(180)
def test_a_person_who_asks_for_spanish_plays_truco_in_spanish(tmp_path, screen):  # noqa: F811
    env = person_env(tmp_path / "bob")  # an English locale: --lang decides
    bob = screen()
    bob.start([*PLAY, "--game", "truco", "--name", "Bob", "--lang", "es"], env, tmp_path)
    keys = said("es", "? help")
    assert keys != "? help"
    text = bob.wait_for(keys, timeout=60)
    fits(text)
    assert said("es", "q quit") in text and not english_left(text), text
    bob.keys("q")
    fits(bob.wait_for(quit_question("es"), timeout=30))
    bob.keys("s")  # sí: the Spanish key, over Truco's own keys while the question is asked
    status, text = bob.exit_status(timeout=60)
    assert status == 0 and "Traceback" not in text, text


def test_help_speaks_the_language_asked_and_an_unknown_one_is_one_line(tmp_path):
    env = person_env(tmp_path)
    shown = subprocess.run(
        [*TRUTNET, "play", "--help", "--lang", "es"], env=env, capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert said("es", "show this help message and exit") in shown.stdout
    assert said("es", "usage: ").strip() in shown.stdout
    french = subprocess.run(
        [*TRUTNET, "join", "--help"],
        env={**env, "LANG": "fr_FR.UTF-8"},
        capture_output=True,
        text=True,
    )
    assert said("fr", "show this help message and exit") in french.stdout
    refused = subprocess.run(
        [*TRUTNET, "play", "--lang", "de"], env=env, capture_output=True, text=True
    )
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "trutnet: --lang de: trutnet speaks en (English), fr (Français), es (Español)"
    ]
