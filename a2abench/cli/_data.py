"""`a2abench data pull|status`: fill and inspect the cache of pinned benchmark data."""

from typing import TYPE_CHECKING, Annotated

import typer

from a2abench.cli import _common as c

if TYPE_CHECKING:
    from a2abench.data import SetStatus
    from a2abench.render.output import Output

app = typer.Typer(
    help="Download pinned benchmark data into the cache, or show what is cached.\n\n"
         "Example: a2abench data pull all",
    no_args_is_help=True, rich_markup_mode=None, cls=c.Group)

Which = Annotated[str, typer.Argument(help="A benchmark (tau2, crmarena, or a plugin's that "
                                            "declares data sets) or all.")]


@app.command("pull")
def pull(
    which: Which = "all",
    org_dbs: Annotated[bool, c.opt(
        "--org-dbs/--no-org-dbs",
        "Also the large sets: CRMArena's SQLite org dumps (about 100 MB).")] = True,
    json_: c.JsonFlag = False,
) -> None:
    """Download and verify the pinned data files of a benchmark; cached files are kept.

    A2ABENCH_DATA_MIRROR (a mirror of the raw-file host) and A2ABENCH_TAU2_DATA_URL /
    A2ABENCH_CRMARENA_DATA_URL redirect the downloads; A2ABENCH_CACHE_DIR moves the cache.

    Example: a2abench data pull tau2
    """
    from a2abench import data
    from a2abench.render.output import Output

    out = Output.for_command(json_)
    sets = data.file_sets(data.selected(which), org_dbs=org_dbs)
    result = data.pull(sets, on_set=lambda fs: out.err.print(
        f"pulling {fs.benchmark} {fs.name} ({len(fs.files)} files)", markup=False,
        highlight=False))
    _show(result, out, json_)


@app.command("status")
def status(
    which: Which = "all",
    json_: c.JsonFlag = False,
) -> None:
    """Show what is cached, where, and whether each file matches its pinned checksum.

    Example: a2abench data status --json
    """
    from a2abench import data
    from a2abench.render.output import Output

    out = Output.for_command(json_)
    _show(data.status(data.file_sets(data.selected(which))), out, json_)


def _show(result: "list[SetStatus]", out: "Output", json_: bool) -> None:
    if json_:
        out.emit_json([s.to_dict() for s in result])
        return
    for s in result:
        missing, corrupt = s.count("missing"), s.count("corrupt")
        state = "verified" if s.complete else ", ".join(
            part for part in (f"{missing} missing" if missing else "",
                              f"{corrupt} corrupt" if corrupt else "") if part)
        files = f"{len(s.states)} file" + ("s" if len(s.states) != 1 else "")
        out.out.print(f"{s.fileset.benchmark} {s.fileset.name}: {files}, {state}  {s.location}"
                      f"\n    {s.fileset.purpose}", markup=False, highlight=False)
    if not all(s.complete for s in result):
        out.out.print("Fill the cache with: a2abench data pull all", markup=False)
