"""What people see and read: the terminal client for one seat or a spectator
(:mod:`.app`), the frame of every table screen as text (:mod:`.view`), and the
interface through which a game fills it (:mod:`.frontend`: its table area, narration,
help, keys and prompts, registered by the game's plugin). It names no game."""
