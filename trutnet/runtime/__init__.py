"""The peer runtime (asyncio): one process's seats at a table, running the protocol
over MQTT with each seat's files (:mod:`.table_runtime`, which coordinates its rooms:
sync, succession, replacement, notices, the end, health), hosting and joining
(:mod:`.seat_process`, the lobby seen by a joiner in :mod:`.lobby_watch`), resuming a
seat (:mod:`.resuming`), and following a table as a spectator (:mod:`.watch`). The
command line and the terminal client stand on it; it knows neither."""
