"""LAN discovery of tables with zeroconf (I/O edge): a host announces its table
(:mod:`.announce`); ``join`` and ``tables`` find the live ones (:mod:`.browse`); which
address of this machine its LAN reaches, to bind a host's broker (:mod:`.interfaces`)."""
