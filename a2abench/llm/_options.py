"""The user-simulator and judge flags every LLM-driven benchmark shares, declared once."""

from pydantic import BaseModel

from a2abench.llm._config import LLMArgs
from a2abench.options import option


class LLMOptions(BaseModel):
    """Base of a benchmark's options model: `--user-llm`, `--judge-llm` and their endpoints."""

    user_llm: str | None = option(None, "Model of the user simulator.")
    user_llm_base_url: str | None = option(
        None, "OpenAI-compatible base URL for the user and judge LLMs.")
    user_llm_args: LLMArgs = option(
        help="JSON object of extra LLM arguments, e.g. '{\"temperature\": 0}'.",
        kind="str", default_factory=dict)
    judge_llm: str | None = option(
        None, "Model of the LLM judge. tau2: unset = no judge (NL assertions skipped); "
              "crmarena: unset = gpt-4o-2024-08-06 (upstream's), 'offline' = deterministic "
              "scoring.")
    judge_llm_base_url: str | None = option(
        None, "Base URL for the judge LLM [default: --user-llm-base-url].")
    llm_cache: bool = option(True, "Cache LLM responses on disk.")
