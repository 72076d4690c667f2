"""trutnet: peer-to-peer card games on a LAN, with mental-poker dealing.

Dependencies point inward: ``cli`` (with the ``selfplay`` and ``bench`` it runs) ->
``games`` (each game's front-end and bots) -> ``client`` -> ``runtime`` -> its I/O
edge (``discovery``, ``net``, ``keystore``, ``store``) -> ``protocol`` and ``bots`` ->
``engine``, ``crypto`` and ``plugins`` (the plugin loader), which know nothing of each
other. Only the engine and ``games`` name a game. ``lint-imports`` checks it: the
contracts are ``[tool.importlinter]`` in ``pyproject.toml``.
"""

__version__ = "0.1.0"
