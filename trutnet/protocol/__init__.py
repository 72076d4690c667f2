"""The table protocol: messages, the signed log, the table state machine, and
spectators (:mod:`.spectator`) (sans-I/O).

It depends on ``trutnet.engine`` and ``trutnet.crypto`` only, and touches no socket,
clock or event loop. Today :mod:`.table` and :mod:`.lobby` still import the Trut plugin
itself; ``pyproject.toml`` lists those imports, which go when the table runs every game
from the engine's hidden-information description (issue 11).
"""
