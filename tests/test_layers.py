"""The layering is a checked contract: ``lint-imports`` keeps every contract of
``[tool.importlinter]`` in pyproject.toml (cli -> games -> client -> runtime -> I/O
edge -> protocol -> engine, crypto; a pure engine, rules, protocol and crypto; each
game's rules on the engine alone, its front-end and bots on its rules, the games
independent of each other; no game named outside ``trutnet/games``, not even through
another module). ``scripts/test.sh`` runs
it after ruff; this test makes a bare ``pytest`` enforce it too, and plants forbidden
imports in a copy of the tree to see each contract break.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# lint-imports as a console script may not be on PATH; its click command is.
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def test_every_import_contract_is_kept():
    run = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=ROOT,  # the tree under test, whatever trutnet is installed elsewhere
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout and "KEPT" in run.stdout


# Each planted import breaks the contract named (the layers, or a game named where none
# may be): lint-imports must say so, or the contract guards nothing.
PLANTED = [
    ("trutnet/client/app.py", "from trutnet.games.trut.rules import TrutGame", "client core"),
    ("trutnet/client/view.py", "import trutnet.games.trut", "client core"),
    ("trutnet/selfplay.py", "import trutnet.games.trut.heuristic", "client core"),
    ("trutnet/cli/games.py", "from trutnet.games.trut.rules import TrutConfig", "client core"),
    ("trutnet/bots/base.py", "import trutnet.games.trut.rules", "bots name no game"),
    ("trutnet/runtime/watch.py", "import trutnet.games.trut.frontend", "Layers"),
    ("trutnet/games/trut/screen.py", "import trutnet.cli", "Layers"),
    # the chain protocol -> engine registry -> a game: "name no game" allows no indirection
    ("trutnet/engine/registry.py", "import trutnet.games.trut", "bots name no game"),
    ("trutnet/games/truco/rules/bets.py", "import trutnet.client.view", "rules stand on"),
    ("trutnet/games/lutin/rules/powers.py", "import time", "are pure"),
    (
        "trutnet/games/trut/rules/words.py",
        "import trutnet.games.trut.narration",
        "stand on the rules",
    ),
    ("trutnet/games/truco/heuristic.py", "import trutnet.games.trut.rules", "each other"),
]


def test_a_planted_import_breaks_its_contract(tmp_path):
    import shutil

    for name in ("trutnet", "pyproject.toml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    for path, line, contract in PLANTED:
        module = tmp_path / path
        kept = module.read_text()
        module.write_text(kept + f"\n{line}  # planted\n")
        try:
            run = subprocess.run(
                [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
                cwd=tmp_path,  # the copy, with the planted import
                capture_output=True,
                text=True,
                timeout=60,
            )
        finally:
            module.write_text(kept)
        broken = run.stdout.split("Broken contracts", 1)[-1]
        assert run.returncode != 0 and "BROKEN" in run.stdout, (path, line, run.stdout[-2000:])
        assert contract in broken, (path, line, broken[:2000])
