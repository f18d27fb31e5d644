"""a2abench: benchmark any A2A agent on tau2-bench and CRMArena with official-fidelity scores."""

from a2abench import _httpx_cli  # noqa: F401 (first: httpx is then imported without its CLI)
from a2abench._version import __version__
from a2abench.errors import (
    A2ABenchError,
    AgentError,
    ConfigError,
    DataError,
    InfrastructureError,
)

__all__ = [
    "A2ABenchError",
    "AgentError",
    "ConfigError",
    "DataError",
    "InfrastructureError",
    "__version__",
]
