"""Benchmark registry: the `a2abench.benchmarks` entry-point group plus in-process additions.

tau2 and CRMArena are registered through the same entry points a third-party package uses
(pyproject.toml `[project.entry-points."a2abench.benchmarks"]`).
"""

from __future__ import annotations

import functools
import sys
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

from a2abench.errors import ConfigError

if TYPE_CHECKING:  # imported by get_driver: `run --help` lists names without the engine
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
    found = {ep.name for ep in _group()}
    return sorted(found | set(_extra))


def source(name: str) -> str | None:
    """The entry point (`module:Class`) that alone registers `name`, without loading it; None
    for an in-process registration, an unknown name or one that several packages register."""
    if name in _extra:
        return None
    found = [ep.value for ep in _group() if ep.name == name]
    return found[0] if len(found) == 1 else None


def _group() -> tuple[EntryPoint, ...]:
    """The process's entry points in GROUP. Scanning every installed distribution's metadata
    costs ~10-30 ms and a run, a card or a serve-green request asks many times, so the scan is
    kept per `sys.path` (what can change it within a process); a package installed while the
    process runs is found at its next start, as its imports would be."""
    return _scan(tuple(sys.path))


@functools.lru_cache(maxsize=8)
def _scan(_path: tuple[str, ...]) -> tuple[EntryPoint, ...]:
    return tuple(entry_points(group=GROUP))


def get_driver(name: str) -> type[Driver]:
    if name in _extra:
        return _extra[name]
    found = [ep for ep in _group() if ep.name == name]
    if not found:
        known = ", ".join(names()) or "none"
        raise ConfigError(f"unknown benchmark {name!r} (registered: {known})",
                          hint="Install the package that provides it.")
    if len(found) > 1:  # e.g. a third-party package registering "tau2" beside ours
        packages = ", ".join(sorted(_package(ep) for ep in found))
        raise ConfigError(f"benchmark {name!r} is registered by more than one package "
                          f"({packages}); a2abench will not pick one silently",
                          hint="Uninstall the package that should not provide it.")
    ep = found[0]
    try:
        driver = ep.load()
    except Exception as exc:  # a plugin's own import error: name it, without a traceback
        raise ConfigError(f"benchmark {name!r} ({ep.value}, from {_package(ep)}) could not "
                          f"be loaded: {type(exc).__name__}: {exc}",
                          hint="Reinstall or fix that package.") from None
    from a2abench.run.driver import Driver

    if not (isinstance(driver, type) and issubclass(driver, Driver)):
        raise ConfigError(f"entry point {ep.value} for benchmark {name!r} is not an "
                          "a2abench Driver subclass")
    return driver


def _package(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else f"the package of {ep.value}"
