"""Tests of the game truco."""
