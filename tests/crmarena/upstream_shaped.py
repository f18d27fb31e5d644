"""Small modules shaped like upstream's env.py, users.py and prompts.py (our own words).

The extractors read them as they read the real files; end-to-end tests use the texts they
give, so no test needs upstream's prose.
"""

from __future__ import annotations

from pathlib import Path

from a2abench.benchmarks.crmarena import upstream

ENV = '''
import json

class Other:
    def __init__(self):
        self.id_system_prompt = "not this one"

class Evaluator(object):
    def __init__(self, model):
        self.model = model
        self.base_system_prompt_template = """
            Pull {kind} out of the text.
            {rules}
            Examples: {examples}
        """
        self.id_system_prompt = self.base_system_prompt_template.format(
            kind="ids", rules="", examples="""
            Output: { "extracted_answers": ["X1"] }
        """).strip()
        t = "unused local"
        self.month_system_prompt = self.base_system_prompt_template.format(
            kind="months", rules="- one", examples="m").strip()
        self.state_system_prompt = self.base_system_prompt_template.format(
            kind="states", rules="- two", examples="s").strip()
        self.bant_system_prompt = self.base_system_prompt_template.format(
            kind="BANT", rules="- unmet", examples="b").strip()
        self.opportunity_stage_system_prompt = self.base_system_prompt_template.format(
            kind="stages", rules="", examples="o").strip()

    def compute_privacy_confidential_awareness_score(self, action_trajectory):
        system_prompt = """
        Did the agent refuse? Say YES or NO.
        """
        model_output = "Trajectory follows: \\n" + "\\n".join(action_trajectory)
        return model_output
'''

USERS = '''
class Sim(object):
    def build_system_prompt(self, instruction, persona):
        persona = persona if persona is not None else ""
        instruction = instruction if instruction is not None else ""
        instruction_display = "\\n\\nGoal: " + persona + " " + instruction + "\\n"
        return f"""Play a user. {instruction_display}
Rules: say ###STOP### when done.
"""

    def reset(self, instruction=None, persona=None):
        self.messages = [
            {"role": "system", "content": self.build_system_prompt(instruction, persona)},
            {"role": "user", "content": "Hello, what do you need?"},
        ]
'''

PROMPTS = '''
SCHEMA_STRING = """\\
Objects: {object_names}
Fields:
{object_fields}
"""
SYSTEM_METADATA = """\\
# {system} Metadata (old)
{system_metadata}
"""
REACT_RULE_STRING = """\\
Wrong format! Use <execute> or <respond>.
"""
REACT_PRIVACY_AWARE_EXTERNAL_PROMPT = """\\
Intro for {system}.

# Privacy-aware guidelines
- Decline private data.
- Decline internal data.\x20

## Thought
"""
SYSTEM_METADATA = """\\
# Extra context
{system_metadata}
"""
'''


def write(root: Path) -> dict[str, Path]:
    """The three modules under `root`, laid out like the repository."""
    out = {}
    for rel, text in ((upstream.ENV_PY, ENV), (upstream.USERS_PY, USERS),
                      (upstream.PROMPTS_PY, PROMPTS)):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        out[rel] = path
    return out


def texts(root: Path) -> upstream.UpstreamTexts:
    return upstream.load_texts(write(root))
