"""Game plugins above the engine: each sub-package is one whole game, registered when
the sub-package is imported: its rules (``rules/``, implementing
:mod:`trutnet.engine.api`, above nothing but the engine), its front-end (its part of
the terminal client's screen, its narration, help and keys) and its bots. Nothing
outside a game's package imports it by name: the plugin loader (:mod:`trutnet.plugins`)
finds them through the ``trutnet.games`` entry points."""
