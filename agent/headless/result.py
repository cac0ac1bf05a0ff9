"""The result object that ends `--output-format json` and `stream-json`: Claude Code's `result`
message (subtype, cost, usage, per-model usage, permission denials ...) plus pleat's
`compactions`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.events import ErrorKind, TurnDone
from agent.headless.lines import claude_usage, new_uuid
from sessions.usage import Usage, UsageTally

# Claude Code's subtype of a run that answered.
SUCCESS = "success"
# Claude Code's subtypes of a failed run: the turn cap (--max-tool-iterations), the spending
# cap (--max-budget-usd), anything else.
ERROR_SUBTYPES: dict[ErrorKind, str] = {
    "iteration_cap": "error_max_turns",
    "budget": "error_max_budget_usd",
}
ERROR_SUBTYPE = "error_during_execution"
# Claude Code counts web searches per model; pleat's tools make none.
WEB_SEARCH_REQUESTS = 0


@dataclass(frozen=True)
class ModelFacts:
    """What pleat knows of a model: its window and its output limit (0: unknown)."""

    context_window: int = 0
    max_output_tokens: int = 0


@dataclass(frozen=True)
class Outcome:
    """How the run ended: its last TurnDone, its error (its line and kind), its answer."""

    done: TurnDone | None
    error: str | None = None
    kind: ErrorKind | None = None
    answer: str = ""

    @property
    def failed(self) -> bool:
        return self.error is not None or self.done is None or self.done.reason != "answer"

    @property
    def subtype(self) -> str:
        """success, or Claude Code's subtype of the failure."""
        if not self.failed:
            return SUCCESS
        return ERROR_SUBTYPES.get(self.kind, ERROR_SUBTYPE) if self.kind else ERROR_SUBTYPE


def run_usage(before: UsageTally, after: UsageTally) -> dict[str, int]:
    """The tokens of the run's calls (compression and sub-agents included), as Anthropic
    counts them."""
    return claude_usage(
        Usage(
            after.prompt_tokens - before.prompt_tokens,
            after.completion_tokens - before.completion_tokens,
            after.cached_tokens - before.cached_tokens,
            after.cache_creation_tokens - before.cache_creation_tokens,
        )
    )


@dataclass
class RunRecord:
    """What the result says of a run, gathered from its events as it goes."""

    turns: int = 0  # model calls of the run's turn (pleat's iterations)
    compactions: int = 0
    models: dict[str, UsageTally] = field(default_factory=dict)  # every call's, by model
    api_ms: int = 0
    denials: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str | None = None  # of the run's last reply

    def add_usage(self, usage: Usage, model: str) -> None:
        self.models.setdefault(model, UsageTally()).add(usage)
        self.api_ms += usage.api_ms

    def model_usage(self, facts: dict[str, ModelFacts]) -> dict[str, dict[str, Any]]:
        """Claude Code's `modelUsage`: each model's tokens (as Anthropic counts them), cost,
        window and output limit."""
        usage: dict[str, dict[str, Any]] = {}
        for model, tally in self.models.items():
            tokens = run_usage(UsageTally(), tally)
            known = facts.get(model, ModelFacts())
            usage[model] = {
                "inputTokens": tokens["input_tokens"],
                "outputTokens": tokens["output_tokens"],
                "cacheReadInputTokens": tokens["cache_read_input_tokens"],
                "cacheCreationInputTokens": tokens["cache_creation_input_tokens"],
                "webSearchRequests": WEB_SEARCH_REQUESTS,
                "costUSD": round(tally.cost or 0.0, 10),
                "contextWindow": known.context_window,
                "maxOutputTokens": known.max_output_tokens,
            }
        return usage

    def result(
        self,
        outcome: Outcome,
        *,
        session_id: str,
        duration_ms: int,
        cost: float,
        usage: dict[str, int],
        facts: dict[str, ModelFacts],
    ) -> dict[str, Any]:
        """The result: Claude Code's fields, its `errors` when the run failed, pleat's
        `compactions`. `result` is the answer, or the error line when the run failed."""
        done, error = outcome.done, outcome.error
        answer = (done.text if done is not None else "") or outcome.answer
        record: dict[str, Any] = {
            "type": "result",
            "subtype": outcome.subtype,
            "is_error": outcome.failed,
            "result": error if error is not None else answer,
            "session_id": session_id,
            "num_turns": self.turns,
            "duration_ms": duration_ms,
            "duration_api_ms": self.api_ms,
            "total_cost_usd": round(cost, 10),
            "usage": usage,
            "modelUsage": self.model_usage(facts),
            "permission_denials": self.denials,
            "stop_reason": self.stop_reason,
            "uuid": new_uuid(),
            "compactions": self.compactions,
        }
        if error is not None:
            record["errors"] = [error]
        return record
