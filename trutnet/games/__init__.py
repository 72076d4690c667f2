"""Game plugins above the engine: each sub-package is one game's front-end (its part of
the terminal client's screen, its narration, help and keys) and its bots, registered
when the sub-package is imported. The engine of each game is in
:mod:`trutnet.engine.games`. Nothing imports these packages by name: the plugin loader
(:mod:`trutnet.plugins`) finds them through the ``trutnet.games`` entry points."""
