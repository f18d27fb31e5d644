"""Option types shared by several commands. Each flag also reads A2ABENCH_<FLAG>."""

from pathlib import Path
from typing import Annotated, Any

import typer

from a2abench.cli._flags import table_option
from a2abench.options import env_var


def opt(flag: str, help: str, **kwargs: Any) -> typer.models.OptionInfo:
    """An option that also reads `A2ABENCH_<FLAG>`."""
    option: typer.models.OptionInfo = typer.Option(
        flag, envvar=env_var(flag), help=help, **kwargs)
    return option


JsonFlag = Annotated[bool, opt("--json", "Print machine-readable JSON on stdout; "
                                         "everything else goes to stderr.")]

# Run flags that other commands share, as declared on RunConfig (defaults may differ: they
# stay with each command's parameter).
Timeout = Annotated[float, table_option("timeout")]
Transport = Annotated[str | None, table_option("transport")]
AuthToken = Annotated[str | None, table_option("auth_token")]
CaCert = Annotated[Path | None, table_option("ca_cert")]
MaxReplyBytes = Annotated[int, table_option("max_reply_bytes")]
FailUnder = Annotated[float | None, table_option("fail_under")]
AllowIncomplete = Annotated[bool, table_option("allow_incomplete")]


class Group(typer.core.TyperGroup):
    """A command group whose `--help` flag defaults to False instead of None.

    Typer coerces every processed value that is not already a bool through a pydantic
    TypeAdapter, built on first use; a group's own `--help`, absent from `a2abench run tau2
    --help`, arrives as None, and building that one adapter imports pydantic (~80 ms, half of
    a sub-command's help). A bool default skips it; parsing and help text are unchanged.
    """

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option
