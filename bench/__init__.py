"""Benchmarks: `python -m bench` prints throughput and memory. Never run by the tests."""
