"""Every word on a table's screen goes through the catalogs (trutnet/i18n.py), for every
registered game, a seat's screen and a spectator's, and a saved game's replay.

A pseudo-language proves it: each marked string is shown with its letters swapped for
accented ones (``Your turn`` -> ``Ýöür tüŕñ``), so a run of plain letters left on the
screen is a string nobody marked. Then French and Spanish: the same screens, real
catalogs, still 80x24.
"""

from __future__ import annotations

import gettext
import re

import pytest

from trutnet import i18n
from trutnet.engine import make_game
from trutnet.plugins import BUILT_IN, load_plugins

load_plugins()
GAMES = sorted(BUILT_IN)
SWAP = str.maketrans(
    "abcdeghiklmnoprstuwyzABCDEGHIKLMNOPRSTUWYZ",
    "áƀçđéĝĥíķĺɱñöþŕšţüŵýžÁƁÇĐÉĜĤÍĶĹṀÑÖÞŔŠŢÜŴÝŽ",
)
FIELD = re.compile(r"(\{[^{}]*\}|%\(\w+\)[a-z]|%[a-z])")
# Names, not words: the players' (made up here), and the games' own names
NAMES = ["Ñàñá", "Þéþé", "Çúçú", "Ðödö", "Ŵíŵí", "Ĝàĝà"]
PROPER = {"Trut", "Truco", "Lutin", "Troll", "Deluxe", "Tab", "Esc"}  # and two keys
# Truco's calls are its players' words in every language (docs/languages.md), shown as
# the log has them, and its cards' notation names the Spanish suits
PROPER |= {"envido", "real", "falta", "truco", "retruco", "vale", "cuatro", "flor"}
PROPER |= {"contraflor", "resto", "quiero", "mazo", "esp", "bas", "cop", "oro"}


class Pseudo(gettext.NullTranslations):
    """Every message, letters swapped (its fields kept as they are)."""

    def gettext(self, message: str) -> str:
        return "".join(p if FIELD.fullmatch(p) else p.translate(SWAP) for p in FIELD.split(message))

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.gettext(singular if n == 1 else plural)


@pytest.fixture
def pseudo(monkeypatch):
    i18n.use("fr")
    monkeypatch.setattr(i18n, "_translations", Pseudo())
    yield
    i18n.use("en")


def _screens(name: str, language_check):
    """Screens of a seeded game of ``name``: each seat's and a spectator's, every few moves."""
    from tests.games.seen_screens import seen_screens
    from trutnet.client.view import TableInfo, key_bar, plain, table_lines

    players = make_game(name).num_players()
    for front, obs, me in seen_screens(name, seed=5, every=15, moves=300):
        info = TableInfo(names=NAMES[:players], fingerprints=[""] * players, me=me)
        language_check(plain(table_lines(front, obs, info)), (name, me))
        language_check(key_bar(front, obs, info), (name, me, "keys"))


def _untranslated(text: str) -> list[str]:
    words = re.findall(r"(?<![^\W\d_])[A-Za-z]{3,}(?![^\W\d_])", text)
    return [w for w in words if w not in PROPER]


@pytest.mark.parametrize("name", GAMES)
def test_every_word_of_a_table_screen_is_marked_for_translation(name, pseudo):
    def check(text: str, where: object) -> None:
        left = _untranslated(text)
        assert not left, f"{where}: not marked for translation: {sorted(set(left))}\n{text}"

    _screens(name, check)


@pytest.mark.parametrize("language", ["fr", "es"])
@pytest.mark.parametrize("name", GAMES)
def test_a_table_screen_in_french_and_spanish_fits_80x24(name, language):
    i18n.use(language)
    try:

        def check(text: str, where: object) -> None:
            rows = text.splitlines()
            assert len(rows) <= 24 and all(len(r) <= 80 for r in rows), (where, rows)

        _screens(name, check)
    finally:
        i18n.use("en")


def test_the_four_suits_are_four_colours_and_each_card_shows_its_suit():
    """No cue is colour alone (issue 22, item 6): Trut's French suits and Truco's Spanish
    ones each have a colour of their own in the frame's style, and the card's text
    names its suit (a sign, or Truco's letters) whatever the colour."""
    from trutnet.client.app import STYLE
    from trutnet.games.truco import screen as truco
    from trutnet.games.trut.rules.cards import SUIT_SYMBOLS, Card
    from trutnet.games.trut.screen import card_text

    styles = {name for name, _ in STYLE.style_rules}
    french = {suit: card_text(Card("7", suit)) for suit in SUIT_SYMBOLS}
    assert len({style for style, _ in french.values()}) == 4
    assert all(text.endswith(SUIT_SYMBOLS[suit]) for suit, (_, text) in french.items())
    spanish = {suit: truco.card_part(f"7{suit}") for suit in "ebco"}
    assert len({style for style, _ in spanish.values()}) == 4
    assert [text for _, text in spanish.values()] == ["7esp", "7bas", "7cop", "7oro"]
    for style, _ in [*french.values(), *spanish.values()]:
        assert style.removeprefix("class:") in styles, style


@pytest.fixture
def french():
    i18n.use("fr")
    yield
    i18n.use("en")


def test_the_games_options_and_their_refusals_speak_the_persons_language(french, capsys):
    """The declarations' helps come from each game's catalog, the allowed values are
    listed with the language's "or", and a refusal says them so (a typo of a variant
    gets the one meant)."""
    from trutnet.cli import main
    from trutnet.client.lobby_view import game_summary

    assert main(["play", "--option", "help", "--lang", "fr"]) == 0
    listing = capsys.readouterr().out
    assert "Trut (--game trut) : 2, 3, 4 ou 6 joueurs." in listing, listing
    assert "combien jouent : seuls à 2 ou 3, en deux équipes à 4 ou 6 (T2)" in listing
    assert "players=2|3|4|6 (par défaut 2 ;" in listing  # play's own count, not the game's
    from trutnet.cli import _parser

    helped = " ".join(_parser()._subparsers._group_actions[0].choices["play"].format_help().split())
    assert "(Truco : 2, 3, 4, 6 ou 8 ; Trut : 2, 3, 4 ou 6)" in helped  # French punctuation
    refused = [
        (["--game", "truco", "--option", "chicos=2"], "chicos vaut 3 ou 1 (K30, K31)"),
        (["--variant", "gatinais"], "vouliez-vous dire gatinaise ?"),
        (["--players", "5"], "le jeu trut se joue à 2, 3, 4 ou 6 joueurs"),
        (["--name", ""], "--name : un nom fait 1..32 caractères imprimables, pas ''"),
        (["--clock", "30s"], "une horloge est SECONDES pour chaque décision"),
        (["--game", "truco", "--option", "flor=maybe"], "--option flor=maybe : flor vaut"),
    ]
    for args, said in refused:
        try:
            status = main(["play", *args, "--lang", "fr"])
        except SystemExit as exc:  # argparse's own refusal
            status = exc.code
        assert status == 2
        error = " ".join(capsys.readouterr().err.split())
        assert said in error and " or " not in error, error
    # a table's announced variant, in the lobby and the LAN's listing
    assert game_summary("Trut", "classic deluxe", 2) == "Trut (classique deluxe), 2 joueurs"


def test_numbers_are_written_as_the_language_writes_them(french, capsys):
    """A decimal comma in French (16,708 is not sixteen thousand): the summaries of
    ``sim``, ``selfplay`` and ``arena`` and the waits a join reports."""
    from trutnet.cli import main

    assert (i18n.number(16.708), i18n.number(2.0), i18n.number(3.14159, 2)) == (
        "16,708",
        "2",
        "3,14",
    )
    assert main(["sim", "--game", "lutin", "--hands", "1", "--lang", "fr"]) == 0
    said = capsys.readouterr().out
    assert re.search(r" \d+(,\d+)? exécutions/s, \d+(,\d+)? mains/s \(\d+,\d+ mains par s", said), (
        said
    )
    i18n.use("en")
    assert i18n.number(16.708) == "16.708"


def test_a_file_that_cannot_be_read_is_said_in_the_persons_language(french, tmp_path, capsys):
    """The system's reasons (its words are English) and the JSON parser's, in French."""
    from trutnet.cli import main

    (tmp_path / "text.json").write_text("hello")
    cases = [
        (tmp_path / "none.json", "aucun fichier ou dossier de ce nom"),
        (tmp_path, "c'est un dossier, pas un fichier"),
        (tmp_path / "text.json", "pas du JSON (ligne 1, colonne 1)"),
    ]
    for path, said in cases:
        assert main(["verify", str(path), "--lang", "fr"]) == 2
        error = capsys.readouterr().err
        assert said in error and "No such" not in error and "Expecting" not in error, error


@pytest.mark.parametrize("language", ["fr", "es"])
@pytest.mark.parametrize("name", GAMES)
def test_the_way_out_is_never_cut_off_the_key_bar(name, language):
    """Every key bar a seat meets keeps its last key whole, q to leave, in a language
    whose words are longer ("q quitt…" ended the French bar of Lutin & Troll's choice):
    the help key gives way first."""
    from trutnet.client.frontend import frontend_for
    from trutnet.client.view import TableInfo, key_bar, text_width
    from trutnet.memory_table import new_memory_table, step

    i18n.use(language)
    try:
        game = make_game(name, {"players": 2} if name != "lutin" else {})
        table = new_memory_table(game, "bars", ["random"] * game.num_players())
        frontend = frontend_for(name)
        info = TableInfo(names=["Ana", "Bob"], fingerprints=["a", "b"], me=0)
        bars = set()
        for _ in range(800):
            if not step(table):
                break
            state = table.peers[0].replica.state
            if state is not None and state.observation(0).to_act == 0:
                bars.add(key_bar(frontend, state.observation(0), info))
        leave = i18n._("q quit")
        assert len(bars) >= 2, bars
        for bar in bars:
            assert bar.endswith(leave) and text_width(bar) <= 80, bar
    finally:
        i18n.use("en")


def test_the_benchmarks_report_in_the_persons_language(french, capsys):
    """``bench``'s reports (engine, protocol) and the bots' decision times in French:
    their words, not only their numbers."""
    from trutnet.cli import main

    assert main(["bench", "engine", "--games", "2", "--lang", "fr"]) == 0
    engine = capsys.readouterr().out
    assert engine.startswith("banc d'essai du moteur : trut") and " mains/s " in engine, engine
    assert main(["bench", "protocol", "--game", "lutin", "--lang", "fr"]) == 0
    protocol = capsys.readouterr().out
    assert "médiane par main" in protocol and "combats :" in protocol, protocol
    for said in (engine, protocol):
        assert not re.search(r"\b(benchmark|hands|games per row|median|whole game)\b", said)
