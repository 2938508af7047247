"""Benchmark scenarios that run in their own process (no server involved)."""
