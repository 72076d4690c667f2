"""The peer runtime (asyncio): one process's seats at a table, running the protocol
over MQTT with each seat's files (:mod:`.table_runtime`), hosting, joining or
resuming a seat (:mod:`.seat_process`), and following a table as a spectator
(:mod:`.watch`). The command line and the terminal client stand on it; it knows
neither."""
