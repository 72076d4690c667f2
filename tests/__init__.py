"""The test suite, in folders like the code's: crypto, engine, protocol, net, runtime,
cli, client, bots, sim, and one folder per game under games/ (with the contract every
registered game keeps). Helpers shared across folders stay here."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent  # this folder: golden games, vectors
ROOT = TESTS.parent  # the repository
