"""Benchmarks that plug into the run engine (registered under `a2abench.benchmarks`)."""
