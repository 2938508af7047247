"""Benchmarks: ``make bench`` (``python -m bench``) and the reindex timing script."""
