"""`a2abench rate`: Bradley–Terry ratings per role over multi-party runs."""

from pathlib import Path
from typing import Annotated

import typer

from a2abench.cli import _common as c


def rate(
    paths: Annotated[list[Path], typer.Argument(
        help="Run directories or metrics.jsonl files of multi-party runs, or AgentBeats "
             "results files (.json).", show_default=False)],
    format: Annotated[str, c.opt("--format", "table | json | markdown.")] = "table",
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="A2ABENCH_RATE_OUTPUT", help="Write the ratings to this file.",
        show_default=False)] = None,
    bootstrap: Annotated[int, c.opt("--bootstrap", "Bootstrap resamples of tasks for the "
                                                   "intervals (0: none).", min=0,
                                    max=100_000)] = 500,
    bootstrap_seed: Annotated[int, c.opt("--bootstrap-seed", "Seed of the bootstrap (the same "
                                                             "seed, the same output).")] = 0,
    few: Annotated[int, c.opt("--few", "Flag pairs with fewer comparisons than this.",
                              min=1)] = 10,
) -> None:
    """Rate the participants of each role (Bradley–Terry, anchored to the role's reference
    partner at 1000, draws as half-wins, bootstrap intervals over tasks).

    Example: a2abench rate runs/dual-a runs/dual-b results/submission.json --format markdown
    """
    from a2abench.errors import ConfigError, write_output
    from a2abench.rating import rate as rate_runs
    from a2abench.rating.text import to_json, to_markdown, to_table

    renderers = {"table": to_table, "json": to_json, "markdown": to_markdown}
    if format not in renderers:
        raise ConfigError(f"--format {format!r} is not one of table, json, markdown")
    for path in paths:
        if output is not None and path.exists() and output.exists() and path.samefile(output):
            raise ConfigError(f"--output {output} is one of the input files",
                              hint="Write the ratings to another path.")
    text = renderers[format](rate_runs(paths, bootstrap=bootstrap, seed=bootstrap_seed,
                                       few=few))
    if output is not None:
        write_output(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        typer.echo(text)
