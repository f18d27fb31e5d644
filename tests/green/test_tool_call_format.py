"""serve-green takes `tool_call_format` (issue 18 item 3) as `run tau2 --tool-call-format`."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.green import GreenSettings, RequestRejected, parse_request, plan_run

AGENT = "http://purple:9019"


@pytest.mark.parametrize("key", ["tool_call_format", "tool-call-format"])
def test_the_config_key_reaches_the_tau2_driver(tmp_path: Path, key: str) -> None:
    request = parse_request([], [{"participants": {"agent": AGENT}, "config": {
        "benchmark": "tau2", "domain": "mock", key: "tags"}}], ["tau2", "crmarena"])
    planned = plan_run(request, GreenSettings(output_dir=tmp_path), "0123456789abcdef")
    assert planned.driver.options.tool_call_format == "tags"
    assert planned.config.options["tool_call_format"] == "tags"


def test_an_unknown_format_is_rejected(tmp_path: Path) -> None:
    request = parse_request([], [{"participants": {"agent": AGENT}, "config": {
        "benchmark": "tau2", "tool_call_format": "xml"}}], ["tau2"])
    with pytest.raises(RequestRejected, match="tool_call_format: Input should be 'any'"):
        plan_run(request, GreenSettings(output_dir=tmp_path), "0123456789abcdef")
