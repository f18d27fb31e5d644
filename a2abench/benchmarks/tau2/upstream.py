"""Upstream prose, read at run time from upstream's own source files (never executed).

Tool and parameter descriptions, `$defs` field descriptions, the NL-assertion judge prompt and
the agent instruction are upstream's text. We do not ship them: the source files are fetched
at the pinned commit like the data (sha256-verified, see `data.py`) and the strings are pulled
out with `ast`. Tool descriptions go through `docstring_parser`, as upstream's `Tool` does.
When the files are unavailable, `fallback_texts` gives neutral descriptions of our own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from docstring_parser import parse as parse_docstring

from a2abench.benchmarks.tau2.db import StateDB
from a2abench.benchmarks.tau2.toolkit import CLASS_DOC, Toolkit, ToolText, ToolTexts


def _module(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_tool_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Name) and target.id in {"is_tool", "is_discoverable_tool"}


def docstring_text(name: str, docstring: str | None, params: list[str]) -> ToolText:
    """Upstream `Tool._get_description` and per-parameter descriptions for one docstring."""
    doc = parse_docstring(docstring or "")
    short, long = doc.short_description or "", doc.long_description or ""
    description = name if not short else short if not long else short + "\n\n" + long
    documented = {p.arg_name: p.description for p in doc.params}
    # Upstream only attaches a description to documented parameters.
    return ToolText(description, {p: d for p in params if (d := documented.get(p)) is not None})


def extract_tool_texts(path: Path) -> dict[str, ToolText]:
    """Texts of every `@is_tool` method defined in a toolkit source file."""
    out: dict[str, ToolText] = {}
    for node in ast.walk(_module(path)):
        if not isinstance(node, ast.FunctionDef):
            continue
        if not any(_is_tool_decorator(d) for d in node.decorator_list):
            continue
        params = [a.arg for a in node.args.args + node.args.kwonlyargs if a.arg != "self"]
        out[node.name] = docstring_text(node.name, ast.get_docstring(node, clean=False), params)
    return out


def _description_of(call: ast.expr | None) -> str | None:
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Field":
        for keyword in call.keywords:
            if keyword.arg == "description":
                value = ast.literal_eval(keyword.value)
                return value if isinstance(value, str) else None
    return None


def _field_description(stmt: ast.AnnAssign) -> str | None:
    found = _description_of(stmt.value)
    anno = stmt.annotation
    if found is None and isinstance(anno, ast.Subscript) and isinstance(anno.slice, ast.Tuple):
        for element in anno.slice.elts[1:]:  # Annotated[T, Field(description=...)]
            found = found or _description_of(element)
    return found


def extract_model_texts(path: Path) -> dict[str, dict[str, str]]:
    """`{class name: {field: description}}` for the pydantic models of a data-model file,
    including fields inherited from classes of the same file."""
    classes = {n.name: n for n in _module(path).body if isinstance(n, ast.ClassDef)}

    def texts(name: str) -> dict[str, str]:
        out = fields(name)
        doc = ast.get_docstring(classes[name], clean=True)
        if doc:  # pydantic puts a model's cleaned docstring in its schema
            out[CLASS_DOC] = doc
        return out

    def fields(name: str, seen: frozenset[str] = frozenset()) -> dict[str, str]:
        node = classes.get(name)
        if node is None or name in seen:
            return {}
        out: dict[str, str] = {}
        for base in node.bases:
            if isinstance(base, ast.Name):
                out.update(fields(base.id, seen | {name}))
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                desc = _field_description(stmt)
                if desc is not None:
                    out[stmt.target.id] = desc
                else:
                    out.pop(stmt.target.id, None)
        return out

    return {name: texts(name) for name in classes}


def load_tool_texts(tools_files: list[Path], model_files: list[Path]) -> ToolTexts:
    tools: dict[str, ToolText] = {}
    for path in tools_files:
        tools.update(extract_tool_texts(path))
    models: dict[str, dict[str, str]] = {}
    for path in model_files:
        models.update(extract_model_texts(path))
    return ToolTexts("upstream", tools, models)


def fallback_texts(*toolkits: type[Toolkit[StateDB]], summaries: dict[str, str]) -> ToolTexts:
    """Neutral descriptions of our own: a one-line summary per tool, generated parameter text."""
    tools: dict[str, ToolText] = {}
    for kit in toolkits:
        for name, d in kit.tool_defs().items():
            params = {p: f"The {p.replace('_', ' ')}." for p in d.param_names}
            tools[name] = ToolText(summaries.get(name, name.replace("_", " ").capitalize()),
                                   params)
    return ToolTexts("fallback", tools, {})


@dataclass(frozen=True)
class JudgePrompt:
    """Upstream's NL-assertion judge prompt: system text and the user template's pieces."""

    system: str
    user_parts: tuple[str | None, ...]  # None marks a placeholder, in order

    def render(self, trajectory: str, assertions: str) -> str:
        values = iter([trajectory, assertions])
        return "".join(part if part is not None else next(values) for part in self.user_parts)


def extract_judge_prompt(path: Path) -> JudgePrompt:
    """`system_prompt` and the `user_prompt` f-string of upstream's NL-assertions evaluator."""
    system: str | None = None
    user: tuple[str | None, ...] | None = None
    for node in ast.walk(_module(path)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        if name == "system_prompt" and system is None and isinstance(node.value, ast.Constant):
            system = str(node.value.value)
        elif name == "user_prompt" and user is None and isinstance(node.value, ast.JoinedStr):
            user = tuple(str(v.value) if isinstance(v, ast.Constant) else None
                         for v in node.value.values)
    if system is None or user is None or user.count(None) != 2:
        raise ValueError(f"no NL-assertion judge prompt found in {path}")
    return JudgePrompt(system, user)


def extract_string_constant(path: Path, name: str) -> str:
    """A module-level string constant (e.g. upstream's `AGENT_INSTRUCTION`), `.strip()`ped
    when the source strips it."""
    for node in _module(path).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
            strip = False
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr == "strip" and not value.args):
                value, strip = value.func.value, True
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value.strip() if strip else value.value
    raise ValueError(f"no string constant {name} in {path}")
