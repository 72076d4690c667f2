"""Tests of crypto."""
