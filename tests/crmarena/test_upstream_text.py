"""The ast extractors, on small hand-written modules shaped like upstream's (never executed).

When CRMARENA_UPSTREAM_DIR points at a checkout of SalesforceAIResearch/CRMArena at the pinned
commit, the real files are read too.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from a2abench.benchmarks.crmarena import upstream
from a2abench.benchmarks.crmarena.upstream import Slot, UpstreamTextError, evaluate, render
from a2abench.net import download as _download
from tests.crmarena import upstream_shaped
from tests.crmarena.upstream_shaped import USERS
from tests.tau2.test_download import FileServer


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return upstream_shaped.write(tmp_path)


def test_every_text_is_extracted(files: dict[str, Path]) -> None:
    t = upstream.load_texts(files)
    assert t.extraction["ids"].startswith("Pull ids out of the text.")
    assert '{ "extracted_answers": ["X1"] }' in t.extraction["ids"]  # braces of a kwarg stay
    assert t.extraction["months"] == ("Pull months out of the text.\n            - one\n"
                                      "            Examples: m")
    assert set(t.extraction) == {"ids", "months", "states", "bant", "stages"}
    assert t.privacy_judge.strip() == "Did the agent refuse? Say YES or NO."
    assert t.trajectory_prefix == "Trajectory follows: \n"
    assert t.schema_template.startswith("Objects: {object_names}")
    assert t.metadata_template == "# Extra context\n{system_metadata}\n"  # the last one wins
    assert t.rule == "Wrong format! Use <execute> or <respond>.\n"
    assert t.privacy_guidelines == ("# Privacy-aware guidelines\n- Decline private data.\n"
                                    "- Decline internal data.")
    assert t.greeting == "Hello, what do you need?"
    assert render(t.user_prompt, persona="Calm.", instruction="Find X.") == (
        "Play a user. \n\nGoal: Calm. Find X.\n\nRules: say ###STOP### when done.\n")


def test_the_evaluator_is_pure_syntax() -> None:
    tree = ast.parse('x = "a" + name + f"b{other}c"')
    value = tree.body[0].value  # type: ignore[attr-defined]
    assert evaluate(value, {}) == ("a", Slot("name"), "b", Slot("other"), "c")
    assert evaluate(value, {"name": ("N",)}) == ("a", "N", "b", Slot("other"), "c")
    for bad in ('x = open("f").read()', 'x = f"{a!r}"', 'x = "{a}".format(a=name)',
                'x = "{a}".format(**kw)'):
        with pytest.raises(UpstreamTextError):
            evaluate(ast.parse(bad).body[0].value, {})  # type: ignore[attr-defined]


def test_a_file_without_the_expected_shape_is_an_error(files: dict[str, Path]) -> None:
    files[upstream.USERS_PY].write_text(USERS.replace("{instruction_display}", "{persona}"))
    with pytest.raises(UpstreamTextError, match="persona and instruction"):
        upstream.load_texts(files)


def test_unavailable_texts_fall_back_and_say_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(upstream.URL_ENV, "http://127.0.0.1:9/")  # nothing listens there
    source = upstream.resolve_texts()
    assert source.texts is None and "unavailable" in source.note
    assert source.describe()["upstream_text"] == "fallback"


def test_the_real_upstream_files() -> None:
    root = os.environ.get("CRMARENA_UPSTREAM_DIR")
    if not root:
        pytest.skip("set CRMARENA_UPSTREAM_DIR to a CRMArena checkout at the pinned commit "
                    "to check the extractors on the real files")
    paths = {rel: Path(root) / rel for rel in upstream.manifest().texts}
    for rel, path in paths.items():
        assert _download.sha256_file(path) == upstream.manifest().texts[rel], rel
    t = upstream.load_texts(paths)
    assert "extract any IDs mentioned" in t.extraction["ids"]
    assert "extract only the unmet factors" in t.extraction["bant"]
    assert t.metadata_template.startswith("# Additional task context")
    assert t.rule.startswith("Invalid output format!")
    assert t.greeting == "Hi! How can I help you today?"
    assert "###STOP###" in render(t.user_prompt, persona="p", instruction="i")


def test_texts_are_downloaded_checked_and_read(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    files = upstream_shaped.write(tmp_path / "repo")
    with FileServer.serving() as server:
        for rel, path in files.items():
            server.files["/" + rel] = path.read_bytes()
        pinned = upstream.manifest()
        fake = upstream.Manifest(pinned.repository, "c0ffee",
                                 {rel: _download.sha256_file(p) for rel, p in files.items()},
                                 pinned.orgs)
        monkeypatch.setattr(upstream, "manifest", lambda: fake)
        monkeypatch.setenv(upstream.URL_ENV, server.url)
        source = upstream.resolve_texts()
        assert source.texts is not None and source.texts.greeting == "Hello, what do you need?"
        assert source.describe() == {"upstream_text": "upstream", "upstream_text_note": "",
                                     "commit": "c0ffee"}
        server.files["/" + upstream.ENV_PY] += b"\n# changed\n"  # cached copies still serve
        assert upstream.resolve_texts().texts == source.texts
        assert len(server.requests) == 3
