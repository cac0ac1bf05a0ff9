"""Where and how to call the model: the settings agent.model.llm calls it with (light to import: the
configuration is read before the first frame)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.model.request_shape import THINKING_OFF

# Retries for rate limits and transient failures: 3 tries after the first, doubling from 1 s,
# ride out a provider's brief hiccup (about 7 s in all) without making a dead server look alive.
DEFAULT_MAX_RETRIES = 3
# Seconds before the first retry; each next one waits twice as long.
DEFAULT_RETRY_BASE_DELAY = 1.0
# Seconds without a byte from the provider before a request is abandoned as a transient
# failure: long enough for a big model's slow first token, short enough to notice a hang.
DEFAULT_REQUEST_TIMEOUT = 600.0
# The `vision` setting's values: ask litellm, or the user's word for a model it does not know.
VISION_AUTO, VISION_ON, VISION_OFF = "auto", "true", "false"


@dataclass(frozen=True)
class ModelSettings:
    """Where and how to call the model. The api_key is held in memory only, never written."""

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    retry_base_delay: float = DEFAULT_RETRY_BASE_DELAY
    # "off", a level ("low", "medium", "high": litellm's reasoning_effort) or a token budget.
    thinking: str = THINKING_OFF
    # Whether the model accepts images: "auto" (litellm's model facts say), "true" or "false".
    vision: str = VISION_AUTO
