"""/compact --preview in the TUI: the summary shown before it is applied (agent/turn/folds.py
SummaryReview), on its own screen (tui/screens/summary_preview.py)."""

from __future__ import annotations

from tui.host import Host


async def review_summary(host: Host, summary: str) -> str | None:
    """The summary to apply (as the model wrote it, or as the user edited it), or None when
    the user discarded it."""
    from tui.screens.summary_preview import SummaryPreviewScreen

    chosen = await host.ask_screen(SummaryPreviewScreen(summary))
    return chosen if isinstance(chosen, str) else None
