"""LAN discovery of tables with zeroconf (I/O edge). Empty until the network issue."""
