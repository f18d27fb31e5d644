"""Where tau2 data comes from: pinned download, cache, or a local `--data-dir`; splits.

The package ships `manifest.json`: the pinned upstream commit and the sha256 of every file we
use, data (`data/tau2/...`) and upstream sources read for prose (`src/tau2/...`, see
`upstream.py`). Without `--data-dir`, files are downloaded from the repository's raw files at
that commit into the user cache and verified (`a2abench.net.download`). With `--data-dir DIR`,
DIR is laid out like upstream's `data/` (it holds `tau2/domains/...`); its files are used as
they are, and whether each matches the pinned checksum is recorded. Upstream sources are looked
for beside DIR (`DIR/../src/tau2/...`, an upstream checkout) and in the cache, never fetched.
A `PinnedFile` pins a source file of another repository the same way (`optional_source`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from a2abench.plugin import (
    ConfigError,
    DataCorrupt,
    DataError,
    DataMissing,
    RemoteFile,
    cache_dir,
    ensure_files,
)
from a2abench.plugin.provisional import raw_base, sha256_file

URL_ENV = "A2ABENCH_TAU2_DATA_URL"  # a mirror of the raw files (tests point it at loopback)

DATA_FILES: dict[str, tuple[str, ...]] = {
    "airline": ("db.json", "tasks.json", "split_tasks.json", "policy.md"),
    "retail": ("db.json", "tasks.json", "split_tasks.json", "policy.md"),
    "mock": ("db.json", "user_db.json", "tasks.json", "split_tasks.json", "policy.md"),
    "telecom": ("db.toml", "user_db.toml", "tasks.json", "split_tasks.json", "main_policy.md",
                "tech_support_manual.md", "tech_support_workflow.md"),
}
# Needed only by `--solo` runs (upstream's solo-mode policies), so resolved only for them.
SOLO_FILES: dict[str, tuple[str, ...]] = {
    "mock": ("policy_solo.md",),
    "telecom": ("main_policy_solo.md", "tech_support_workflow_solo.md"),
}
SOURCE_FILES: dict[str, tuple[str, ...]] = {
    "airline": ("tools.py", "data_model.py"),
    "retail": ("tools.py", "data_model.py"),
    "mock": ("tools.py", "user_tools.py", "data_model.py", "user_data_model.py"),
    "telecom": ("tools.py", "user_tools.py", "data_model.py", "user_data_model.py"),
    "banking_knowledge": ("tools.py", "retrieval_mixins.py"),
}
# banking_knowledge has ~815 files (tasks/, documents/, prompts/): its list is the manifest's.
MANIFEST_DOMAINS = ("banking_knowledge",)
GUIDELINES = ("data/tau2/user_simulator/simulation_guidelines.md",
              "data/tau2/user_simulator/simulation_guidelines_tools.md")
COMMON_SOURCES = ("src/tau2/evaluator/evaluator_nl_assertions.py", "src/tau2/agent/llm_agent.py")


@dataclass(frozen=True)
class Manifest:
    repository: str
    commit: str
    files: dict[str, str]  # repo path -> sha256
    sizes: dict[str, int] = field(default_factory=dict)  # repo path -> bytes


@cache
def manifest() -> Manifest:
    raw = json.loads(resources.files(__package__).joinpath("manifest.json").read_text())
    return Manifest(raw["repository"], raw["commit"],
                    {path: meta["sha256"] for path, meta in raw["files"].items()},
                    {path: meta["size"] for path, meta in raw["files"].items()})


@dataclass
class DomainFiles:
    """Resolved local paths for one domain, and where they came from."""

    data: dict[str, Path]  # file name (e.g. "db.json") or guideline repo path -> path
    sources: dict[str, Path] | None  # repo path -> path; None when unavailable
    origin: str  # "download" | "local"
    commit: str
    unverified: list[str] = field(default_factory=list)  # local files not matching the pin
    source_note: str = ""

    def describe(self) -> dict[str, Any]:
        """The data provenance recorded in the run record."""
        return {"origin": self.origin, "commit": self.commit,
                "matches_pinned": not self.unverified, "unverified": self.unverified,
                "upstream_text": "upstream" if self.sources else "fallback",
                "upstream_text_note": self.source_note}


def data_paths(domain: str, solo: bool = False) -> list[str]:
    if domain in MANIFEST_DOMAINS:
        prefix = f"data/tau2/domains/{domain}/"
        return sorted(p for p in manifest().files if p.startswith(prefix)) + list(GUIDELINES)
    if domain not in DATA_FILES:
        raise ConfigError(f"unknown tau2 domain {domain!r}",
                          hint=f"Choose one of: {', '.join([*DATA_FILES, *MANIFEST_DOMAINS])}")
    names = DATA_FILES[domain] + (SOLO_FILES.get(domain, ()) if solo else ())
    return [f"data/tau2/domains/{domain}/{name}" for name in names] + list(GUIDELINES)


def source_paths(domain: str) -> list[str]:
    return ([f"src/tau2/domains/{domain}/{name}" for name in SOURCE_FILES[domain]]
            + list(COMMON_SOURCES))


def _key(path: str) -> str:
    """A domain file's path inside its domain folder (e.g. "db.json", "tasks/task_001.json");
    other files keep their repository path."""
    prefix = "data/tau2/domains/"
    return path[len(prefix):].split("/", 1)[1] if path.startswith(prefix) else path


def _remote(paths: list[str], base_url: str | None) -> list[RemoteFile]:
    m = manifest()
    base = base_url or os.environ.get(URL_ENV) or raw_base(m.repository, m.commit)
    base = base if base.endswith("/") else base + "/"
    return [RemoteFile(p, base + p, m.files[p], size=m.sizes.get(p)) for p in paths]


def pinned_files(base_url: str | None = None
                 ) -> tuple[list[RemoteFile], list[RemoteFile]]:
    """Every pinned file (data of all domains with the solo policies, upstream sources), for
    `a2abench data pull`."""
    domains = [*DATA_FILES, *MANIFEST_DOMAINS]
    data = dict.fromkeys(p for d in domains for p in data_paths(d, solo=True))
    sources = dict.fromkeys(p for d in domains for p in source_paths(d))
    return _remote(list(data), base_url), _remote(list(sources), base_url)


def download_hint(domain: str) -> str:
    """What to do when the pinned files cannot be had. --data-dir is upstream's data/ folder
    itself (the remote paths start one folder higher, at the repository's root)."""
    return ("Check the network connection and retry, run `a2abench data pull tau2` where "
            "there is one (it fills the cache), or pass --data-dir DIR with DIR a copy of "
            f"upstream's data/ folder (DIR/tau2/domains/{domain}/ holds the domain's files)")


def resolve(domain: str, data_dir: Path | None = None, *, base_url: str | None = None,
            solo: bool = False, progress: Callable[[int, int], None] | None = None
            ) -> DomainFiles:
    """Local paths of a domain's data and upstream sources (downloading when needed);
    `solo` adds the solo-mode policy files; `progress(done, total)` reports a download of the
    data files (see `ensure_files`)."""
    m = manifest()
    paths = data_paths(domain, solo)
    if data_dir is not None:
        return _resolve_local(domain, Path(data_dir), paths)
    folder = f"tau2/{m.commit}"
    got = ensure_files(_remote(paths, base_url), folder=folder, workers=16,
                       progress=progress, hint=download_hint(domain))
    files = DomainFiles({_key(p): got[p] for p in paths}, None, "download", m.commit)
    try:
        srcs = ensure_files(_remote(source_paths(domain), base_url), folder=folder)
        files.sources = srcs
    except DataError as exc:
        files.source_note = f"upstream sources unavailable ({exc.message}); fallback text used"
    return files


def _resolve_local(domain: str, data_dir: Path, paths: list[str]) -> DomainFiles:
    m = manifest()
    data: dict[str, Path] = {}
    unverified = []
    for rel in paths:
        path = data_dir / rel.removeprefix("data/")
        if not path.is_file():
            raise DataMissing(
                f"tau2 data file {path} is missing",
                hint=f"--data-dir must be laid out like upstream's data/ folder (holding "
                     f"tau2/domains/{domain}/...); drop --data-dir to download the pinned copy")
        data[_key(rel)] = path
        if sha256_file(path) != m.files[rel]:
            unverified.append(rel)
    files = DomainFiles(data, None, "local", m.commit, unverified)
    files.sources, files.source_note = _local_sources(domain, data_dir)
    return files


def _local_sources(domain: str, data_dir: Path) -> tuple[dict[str, Path] | None, str]:
    m = manifest()
    out: dict[str, Path] = {}
    for rel in source_paths(domain):
        candidates = [data_dir.parent / rel,
                      cache_dir() / f"tau2/{m.commit}" / rel]
        found = next((c for c in candidates
                      if c.is_file() and sha256_file(c) == m.files[rel]), None)
        if found is None:
            return None, (f"{rel} at the pinned commit not found beside --data-dir or in the "
                          "cache; fallback text used")
        out[rel] = found
    return out, ""


@dataclass(frozen=True)
class PinnedFile:
    """A source file of another upstream repository that a feature reads prose from (e.g.
    the stock AgentBeats green agent's prompt): pinned like `manifest.json`'s files."""

    repository: str  # owner/name
    commit: str
    path: str
    sha256: str
    url_env: str  # names a mirror of that repository's raw files (tests point it at loopback)

    @property
    def folder(self) -> str:
        return f"{self.repository.rsplit('/', 1)[1]}/{self.commit}"


def optional_source(rel: str | PinnedFile, data_dir: Path | None = None, *,
                    base_url: str | None = None) -> tuple[Path | None, str]:
    """One upstream source file that only a feature needs (e.g. the agentify prompt text):
    a tau2 repo path, or a `PinnedFile` of another repository. With --data-dir: beside DIR
    (at its repo path under DIR/..) or in the cache, never fetched; else downloaded and
    verified like the other sources. (None, why) when it is unavailable: callers fall back,
    never fail."""
    if isinstance(rel, PinnedFile):
        path, digest, folder = rel.path, rel.sha256, rel.folder
        base = (base_url or os.environ.get(rel.url_env)
                or raw_base(rel.repository, rel.commit))
        remote = RemoteFile(path, base.rstrip("/") + "/" + path, digest)
    else:
        m = manifest()
        path, digest, folder = rel, m.files[rel], f"tau2/{m.commit}"
        remote = _remote([rel], base_url)[0]
    if data_dir is not None:
        for candidate in (Path(data_dir).parent / path, cache_dir() / folder / path):
            if candidate.is_file() and sha256_file(candidate) == digest:
                return candidate, ""
        return None, f"{path} at the pinned commit not found beside --data-dir or in the cache"
    try:
        return ensure_files([remote], folder=folder)[path], ""
    except DataError as exc:
        return None, f"{path} unavailable ({exc.message})"


# --------------------------------------------------------------------------- parsing


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise DataCorrupt(f"tau2 data file {path} cannot be read as JSON: {exc}",
                          hint="Replace it with the file from the pinned upstream commit, or "
                               "drop --data-dir to download it") from exc


def read_tasks(files: DomainFiles, domain: str, ids: set[str]) -> list[Any]:
    """The tasks of a domain's `tasks.json` whose id is in `ids`, in file order, as `read_json`
    has them. The pinned file (its bytes checked against the manifest) is upstream's
    pretty-printed list: only the wanted elements are parsed (telecom's 14 MB holds 2,285
    tasks, its base split 114)."""
    path = files.data["tasks.json"]
    if f"data/tau2/domains/{domain}/tasks.json" not in files.unverified:
        try:
            tasks = _pick_tasks(path.read_bytes(), ids)
        except (OSError, ValueError):
            tasks = None
        if tasks is not None:
            return tasks
    raw = read_json(path)
    return [t for t in raw if isinstance(t, dict) and str(t.get("id")) in ids]


_TASK_ID = re.compile(rb'\{?\s*"id": (?:"([^"\\]*)"|(-?[0-9]+)),')


def _pick_tasks(text: bytes, ids: set[str]) -> list[Any] | None:
    """Split a list printed with `json.dumps(..., indent=N)` at its top-level elements (no
    string holds a raw newline, so the separator occurs nowhere else) and parse the wanted
    ones; None when the text is not laid out so, or an id has escapes."""
    head = re.match(rb"\[\n( +)\{", text)
    if head is None:
        return None
    pad = head.group(1)
    body = text.rstrip()
    if not body.endswith(b"\n" + pad + b"}\n]"):
        return None
    chunks = body[len(b"[\n" + pad):-len(b"\n]")].split(b"\n" + pad + b"},\n" + pad + b"{")
    out = []
    last = len(chunks) - 1
    for i, chunk in enumerate(chunks):
        found = _TASK_ID.match(chunk)
        if found is None:
            return None
        quoted, number = found.groups()
        if (quoted if quoted is not None else number).decode() in ids:
            close = b"" if i == last else b"\n" + pad + b"}"
            task = json.loads((b"" if i == 0 else b"{") + chunk + close)
            if str(task.get("id")) not in ids:  # a repeated "id" key: let the full parse say
                return None
            out.append(task)
    return out


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataCorrupt(f"tau2 data file {path} cannot be read: {exc}",
                          hint="Replace it with the file from the pinned upstream commit") from exc


def split_ids(path: Path, split: str) -> list[str]:
    """Task ids of `split` from a `split_tasks.json`; ConfigError naming the valid splits."""
    splits = read_json(path)
    if not isinstance(splits, dict) or not all(isinstance(v, list) for v in splits.values()):
        raise DataCorrupt(f"tau2 split file {path} is not an object of id lists",
                          hint="Replace it with the file from the pinned upstream commit")
    if split not in splits:
        raise ConfigError(f"unknown split {split!r} in {path}",
                          hint=f"Valid splits: {', '.join(sorted(splits))}")
    return [str(i) for i in splits[split]]


def read_toml(path: Path) -> Any:
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataCorrupt(f"tau2 data file {path} cannot be read as TOML: {exc}",
                          hint="Replace it with the file from the pinned upstream commit") from exc
