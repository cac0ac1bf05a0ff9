"""`--max-budget-usd`: a model call that would take a run's spending past its cap is not made."""

from __future__ import annotations

from typing import Protocol

from sessions.usage import UsageTally


class Priced(Protocol):
    """What the cap needs of the model: the price of a request's input (agent.model.llm.LLM)."""

    def input_cost(self, prompt_tokens: int) -> float | None: ...


class SpendingCap:
    """The cap of one run: what it has spent (every call, compression included, from `usage`
    since the cap was set) plus the next request's input must stay within `limit` USD."""

    def __init__(self, limit: float | None, model: Priced, usage: UsageTally) -> None:
        self.limit = limit
        self.model = model
        self.usage = usage
        self.start = usage.cost or 0.0

    def sharing(self, model: Priced) -> SpendingCap:
        """The cap of a sub-agent of this run: the same limit over the same tally, counted from
        the same start (the sub-agent's calls are added to the tally as it makes them), its
        requests priced by its own model."""
        shared = SpendingCap(self.limit, model, self.usage)
        shared.start = self.start
        return shared

    @property
    def spent(self) -> float:
        """USD spent by this run so far."""
        return (self.usage.cost or 0.0) - self.start

    def refusal(self, prompt_tokens: int) -> str | None:
        """Why the next call (a request of about `prompt_tokens`) may not be made, or None. Its
        input is priced as if nothing came from the cache, so the cap is never passed by a miss;
        a model without known prices is priced at nothing beyond what it reported."""
        if self.limit is None:
            return None
        spent = self.spent
        next_input = self.model.input_cost(prompt_tokens) or 0.0
        if spent + next_input <= self.limit:
            return None
        return (
            f"the spending cap of ${self.limit:.2f} would be passed: ${spent:.4f} spent, the next "
            f"request's input costs about ${next_input:.4f} (--max-budget-usd)"
        )
