"""The table protocol: messages, the signed log, the table state machine, and
spectators (:mod:`.spectator`) (sans-I/O).

It depends on ``trutnet.engine`` and ``trutnet.crypto`` only, and touches no socket,
clock or event loop. It names no game: a table builds the game its ``open`` entry names
through the engine's registry and runs it from the engine's hidden-information
description (:mod:`.table` says how, and which module owns what).
"""
