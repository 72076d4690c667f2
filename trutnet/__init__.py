"""trutnet: peer-to-peer card games on a LAN, with mental-poker dealing.

Dependencies point inward: ``cli`` (with the ``selfplay`` and ``bench`` it runs) ->
``games`` (each game's front-end and bots) -> ``client`` -> ``runtime`` -> its I/O
edge (``discovery``, ``net``, ``keystore``, ``store``) -> ``protocol`` and ``bots`` ->
``engine``, ``crypto`` and ``plugins`` (the plugin loader), which know nothing of each
other. Only ``games`` names a game: each game's package holds its rules
(``games/<game>/rules``, above nothing but the engine), its front-end and its bots.
``lint-imports`` checks it: the contracts are ``[tool.importlinter]`` in
``pyproject.toml``.

Importing trutnet wires the two that know nothing of each other: the engine's registry
loads the game plugins (:func:`trutnet.plugins.load_plugins`) when asked for a game it
does not know.
"""

from trutnet.engine.registry import set_plugin_loader
from trutnet.plugins import load_plugins

__version__ = "0.1.0"

set_plugin_loader(load_plugins)
