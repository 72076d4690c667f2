"""Benchmarks behind ``trutnet bench``: they print figures and assert nothing."""
