"""Helpers shared by the benchmark scripts (run them from the project root)."""

from __future__ import annotations

import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def machine() -> str:
    import os

    return (f"Python {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.machine()}")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000
