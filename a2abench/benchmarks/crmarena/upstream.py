"""Upstream CRMArena files, fetched at a pinned commit: prose read with `ast`, and the org DBs.

Scores depend on upstream's exact prose: the evaluator's extraction prompts and privacy judge
prompt (`crm_sandbox/env/env.py`), the invalid-format rule, the schema layout and the
privacy-aware guidelines (`crm_sandbox/agents/prompts.py`), and the user simulator's prompt
(`crm_sandbox/env/users.py`). We do not ship them: the files are downloaded from the pinned
commit (sha256-checked, `manifest.json`) and the strings are evaluated from the syntax tree,
never executed. Some prompts are built in `__init__` with `.format(...)` on a template; a
small evaluator handles string constants, `+`, f-strings, `.format(**literals)` and
`.strip()`, and leaves the variables of a template as named slots.

The SQLite org dumps (`local_data/*.db`) are pinned by their git blob ids at that commit.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from a2abench.plugin import DataError, RemoteFile, ensure_files
from a2abench.plugin.provisional import raw_base

URL_ENV = "A2ABENCH_CRMARENA_DATA_URL"  # a mirror of the raw files (tests point it at loopback)
ENV_PY = "crm_sandbox/env/env.py"
PROMPTS_PY = "crm_sandbox/agents/prompts.py"
USERS_PY = "crm_sandbox/env/users.py"
# Evaluator attributes holding the extraction prompts, by the kind of answer they extract.
EXTRACTION_ATTRS = {"ids": "id_system_prompt", "months": "month_system_prompt",
                    "states": "state_system_prompt", "bant": "bant_system_prompt",
                    "stages": "opportunity_stage_system_prompt"}


class UpstreamTextError(ValueError):
    """An upstream file does not have the shape the extractors expect."""


@dataclass(frozen=True)
class Manifest:
    repository: str
    commit: str
    texts: dict[str, str]  # repo path -> sha256
    orgs: dict[str, tuple[str, str]]  # org -> (repo path, git blob sha1)
    sizes: dict[str, int] = field(default_factory=dict)  # text repo path -> bytes


@cache
def manifest() -> Manifest:
    raw = json.loads(resources.files(__package__).joinpath("manifest.json").read_text())
    return Manifest(raw["repository"], raw["commit"],
                    {p: meta["sha256"] for p, meta in raw["texts"].items()},
                    {org: (meta["path"], meta["git_blob_sha1"])
                     for org, meta in raw["orgs"].items()},
                    {p: meta["size"] for p, meta in raw["texts"].items()})


def _base(base_url: str | None) -> str:
    m = manifest()
    base = base_url or os.environ.get(URL_ENV) or raw_base(m.repository, m.commit)
    return base if base.endswith("/") else base + "/"


def folder() -> str:
    """Cache folder (under the user cache) of the files at the pinned commit."""
    return f"crmarena/{manifest().commit}"


def text_files(base_url: str | None = None) -> list[RemoteFile]:
    m = manifest()
    return [RemoteFile(p, _base(base_url) + p, sha, size=m.sizes.get(p))
            for p, sha in m.texts.items()]


def org_file(org: str, base_url: str | None = None) -> RemoteFile:
    path, blob = manifest().orgs[org]
    return RemoteFile(path, _base(base_url) + path, git_blob_sha1=blob)


ORG_HINT = "Check the network connection and retry, or pass --crm-db PATH (a local copy)"


def fetch_texts(base_url: str | None = None) -> dict[str, Path]:
    """Local, verified copies of the three prose files (downloaded once into the cache)."""
    return ensure_files(text_files(base_url), folder=folder())


def org_database(org: str, base_url: str | None = None) -> Path:
    """The published SQLite dump of `org`, downloaded once and checked by its git blob id."""
    item = org_file(org, base_url)
    return ensure_files([item], folder=folder(), hint=ORG_HINT, timeout=300.0)[item.path]


# --------------------------------------------------------------------------- templates


@dataclass(frozen=True)
class Slot:
    """A variable left open in a template (e.g. `persona`)."""

    name: str


Template = tuple["str | Slot", ...]


def render(template: Template, **values: str) -> str:
    return "".join(p if isinstance(p, str) else values[p.name] for p in template)


def _literal(template: Template, node: ast.AST) -> str:
    if any(isinstance(p, Slot) for p in template):
        raise UpstreamTextError(f"line {getattr(node, 'lineno', '?')}: expected a literal string")
    return "".join(p for p in template if isinstance(p, str))


def evaluate(node: ast.expr, env: dict[str, Template]) -> Template:
    """A string expression as a template; unknown names become slots."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Name):
        return env.get(node.id, (Slot(node.id),))
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and f"{node.value.id}.{node.attr}" in env):
        return env[f"{node.value.id}.{node.attr}"]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return evaluate(node.left, env) + evaluate(node.right, env)
    if isinstance(node, ast.JoinedStr):
        out: Template = ()
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.conversion != -1 or value.format_spec is not None:
                    raise UpstreamTextError(f"line {node.lineno}: formatted f-string field")
                out += evaluate(value.value, env)
            else:
                out += evaluate(value, env)
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = _literal(evaluate(node.func.value, env), node)
        if node.func.attr == "strip" and not node.args and not node.keywords:
            return (base.strip(),)
        if node.func.attr == "format" and not node.args:
            kwargs = {k.arg: _literal(evaluate(k.value, env), k.value) for k in node.keywords
                      if k.arg is not None}
            if len(kwargs) != len(node.keywords):
                raise UpstreamTextError(f"line {node.lineno}: **kwargs in .format()")
            return (base.format(**kwargs),)
    raise UpstreamTextError(f"line {getattr(node, 'lineno', '?')}: unsupported expression "
                            f"{type(node).__name__}")


def _assign_target(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name):
            return target.id, stmt.value
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            return f"{target.value.id}.{target.attr}", stmt.value
    return None


def _module(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _find_function(tree: ast.AST, name: str, owner: str | None = None) -> ast.FunctionDef:
    scopes: Sequence[ast.AST] = [tree]
    if owner is not None:
        scopes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == owner]
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
    raise UpstreamTextError(f"no function {owner + '.' if owner else ''}{name}")


def assignments(body: Sequence[ast.stmt], names: Sequence[str]) -> dict[str, Template]:
    """Evaluate, in order, the assignments to `names` in `body` (a later one wins, as in
    Python); each sees the values assigned before it."""
    env: dict[str, Template] = {}
    wanted = set(names)
    for stmt in body:
        found = _assign_target(stmt)
        if found and found[0] in wanted:
            env[found[0]] = evaluate(found[1], env)
    missing = [n for n in names if n not in env]
    if missing:
        raise UpstreamTextError(f"no assignment to {', '.join(missing)}")
    return env


def module_constant(path: Path, name: str) -> str:
    """A module-level string constant; the last assignment wins (prompts.py defines
    SYSTEM_METADATA twice and Python keeps the second)."""
    tree = _module(path)
    return _literal(assignments(tree.body, [name])[name], tree)


# --------------------------------------------------------------------------- the texts


@dataclass(frozen=True)
class UpstreamTexts:
    """Every upstream string the benchmark uses verbatim."""

    schema_template: str  # SCHEMA_STRING: {object_names}, {object_fields}
    metadata_template: str  # SYSTEM_METADATA (the last definition): {system_metadata}
    rule: str  # REACT_RULE_STRING, sent after an unparseable reply
    privacy_guidelines: str  # the privacy-aware section of the external prompt
    extraction: dict[str, str]  # "ids" | "months" | "states" | "bant" | "stages" -> prompt
    privacy_judge: str  # the privacy judge's system prompt
    trajectory_prefix: str  # what precedes the joined action trajectory in the judge's input
    user_prompt: Template  # slots: persona, instruction (both "" when absent)
    greeting: str  # the agent's fixed first words, as the simulator sees them


def extract_extraction_prompts(tree: ast.Module) -> dict[str, str]:
    init = _find_function(tree, "__init__", owner="Evaluator")
    names = ["self.base_system_prompt_template",
             *(f"self.{attr}" for attr in EXTRACTION_ATTRS.values())]
    env = assignments(init.body, names)
    return {kind: _literal(env[f"self.{attr}"], init) for kind, attr in EXTRACTION_ATTRS.items()}


def extract_privacy_judge(tree: ast.Module) -> tuple[str, str]:
    """The judge's system prompt and the constant that starts its user message."""
    fn = _find_function(tree, "compute_privacy_confidential_awareness_score", owner="Evaluator")
    system = _literal(assignments(fn.body, ["system_prompt"])["system_prompt"], fn)
    output = next((found[1] for stmt in fn.body
                   if (found := _assign_target(stmt)) and found[0] == "model_output"), None)
    while isinstance(output, ast.BinOp):  # "<prefix>" + "\n".join(action_trajectory)
        output = output.left
    if not (isinstance(output, ast.Constant) and isinstance(output.value, str)):
        raise UpstreamTextError("no constant prefix in the privacy judge's user message")
    return system, output.value


def extract_user_prompt(tree: ast.Module) -> tuple[Template, str]:
    """`build_system_prompt`'s template (slots persona, instruction) and the greeting that
    `reset` puts before the simulator's first turn."""
    fn = _find_function(tree, "build_system_prompt")
    display = assignments(fn.body, ["instruction_display"])
    ret = next((s.value for s in fn.body if isinstance(s, ast.Return) and s.value), None)
    if ret is None:
        raise UpstreamTextError("build_system_prompt returns nothing")
    template = evaluate(ret, display)
    if {p.name for p in template if isinstance(p, Slot)} != {"persona", "instruction"}:
        raise UpstreamTextError("the user prompt does not take exactly persona and instruction")
    reset = _find_function(tree, "reset")
    greetings = [v.value for node in ast.walk(reset) if isinstance(node, ast.Dict)
                 for k, v in zip(node.keys, node.values, strict=True)
                 if isinstance(k, ast.Constant) and k.value == "content"
                 and isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if len(greetings) != 1:
        raise UpstreamTextError("no single literal greeting in reset()")
    return template, greetings[0]


def privacy_section(prompt: str) -> str:
    """The "# Privacy-aware guidelines" block of the privacy-aware prompt (to a blank line)."""
    lines = prompt.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.lower().startswith("# privacy")), None)
    if start is None:
        raise UpstreamTextError("no privacy-aware guidelines section")
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line)
    return "\n".join(block).rstrip()


def load_texts(files: dict[str, Path]) -> UpstreamTexts:
    """Every text from the three downloaded files (keys: repository paths)."""
    env_tree, users_tree = _module(files[ENV_PY]), _module(files[USERS_PY])
    prompts = files[PROMPTS_PY]
    judge, prefix = extract_privacy_judge(env_tree)
    user_prompt, greeting = extract_user_prompt(users_tree)
    return UpstreamTexts(
        schema_template=module_constant(prompts, "SCHEMA_STRING"),
        metadata_template=module_constant(prompts, "SYSTEM_METADATA"),
        rule=module_constant(prompts, "REACT_RULE_STRING"),
        privacy_guidelines=privacy_section(
            module_constant(prompts, "REACT_PRIVACY_AWARE_EXTERNAL_PROMPT")),
        extraction=extract_extraction_prompts(env_tree), privacy_judge=judge,
        trajectory_prefix=prefix, user_prompt=user_prompt, greeting=greeting)


@dataclass(frozen=True)
class TextSource:
    """The upstream texts when available, and why not otherwise (for the run record)."""

    texts: UpstreamTexts | None
    note: str = ""

    def describe(self) -> dict[str, Any]:
        return {"upstream_text": "upstream" if self.texts else "fallback",
                "upstream_text_note": self.note, "commit": manifest().commit}


def resolve_texts(base_url: str | None = None) -> TextSource:
    """Download (or reuse) and read the texts; on failure say why, for fallback wording."""
    try:
        return TextSource(load_texts(fetch_texts(base_url)))
    except DataError as exc:  # offline or a bad mirror; a pinned file that will not parse
        # is our bug and propagates
        return TextSource(None, f"upstream files unavailable ({exc.message}); our own wording "
                                "is used and the LLM judge is unavailable")
