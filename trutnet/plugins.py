"""Where game plugins come from, and loading them.

A game plugin is a module that registers a game's parts when it is imported: its
engine (:func:`trutnet.engine.register_game`), its bots
(:func:`trutnet.bots.register_bots`) and its screen
(:func:`trutnet.client.frontend.register_frontend`). A process finds plugin modules

* in the ``trutnet.games`` entry point group of every installed distribution
  (``[project.entry-points."trutnet.games"]`` in a ``pyproject.toml``: the value is a
  module, or ``module:function`` for a function to call once, after the import; trutnet
  declares its own plugins there, and a third party's package adds a game the
  same way);
* in :data:`BUILT_IN`, trutnet's own plugins, loaded even when the installed package's
  metadata predates the entry point (an editable install made before it was declared);
* in ``$TRUTNET_GAME_PLUGINS``: module names, comma-separated.

The registries load the plugins when they are asked for a game they do not know
(:func:`load_plugins`: the bots' and the front-ends' call it, the engine's through the
loader that importing :mod:`trutnet` installs, since the pure engine may not import this
module), and the command line loads them first, to report a plugin that
cannot be loaded. This module knows no game but by the module names of
:data:`BUILT_IN`, and imports them only by name.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from dataclasses import dataclass

GROUP = "trutnet.games"
PLUGINS_VARIABLE = "TRUTNET_GAME_PLUGINS"
# trutnet's own plugins, by entry point name (they are also declared in pyproject.toml).
BUILT_IN = {
    "trut": "trutnet.games.trut",
    "truco": "trutnet.games.truco",
    "lutin": "trutnet.games.lutin",
}
DEFAULT_GAME = next(iter(BUILT_IN))  # the game a command plays unless told: the first one
MAX_REPORTED = 300  # characters of an import error kept in a problem's line
_called: set[str] = set()  # the ``module:function`` plugins already run in this process


@dataclass(frozen=True)
class PluginProblem:
    """A plugin module that could not be loaded, and why."""

    source: str  # an entry point's name, or PLUGINS_VARIABLE
    target: str  # the module (or module:function)
    error: str

    @property
    def from_variable(self) -> bool:
        """Named by ``$TRUTNET_GAME_PLUGINS``: the person asked for it just now."""
        return self.source == PLUGINS_VARIABLE

    def __str__(self) -> str:
        where = f"${self.source}" if self.from_variable else f"entry point {self.source!r}"
        return f"{where}: cannot load {self.target!r}: {self.error}"


# The entry points read, for the search path they were read on: reading the installed
# metadata takes tens of milliseconds, and every registry lookup loads the plugins.
_scanned: dict[tuple[object, ...], dict[str, str]] = {}


def entry_point_modules() -> dict[str, str]:
    """The plugin modules of the ``trutnet.games`` entry points, by name, and the
    built-in ones that the installed metadata does not declare. The metadata is read
    once per search path (``sys.path``)."""
    key = (importlib.metadata.entry_points, *sys.path)
    if key not in _scanned:
        _scanned.clear()
        groups = importlib.metadata.entry_points(group=GROUP)
        _scanned[key] = {ep.name: ep.value for ep in groups}
    found = dict(_scanned[key])
    for name, module in BUILT_IN.items():
        found.setdefault(name, module)
    return found


def variable_modules(value: str | None = None) -> list[str]:
    """The module names of ``$TRUTNET_GAME_PLUGINS`` (or of ``value``)."""
    text = os.environ.get(PLUGINS_VARIABLE, "") if value is None else value
    return [name.strip() for name in text.split(",") if name.strip()]


def load_plugins(value: str | None = None) -> list[PluginProblem]:
    """Import every plugin module (entry points, built-in, then ``$TRUTNET_GAME_PLUGINS``
    or ``value``); a module already imported costs nothing. Returns what went wrong,
    one problem per module that could not be loaded (the others are loaded anyway)."""
    problems = []
    sources = list(entry_point_modules().items())
    sources += [(PLUGINS_VARIABLE, module) for module in variable_modules(value)]
    for where, target in sources:
        module, _, function = target.partition(":")
        try:
            loaded = importlib.import_module(module.strip())
            if function and target not in _called:
                getattr(loaded, function.strip())()
                _called.add(target)
        except Exception as exc:
            what = f"{type(exc).__name__}: {exc}"[:MAX_REPORTED]
            problems.append(PluginProblem(where, target, what))
    return problems
