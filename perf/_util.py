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


_last_stat: list[int] = []


def load() -> str:
    """The load average, and the share of CPU time the hypervisor took from this machine
    (steal) since the previous call: a run on a busy host is slower at a low load average."""
    import os

    text = "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return text
    if _last_stat:
        delta = [a - b for a, b in zip(ticks, _last_stat, strict=True)]
        text += f", steal {100 * delta[7] / max(1, sum(delta)):.1f} %"
    _last_stat[:] = ticks
    return text


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def wall(cmd: list[str]) -> float:
    """Seconds one whole process takes (output discarded; a failure stops the benchmark)."""
    import subprocess
    import time

    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def wait_for_card(base: str, what: str, tries: int = 400, verify: str | None = None) -> None:
    """Poll an A2A server's card until it answers (servers started as subprocesses);
    `verify`: the CA file of an https server."""
    import ssl
    import time

    import httpx

    context = ssl.create_default_context(cafile=verify) if verify else True
    for _ in range(tries):
        try:
            httpx.get(base + "/.well-known/agent-card.json", timeout=1, verify=context)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not start")


def tls_files(folder: Path) -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate, server key) as PEM files: a private CA (no
    default bundle trusts it) and a certificate it signed for 127.0.0.1, made with trustme
    (a dev dependency). Give the CA to a2abench as a user would: SSL_CERT_FILE."""
    import trustme

    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca.cert_pem.write_to_path(str(paths[0]))
    cert.cert_chain_pems[0].write_to_path(str(paths[1]))
    cert.private_key_pem.write_to_path(str(paths[2]))
    return paths
