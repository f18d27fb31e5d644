"""Rendering for humans and scripts (Rich / plain / JSON): run events, reports, consoles.

Used by the CLI only; the core (run, report, green, benchmarks) never imports Rich or this
package.
"""
