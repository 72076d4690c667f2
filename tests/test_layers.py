"""The layering is a checked contract: ``lint-imports`` keeps every contract of
``[tool.importlinter]`` in pyproject.toml (cli -> client -> runtime -> I/O edge ->
protocol -> engine, crypto; a pure engine, protocol and crypto; no game named below the
engine but the listed imports that issue 11 removes). ``scripts/test.sh`` runs it after
ruff; this test makes a bare ``pytest`` enforce it too.
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
