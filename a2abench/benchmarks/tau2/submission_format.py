"""`report --format tau2-submission`: the leaderboard directory, as a driver export format.

Its options become `report` flags (`--model-name`, ...) through the generated flag table."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from a2abench.plugin import ConfigError, ExportFormat, ExportResult, option


class SubmissionOptions(BaseModel):
    """Who evaluated what, as the leaderboard's submission.json states it."""

    model_config = ConfigDict(extra="forbid")

    model_name: str | None = option(None, "the evaluated model/agent.", show_default=False)
    model_organization: str | None = option(None, "who made the model.", show_default=False)
    submitting_organization: str | None = option(
        None, "who ran the evaluation [default: --model-organization].", show_default=False)
    contact_email: str | None = option(None, "contact e-mail.", show_default=False)
    contact_name: str | None = option(None, "contact name.", show_default=False)
    submission_notes: str | None = option(None, "extra methodology notes.",
                                          show_default=False)


def write_submission(paths: list[Path], output: Path | None,
                     options: SubmissionOptions) -> ExportResult:
    from a2abench.benchmarks.tau2.submission import SubmissionMeta, build_submission

    o = options
    missing = [flag for flag, value in (("--output DIR", output), ("--model-name", o.model_name),
                                        ("--model-organization", o.model_organization),
                                        ("--contact-email", o.contact_email)) if not value]
    if missing:
        raise ConfigError(f"--format tau2-submission needs {', '.join(missing)}",
                          hint="e.g. --output submission/ --model-name my-agent "
                               "--model-organization me --contact-email me@example.org")
    assert output is not None and o.model_name and o.model_organization and o.contact_email
    if output.exists() and not output.is_dir():
        raise ConfigError(f"--output {output} is a file; --format tau2-submission writes a "
                          "directory (submission.json and trajectories/)",
                          hint="Pass a new or empty directory, e.g. --output submission/")
    meta = SubmissionMeta(o.model_name, o.model_organization,
                          o.submitting_organization or o.model_organization, o.contact_email,
                          o.contact_name, o.submission_notes)
    result = build_submission(paths, output, meta)
    lines = [f"{domain}: " + ", ".join(f"{k}={v:.1f}" for k, v in scores.items()
                                       if k.startswith("pass_") and v is not None)
             for domain, scores in result.results.items()]
    lines.append(f"wrote {result.directory / 'submission.json'} and "
                 f"{result.directory / 'trajectories'}/")
    return ExportResult(tuple(lines), tuple(result.warnings))


SUBMISSION = ExportFormat("tau2-submission", SubmissionOptions, write_submission,
                          "a leaderboard directory")
