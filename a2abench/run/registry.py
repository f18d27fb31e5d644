"""Benchmark registry: the `a2abench.benchmarks` entry-point group plus in-process additions.

tau2 and CRMArena are registered through the same entry points a third-party package uses
(pyproject.toml `[project.entry-points."a2abench.benchmarks"]`).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from a2abench.errors import ConfigError
from a2abench.run.driver import Driver

GROUP = "a2abench.benchmarks"
_extra: dict[str, type[Driver]] = {}


def register(name: str, driver: type[Driver]) -> None:
    """Register a driver in this process (tests, notebooks)."""
    _extra[name] = driver


def unregister(name: str) -> None:
    _extra.pop(name, None)


def names() -> list[str]:
    """Every registered benchmark name, without importing the drivers."""
    found = {ep.name for ep in entry_points(group=GROUP)}
    return sorted(found | set(_extra))


def get_driver(name: str) -> type[Driver]:
    if name in _extra:
        return _extra[name]
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            driver = ep.load()
            if not (isinstance(driver, type) and issubclass(driver, Driver)):
                raise ConfigError(f"entry point {ep.value} for benchmark {name!r} is not an "
                                  "a2abench Driver subclass")
            return driver
    known = ", ".join(names()) or "none"
    raise ConfigError(f"unknown benchmark {name!r} (registered: {known})",
                      hint="Install the package that provides it.")
