"""`a2abench run <name>` for benchmarks that third-party packages register."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._launch import common_config, launch


def plugin_command(name: str) -> Any:
    """A click command with the shared run flags plus `--option KEY=VALUE`."""
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.command(name, help=f"Run the {name} benchmark (registered by an installed package).")
    def run_plugin(
        white_agent_url: c.WhiteAgentUrl,
        option: Annotated[list[str] | None, c.opt(
            "--option", "Benchmark option KEY=VALUE (repeatable; values may be JSON).",
            show_default=False)] = None,
        task_ids: c.TaskIds = None,
        max_tasks: c.MaxTasks = None,
        num_trials: c.NumTrials = 1,
        concurrency: c.Concurrency = 4,
        seed: c.Seed = 300,
        output: c.OutputPath = None,
        resume: c.Resume = False,
        retry_errors: c.RetryErrors = False,
        shard: c.Shard = None,
        rate_limit: c.RateLimit = None,
        max_consecutive_failures: c.MaxConsecutiveFailures = 5,
        retries: c.Retries = 3,
        retry_delay: c.RetryDelay = 0.5,
        auth_token: c.AuthToken = None,
        timeout: c.Timeout = 300.0,
        fail_under: c.FailUnder = None,
        json_: c.JsonFlag = False,
    ) -> None:
        from a2abench.cli._report import _pairs

        launch(common_config(
            name, _pairs(option or []), white_agent_url=white_agent_url,
            auth_token=auth_token, timeout=timeout, task_ids=task_ids, max_tasks=max_tasks,
            num_trials=num_trials, concurrency=concurrency, rate_limit=rate_limit, seed=seed,
            output=output, resume=resume, retry_errors=retry_errors, shard=shard,
            fail_under=fail_under, max_consecutive_failures=max_consecutive_failures,
            retries=retries, retry_delay=retry_delay), json_)

    command = typer.main.get_command(app)
    command.name = name
    return command
