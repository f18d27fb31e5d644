"""`report --format tau2-submission`: flags to `build_submission`, then what was written."""

from __future__ import annotations

from pathlib import Path


def write_submission(paths: list[Path], output: Path | None, model_name: str | None,
                     model_organization: str | None, submitting_organization: str | None,
                     contact_email: str | None, contact_name: str | None,
                     notes: str | None) -> None:
    from a2abench.benchmarks.tau2.submission import SubmissionMeta, build_submission
    from a2abench.errors import ConfigError
    from a2abench.render.output import Output

    missing = [flag for flag, value in (("--output DIR", output), ("--model-name", model_name),
                                        ("--model-organization", model_organization),
                                        ("--contact-email", contact_email)) if not value]
    if missing:
        raise ConfigError(f"--format tau2-submission needs {', '.join(missing)}",
                          hint="e.g. --output submission/ --model-name my-agent "
                               "--model-organization me --contact-email me@example.org")
    assert output is not None and model_name and model_organization and contact_email
    if output.exists() and not output.is_dir():
        raise ConfigError(f"--output {output} is a file; --format tau2-submission writes a "
                          "directory (submission.json and trajectories/)",
                          hint="Pass a new or empty directory, e.g. --output submission/")
    meta = SubmissionMeta(model_name, model_organization,
                          submitting_organization or model_organization, contact_email,
                          contact_name, notes)
    result = build_submission(paths, output, meta)
    out = Output.for_command(False)
    for warning in result.warnings:
        out.warn(warning)
    for domain, scores in result.results.items():
        shown = ", ".join(f"{k}={v:.1f}" for k, v in scores.items()
                          if k.startswith("pass_") and v is not None)
        out.err.print(f"{domain}: {shown}", markup=False)
    out.err.print(f"wrote {result.directory / 'submission.json'} and "
                  f"{result.directory / 'trajectories'}/", markup=False)
