"""The command tree, exit codes, output modes and fast start."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import a2abench
from a2abench.render.output import Output, OutputMode, choose_mode
from tests import agents
from tests.clihelp import run_cli
from tests.servers import serve
from tests.waits import HANG_S

HEAVY = ("a2a", "httpx", "openai", "datasets", "simple_salesforce")


def test_public_surface_is_pinned() -> None:
    import types

    public = sorted(n for n, v in vars(a2abench).items()
                    if (not n.startswith("_") or n == "__version__")
                    and not isinstance(v, types.ModuleType))
    assert sorted(a2abench.__all__) == public


def test_version() -> None:
    r = run_cli("--version")
    assert r.code == 0 and r.out.strip() == f"a2abench {a2abench.__version__}"


def test_help_lists_the_whole_tree_and_exit_codes() -> None:
    r = run_cli("--help")
    assert r.code == 0
    for command in ("discover", "run", "serve-green", "report"):
        assert command in r.out
    assert "130 interrupted" in r.out
    run = run_cli("run", "--help")
    assert "tau2" in run.out and "crmarena" in run.out


def test_usage_error_exits_2() -> None:
    r = run_cli("run", "tau2", "--concurrency", "zero", "--white-agent-url", "http://x")
    assert r.code == 2
    assert run_cli("no-such-command").code == 2
    assert run_cli("discover").code == 2


def test_flags_read_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2ABENCH_TIMEOUT", "-1")
    assert run_cli("discover", "http://127.0.0.1:1").code == 2


HELP = [["--help"], ["discover", "--help"], ["run", "tau2", "--help"],
        ["run", "crmarena", "--help"], ["serve-green", "--help"], ["report", "--help"],
        ["data", "--help"], ["data", "pull", "--help"]]


@pytest.fixture(scope="module")
def loaded_by_help() -> list[set[str]]:
    """One fresh interpreter runs every --help of HELP in turn and lists, after each, the
    top-level modules loaded so far: imports only add, so a command that imports something
    heavy shows it in its own list (and a lighter list proves each command before it)."""
    code = ("import sys\nfrom a2abench.cli import main\n"
            f"for args in {HELP!r}:\n"
            "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
            "    print(sorted({m.split('.')[0] for m in sys.modules}), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == len(HELP), proc.stderr
    return [set(json.loads(line.replace("'", '"'))) for line in lines]


@pytest.mark.parametrize("args", HELP, ids=" ".join)
def test_fast_start_imports_nothing_heavy(args: list[str],
                                          loaded_by_help: list[set[str]]) -> None:
    loaded = loaded_by_help[HELP.index(args)]
    # pydantic too: its import is most of a slow sub-command --help (cli/_common.Group).
    assert not loaded & {*HEAVY, "pydantic"}, loaded & {*HEAVY, "pydantic"}
    # nor importlib.abc's importlib.resources and tempfile (~25 ms a start, _httpx_cli.py)
    assert "tempfile" not in loaded


def test_httpx_comes_without_its_command_line_tool() -> None:
    # Imported after a2abench, httpx leaves out its own CLI (click, rich.syntax, pygments'
    # lexers: ~0.15 s of every command that talks HTTP), which still runs when called.
    code = ("import sys\nimport a2abench, httpx\n"
            "print(sorted({'click', 'pygments.lexers', 'rich.syntax'} & set(sys.modules)))\n"
            "from httpx._main import format_request_headers\n"  # any other name loads it too
            "print(format_request_headers.__module__, 'pygments.lexers' in sys.modules)\n"
            "httpx.main(['--help'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("[]\nhttpx._main True\n"), \
        proc.stdout + proc.stderr
    assert "Usage: httpx <URL>" in proc.stdout


@pytest.fixture(scope="module")
def frozen_after() -> dict[str, bool]:
    """One interpreter: `main(["--version"])` as the tests call it, then `main()` as the
    console script does; whether objects were frozen after each (the second at exit)."""
    code = ("import atexit, gc, sys\nfrom a2abench.cli import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print(gc.get_freeze_count() > 0, file=sys.stderr)\n"
            "atexit.register(lambda: print(gc.get_freeze_count() > 0, file=sys.stderr))\n"
            "sys.argv = ['a2abench', '--version']\nmain()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    in_process, console_script = proc.stderr.split()
    return {"in-process": in_process == "True", "console script": console_script == "True"}


@pytest.mark.parametrize("how", ["console script", "in-process"])
def test_the_console_script_leaves_the_exit_collections_nothing_to_walk(
        how: str, frozen_after: dict[str, bool]) -> None:
    """The process ends after `main()`: its objects go to the permanent generation, which
    the interpreter's collections at exit skip (docs/performance.md); a caller that passes
    its own arguments (the tests) keeps collecting."""
    assert frozen_after[how] is (how == "console script")


def test_output_modes(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    assert choose_mode(json_flag=True) is OutputMode.JSON
    assert choose_mode(stream=Tty()) is OutputMode.RICH  # type: ignore[arg-type]
    monkeypatch.setenv("CI", "true")
    assert choose_mode(stream=Tty()) is OutputMode.PLAIN  # type: ignore[arg-type]
    monkeypatch.delenv("CI")
    monkeypatch.setenv("NO_COLOR", "1")
    assert Output(OutputMode.RICH).out.no_color


def test_ctrl_c_exits_130_without_traceback() -> None:
    arrived = threading.Event()
    # The card never comes while the test runs (so only Ctrl-C can end the command), and
    # every wait is a hang bound: a loaded machine took over 20 s to start or to stop it.
    with serve(lambda b: agents.slow_card(b, delay=600, arrived=arrived)) as base:
        proc = subprocess.Popen([sys.executable, "-m", "a2abench", "discover", base,
                                 "--timeout", "600"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        # Interrupt once the command is inside its request (not while Python starts up).
        assert arrived.wait(HANG_S), "the CLI never asked for the card"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 130, err
    assert "Traceback" not in err


def test_boolean_flags_read_their_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.servers import serve

    monkeypatch.setenv("A2ABENCH_PROBE", "false")
    factory = agents.rpc_failing  # a card whose RPC always fails: only a probe would notice
    with serve(factory) as base:
        r = run_cli("discover", base, "--json")
    assert r.code == 0 and json.loads(r.out)["probe"] is None


def test_cli_reference_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "scripts" / "gen_cli_reference.py"
    monkeypatch.syspath_prepend(str(script.parent))  # its sibling _generated.py
    spec = importlib.util.spec_from_file_location("gen_cli_reference", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.TARGET.read_text(encoding="utf-8") == gen.render(), \
        "docs/cli.md is stale: run python scripts/gen_cli_reference.py"


def test_no_private_typer_imports() -> None:
    package = Path(a2abench.__file__).parent
    offenders = [str(p.relative_to(package)) for p in package.rglob("*.py")
                 if re.search(r"typer\._|from typer import _", p.read_text())]
    assert offenders == []


def test_command_modules_do_not_postpone_annotations() -> None:
    # Typer would compile each parameter's annotation string at every start (~20 ms).
    cli = Path(a2abench.__file__).parent / "cli"
    postponed = [p.name for p in cli.glob("*.py")
                 if "Annotated[" in p.read_text()  # declares command parameters
                 and re.search(r"^from __future__ import annotations", p.read_text(), re.M)]
    assert postponed == []


def test_the_command_tree_is_built_once_and_reads_the_environment_per_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The click tree is cached per process (a2abench/cli/__init__.py): flag defaults from
    # A2ABENCH_<FLAG> must still be read at each call, not frozen at the first.
    import a2abench.cli as cli

    monkeypatch.setenv("A2ABENCH_TIMEOUT", "nope")
    first = run_cli("discover", "http://127.0.0.1:9", "--no-probe")
    assert first.code == 2 and "A2ABENCH_TIMEOUT" in first.err
    monkeypatch.setenv("A2ABENCH_TIMEOUT", "5")
    second = run_cli("discover", "http://127.0.0.1:9", "--no-probe")
    assert second.code == 1 and "A2ABENCH_TIMEOUT" not in second.err  # parsed; nobody there
    assert cli._command() is cli._command()


def test_a_bug_in_a_command_keeps_typers_traceback_handling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import typer.main

    import a2abench.discover
    from a2abench.cli import main

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(a2abench.discover, "discover", broken)
    monkeypatch.setattr(sys, "excepthook", sys.__excepthook__)
    with pytest.raises(RuntimeError, match="a bug") as caught:
        main(["discover", "http://127.0.0.1:9"])
    assert sys.excepthook is typer.main.except_hook  # Typer renders it, as `app()` did
    config = getattr(caught.value, typer.main._typer_developer_exception_attr_name)
    assert config.pretty_exceptions_enable and not config.pretty_exceptions_show_locals
