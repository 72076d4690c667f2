"""Tests of the game trut."""
