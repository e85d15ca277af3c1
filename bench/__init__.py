"""Benchmarks, not tests: run from the checkout as modules, `.venv/bin/python -m bench.NAME` (bench/README.md)."""
