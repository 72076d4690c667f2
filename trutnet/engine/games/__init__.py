"""Game plugins; each sub-package implements :mod:`trutnet.engine.api` for one game."""
