"""Interruptions wait while a compaction commits, so none lands between its chunk and its swap."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.compaction.engine import Compactor

# The engine's step after which the fold commits (agent.compaction.engine.Compactor.compact).
COMMIT_STEP = "summarized"


class FoldGuard:
    """Tracks whether a fold is committing; holds interruptions requested meanwhile.

    A compaction spends nearly all its time in the model call; cancelling it there leaves the
    history and the archive exactly as they were. Once the summary is in ("summarized"), the
    engine writes the chunk (in a worker thread, which a cancelled await would not stop), then
    the agent swaps the history and journals it, all within milliseconds. A cancellation landing
    in between would leave a chunk on disk that the journal never recorded, and the next fold
    would archive the same messages again. So from "summarized" until the UI has shown the
    fold's outcome, an interruption (Esc, the key that ends an idle fold, quitting) is held,
    then delivered.
    """

    def __init__(self) -> None:
        self.committing = False
        self._held: list[Callable[[], object]] = []

    def attach(self, compactor: Compactor | None) -> None:
        """Watch this compactor's steps (keeping any hook already there, e.g. crash tests')."""
        if compactor is None:
            return
        previous = compactor.step_hook

        def hook(step: str) -> None:
            if step == COMMIT_STEP:
                self.committing = True
            if previous is not None:
                previous(step)

        compactor.step_hook = hook

    def interrupt(self, action: Callable[[], object]) -> bool:
        """Run `action` now, or once the committing fold has settled; True if it ran now."""
        if self.committing:
            self._held.append(action)
            return False
        action()
        return True

    def settle(self) -> None:
        """The fold ended (done or failed) and the UI showed it: deliver what was held."""
        self.committing = False
        held, self._held = self._held, []
        for action in held:
            action()

    def reset(self) -> None:
        """The work that ran the fold is over (however it ended): deliver what was held."""
        self.settle()
