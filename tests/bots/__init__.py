"""Tests of bots."""
