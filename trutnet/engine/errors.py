"""Errors raised by game engines.

Every refusal names the rule it enforces, so that a user, a log or a blame record can
say *why* an action was refused. Raising one never changes the state.
"""


class EngineError(Exception):
    """Base class of every error an engine raises on purpose."""


class NotationError(EngineError, ValueError):
    """A piece of action or card notation does not parse."""


class IllegalAction(EngineError):
    """An action that the rules forbid in the current state.

    ``rule`` is the id of the rule broken: a ruling id of the game's annex
    (``docs/games/``), or a short engine rule name such as ``"turn"``.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class HiddenCard(EngineError):
    """The engine was asked for a card identity that this replica does not know."""


class ConfigError(EngineError, ValueError):
    """A game configuration (players, variant, options, start position) is invalid."""
