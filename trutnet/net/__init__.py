"""Transports that carry table entries between peers (I/O edge)."""
