"""Tests of the game lutin."""
