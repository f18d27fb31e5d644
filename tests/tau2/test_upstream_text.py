"""The ast extractors, on small hand-written modules in upstream's style (never executed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2abench.benchmarks.tau2.upstream import (
    docstring_text,
    extract_judge_prompt,
    extract_model_texts,
    extract_string_constant,
    extract_tool_texts,
)
from tests.tau2.tau2_support import domain, upstream_domain

TOOLS = '''
class ShopTools(ToolKitBase):
    @is_tool(ToolType.READ)
    def find(self, name: str, limit: int = 3) -> str:
        """
        Find things by name.

        Looks everywhere,
        twice.

        Args:
            name: The name to look for,
                across two lines.
            limit: How many.
        """
        raise RuntimeError("never executed")

    @is_tool(ToolType.WRITE)
    def short(self, x: str) -> str:
        """Do it."""

    def helper(self, y: str) -> str:
        """Not a tool."""
'''

MODELS = '''
class Base(BaseModel):
    id: str = Field(description="Identifier")
    note: str = Field(default=None, description="A " "note")

class Child(Base):
    size: Annotated[int, Field(description="How big")]
    note: str
'''

JUDGE = '''
class Judge:
    def run(self, trajectory_str, nl_assertions):
        system_prompt = """
        Grade it.
        """
        user_prompt = f"""
        conversation:
        {trajectory_str}
        expectedOutcomes:
        {nl_assertions}
        """
AGENT = """
  Be nice.
""".strip()
'''


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "m.py"
    path.write_text(text)
    return path


def test_tool_texts_follow_upstreams_docstring_rules(tmp_path: Path) -> None:
    texts = extract_tool_texts(_write(tmp_path, TOOLS))
    assert set(texts) == {"find", "short"}
    assert texts["find"].description == "Find things by name.\n\nLooks everywhere,\ntwice."
    assert texts["find"].params == {"name": "The name to look for,\nacross two lines.",
                                    "limit": "How many."}
    assert texts["short"].description == "Do it." and texts["short"].params == {}
    assert docstring_text("bare", None, []).description == "bare"


def test_model_texts_include_inherited_fields_and_annotated(tmp_path: Path) -> None:
    texts = extract_model_texts(_write(tmp_path, MODELS))
    assert texts["Base"] == {"id": "Identifier", "note": "A note"}
    assert texts["Child"] == {"id": "Identifier", "size": "How big"}


def test_judge_prompt_and_constants(tmp_path: Path) -> None:
    path = _write(tmp_path, JUDGE)
    prompt = extract_judge_prompt(path)
    assert prompt.system == "\n        Grade it.\n        "
    rendered = prompt.render("user: hi", "['x']")
    assert rendered == ("\n        conversation:\n        user: hi\n        expectedOutcomes:\n"
                        "        ['x']\n        ")
    assert extract_string_constant(path, "AGENT") == "Be nice."
    with pytest.raises(ValueError, match="no string constant"):
        extract_string_constant(path, "MISSING")
    with pytest.raises(ValueError, match="judge prompt"):
        extract_judge_prompt(_write(tmp_path, MODELS))


def test_fallback_text_is_ours_and_complete() -> None:
    d = domain("airline")
    assert d.tool_text_source == "fallback"
    for schema in d.agent_tool_schemas():
        fn = schema["function"]
        assert fn["description"]
        assert all("description" in p for p in fn["parameters"].get("properties", {}).values())


def test_upstream_text_gives_the_judge_prompt_and_agent_instruction() -> None:
    d = upstream_domain("retail")
    assert d.judge_prompt is not None and d.judge_prompt.user_parts.count(None) == 2
    assert d.agent_instruction and "<policy>" in d.agent_instruction
