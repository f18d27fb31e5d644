"""`import httpx` without its command-line tool.

httpx's package imports its own CLI (`httpx._main`: click, rich.progress, rich.syntax and
pygments' lexers) whenever click and rich are installed, as they are beside a2abench: about
half of httpx's import, ~0.15 s of CPU in every command that talks HTTP. Unless httpx is
already imported, this finder answers that one import with a stand-in that loads the real
module the first time any of its names is used (httpx itself only keeps `main`).
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

_NAME = "httpx._main"


class _StandIn:
    """A meta path finder and loader by protocol: `importlib.abc` would import
    importlib.resources and tempfile into every command, --help too."""

    active = True

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != _NAME or not self.active:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        vars(module)["main"] = _main
        vars(module)["__getattr__"] = _real_attribute  # any other name (PEP 562)


_FINDER = _StandIn()


def _real() -> types.ModuleType:
    """httpx's CLI module, loaded now (in place of the stand-in)."""
    _FINDER.active = False
    loaded = sys.modules.get(_NAME)
    if loaded is not None and getattr(loaded.__spec__, "loader", None) is _FINDER:
        del sys.modules[_NAME]  # the stand-in: the real module takes its place once
    import httpx._main as real

    return real


def _main(*args: Any, **kwargs: Any) -> Any:
    return _real().main(*args, **kwargs)


def _real_attribute(name: str) -> Any:
    if name.startswith("__"):  # the import system's own probes (`__path__`, ...)
        raise AttributeError(name)
    return getattr(_real(), name)


if "httpx" not in sys.modules:
    sys.meta_path.insert(0, _FINDER)
