"""What people see and read: the terminal client for one seat or a spectator
(:mod:`.app`), the table screen as text (:mod:`.view`), and the narration of game
events (:mod:`.narration`), which ``selfplay --verbose`` and ``verify`` print too."""
