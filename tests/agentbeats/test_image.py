"""The image recipe (examples/agentbeats/Dockerfile) and its workflow (.github/workflows/
image.yml), read as text: what the platform and operators rely on. The image itself was built
and run by hand (docs/serve-green.md, "The image, built and run here"); CI has no Docker."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.clihelp import run_cli
from tests.green.helpers import green_server
from tests.servers import serve

ROOT = Path(__file__).parents[2]
DOCKERFILE = (ROOT / "examples/agentbeats/Dockerfile").read_text()


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n\s*", " ", "\n".join(
        line for line in DOCKERFILE.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1])
            for line in text.splitlines() if line.strip()]


def test_the_healthcheck_and_the_entrypoint_are_the_image_s_own_python() -> None:
    ops = instructions()
    (check,) = [args for op, args in ops if op == "HEALTHCHECK"]
    probe = json.loads(check.split("CMD", 1)[1])
    assert probe == ["python", "/opt/a2abench/entrypoint.py", "--healthcheck"]
    assert "curl" not in check and "wget" not in check  # neither is in a slim image
    (entry,) = [json.loads(args) for op, args in ops if op == "ENTRYPOINT"]
    assert entry == ["python", "/opt/a2abench/entrypoint.py"]
    assert ("COPY", "examples/agentbeats/entrypoint.py /opt/a2abench/entrypoint.py") in ops


def test_the_base_image_and_every_dependency_are_pinned() -> None:
    ops = instructions()
    base = next(args for op, args in ops if op == "ARG" and args.startswith("BASE_IMAGE="))
    assert re.fullmatch(r"BASE_IMAGE=python:3\.11-slim@sha256:[0-9a-f]{64}", base)
    assert ("FROM", "${BASE_IMAGE}") in ops
    installs = [args for op, args in ops if op == "RUN" and "pip install" in args]
    assert installs[0] == ("pip install --no-cache-dir --require-hashes -r "
                           "/tmp/requirements.lock")
    assert "--no-deps /tmp/a2abench" in installs[1] and "rm -rf /tmp/a2abench" in installs[1]
    lock = (ROOT / "examples/agentbeats/requirements.lock").read_text()
    pins = re.findall(r"^([a-z0-9._-]+)==", lock, re.MULTILINE)
    assert {"httpx", "a2a-sdk", "datasets", "grpcio"} <= set(pins)
    hashed = re.findall(r"^[a-z0-9._-]+==[^\\\n]*(?: \\\n +--hash=sha256:[0-9a-f]{64})+",
                        lock, re.MULTILINE)  # a pin, its markers, then its hashes
    assert len(hashed) == len(pins)  # every pin carries its hashes


def test_nothing_is_left_behind_and_the_image_is_closed_by_default() -> None:
    ops = instructions()
    workdirs = [args for op, args in ops if op == "WORKDIR"]
    assert workdirs == ["/home/agentbeats"]  # no root-owned app/ folder in the home
    env = " ".join(args for op, args in ops if op == "ENV")
    assert "A2ABENCH_CACHE_DIR=/home/agentbeats/.cache/a2abench" in env
    assert "A2ABENCH_GRPC=false" in env and "A2ABENCH_HOST=0.0.0.0" in env
    assert "A2ABENCH_ALLOW_HOST=@participants" in env
    assert "visible in the image's history" in DOCKERFILE  # the data-mirror argument


def test_the_data_build_argument_runs_a_real_data_pull() -> None:
    ops = instructions()
    assert ("ARG", "A2ABENCH_DATA=none") in ops
    (pull,) = [args for op, args in ops if op == "RUN" and "data pull" in args]
    command = shlex.split(pull.split("then", 1)[1].split(";")[0])
    assert command[1:] == ["a2abench", "data", "pull", "$A2ABENCH_DATA"]
    for which in ("tau2", "crmarena", "all"):
        assert run_cli("data", "pull", "--help").code == 0
        assert which in run_cli("data", "pull", "--help").out


def test_the_workflow_builds_checks_and_pushes_on_tags() -> None:
    flow = yaml.safe_load((ROOT / ".github/workflows/image.yml").read_text())
    test, push = flow["jobs"]["test"], flow["jobs"]["push"]
    steps = test["steps"] + push["steps"]
    builds = [s for s in steps if "docker/build-push-action" in s.get("uses", "")]
    assert all(s["with"]["platforms"] == "linux/amd64" for s in builds)
    assert all(s["with"]["file"] == "examples/agentbeats/Dockerfile" for s in builds)
    assert [s["with"]["push"] for s in test["steps"] if s in builds] == [False]
    assert [s["with"]["push"] for s in push["steps"] if s in builds] == [True]
    script = "\n".join(s.get("run", "") for s in test["steps"])
    assert "--internal" in script and "smoke_assessment.py" in script
    assert "Health.Status" in script and "agent-card.json" in script
    assert "started open" in script  # the image refuses to start open, checked first


def test_only_the_push_job_writes_packages_and_never_for_a_pull_request() -> None:
    flow = yaml.safe_load((ROOT / ".github/workflows/image.yml").read_text())
    assert flow["permissions"] == {"contents": "read"}
    assert flow["jobs"]["test"]["permissions"] == {"contents": "read"}
    push = flow["jobs"]["push"]
    assert push["permissions"] == {"contents": "read", "packages": "write"}
    assert push["needs"] == "test"
    assert push["if"] == "github.event_name == 'push' && startsWith(github.ref, 'refs/tags/v')"


def test_every_action_is_pinned_by_commit() -> None:
    flow = yaml.safe_load((ROOT / ".github/workflows/image.yml").read_text())
    uses = [s["uses"] for job in flow["jobs"].values() for s in job["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses


@pytest.mark.slow
def test_the_smoke_assessment_script(tmp_path: Path) -> None:
    """The workflow's client, run as a script against a green agent and an echo agent."""
    from a2abench.green import GreenSettings
    from a2abench.run.registry import unregister
    from tests.agents import echo_agent
    from tests.engine.scripted import install

    install()
    try:
        with serve(echo_agent) as white, green_server(
                GreenSettings(output_dir=tmp_path)) as (green, _):
            done = subprocess.run(
                [sys.executable, str(ROOT / "examples/agentbeats/smoke_assessment.py"), green,
                 white, json.dumps({"benchmark": "scripted", "tasks": 2, "shard_index": 0,
                                    "num_shards": 1})],
                capture_output=True, text=True, timeout=120)
    finally:
        unregister("scripted")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["task_trials"] == 2
