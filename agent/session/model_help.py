"""The text shown when no model is configured: every way to configure one."""

from __future__ import annotations

from agent.config import config_path


def configuration_help(error: str | None) -> str:
    """Markdown explaining how to configure a model; `error` is the configuration problem
    (None: simply no model configured)."""
    problem = f"pleat has no usable model: {error}" if error else "No model is configured."
    now = (
        ""
        if error
        else "pleat found none to use either (no provider key set, no server listing models).\n"
        "Name one now with `/model NAME` (e.g. `/model ollama/llama3`), "
        "or `/model` to look again.\n\n"
    )
    return f"""\
**{problem}**

{now}Configure one of these ways for every start:

- a flag: `pleat --model anthropic/claude-sonnet-4-5` (any litellm model string)
- the environment: `export PLEAT_MODEL=openai/gpt-4o`
- the config file `{config_path()}`: `model = "openai/gpt-4o"`
- a local Ollama: `pleat --model ollama/llama3`
- any OpenAI-compatible server: `pleat --model qwen --api-base http://localhost:8000/v1`

Provider keys come from their usual variables (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...)
or from `--api-key`.
"""
