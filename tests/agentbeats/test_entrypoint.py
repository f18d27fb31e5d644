"""The image's entrypoint (examples/agentbeats/entrypoint.py), run here as the image runs it:
it refuses to serve 0.0.0.0 without a bearer token unless told the container is isolated,
and its health check probes the port the server was started with, `--port` included. (No
Docker engine runs here: the script is tested directly, with the image's environment.)"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from a2abench.green import GreenSettings
from tests.green.helpers import green_server

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "examples/agentbeats/entrypoint.py"
IMAGE_ENV = {"A2ABENCH_HOST": "0.0.0.0", "A2ABENCH_PORT": "9009"}


def entrypoint() -> ModuleType:
    spec = importlib.util.spec_from_file_location("image_entrypoint", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("A2ABENCH_")}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env={**base, "A2ABENCH_PORT_FILE": str(tmp_path / "port"), **env},
                          timeout=120)


def test_the_image_refuses_to_start_open(tmp_path: Path) -> None:
    done = run(["--card-url", "http://green:9009/"], IMAGE_ENV, tmp_path)
    assert done.returncode == 2
    assert "with no bearer token" in done.stderr and "A2ABENCH_AUTH_TOKEN" in done.stderr
    assert "A2ABENCH_ALLOW_OPEN=1" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "port").exists()  # nothing started


@pytest.mark.parametrize("env", [{"A2ABENCH_AUTH_TOKEN": "s3cret"},
                                 {"A2ABENCH_ALLOW_OPEN": "1"}], ids=["token", "allow-open"])
def test_a_token_or_an_explicit_open_starts_serve_green(
        tmp_path: Path, env: dict[str, str]) -> None:
    # --help: serve-green answers and exits, which shows the exec reached it.
    done = run(["--port", "8080", "--help"], {**IMAGE_ENV, **env}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "serve-green" in done.stdout
    assert (tmp_path / "port").read_text() == "8080"


@pytest.mark.parametrize(("args", "env", "refused"), [
    (["--host", "127.0.0.1"], IMAGE_ENV, False),  # loopback only: nobody else can reach it
    (["--host=::1"], IMAGE_ENV, False),
    ([], {}, False),  # serve-green's own default binds loopback
    (["--host", "10.1.2.3"], {}, True),
    (["--host", "0.0.0.0", "--auth-token", "t"], {}, False),
    ([], {**IMAGE_ENV, "A2ABENCH_AUTH_TOKEN": "  "}, True),  # a blank token is no token
    ([], {**IMAGE_ENV, "A2ABENCH_ALLOW_OPEN": "yes"}, True),  # only 1 says so
])
def test_which_starts_are_open(args: list[str], env: dict[str, str], refused: bool) -> None:
    assert (entrypoint().refusal(args, env) is not None) is refused


def test_the_health_check_follows_the_port_given_as_an_argument(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = entrypoint()
    monkeypatch.setattr(module, "PORT_FILE", tmp_path / "port")
    with green_server(GreenSettings(output_dir=tmp_path / "runs")) as (base, _):
        port = base.rsplit(":", 1)[1].strip("/")
        # The platform passed --port PORT; the environment still says 9009.
        module.PORT_FILE.write_text(module.port(["--port", port], IMAGE_ENV))
        assert module.healthcheck(IMAGE_ENV) == 0
        module.PORT_FILE.write_text("9")  # nothing listens there
        assert module.healthcheck(IMAGE_ENV) == 1
