"""The key bar: Textual's Footer, without the keys each of its rebuilds used to leave in memory."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer

# Where Textual keeps the watchers others set on a node's reactives: {name: [(watcher, callback)]}
# (textual/reactive.py, `_watch`).
WATCHERS_ATTRIBUTE = "__watchers"


def drop_gone_watchers(node: object) -> None:
    """Forget the watchers on `node` set by widgets that have since been removed. Textual drops
    them only when the watched value changes again (textual#6666), so a watcher of a value that
    never changes keeps its widget, and all the widget holds, alive for good."""
    watchers: Any = getattr(node, WATCHERS_ATTRIBUTE, None)
    if not isinstance(watchers, dict):
        return
    for entries in watchers.values():
        entries[:] = [
            (watcher, callback)
            for watcher, callback in entries
            if not getattr(watcher, "_closing", False) and getattr(watcher, "is_attached", True)
        ]


class KeyFooter(Footer):
    """Textual's Footer rebuilds its keys whenever the keys on offer change (Esc comes and goes
    with every turn), and each key watches the footer's `compact` (data_bind): without this,
    every rebuild left its old keys alive with their styles and caches (about 80 KiB a message
    of a live session, and the rebuilds slowed as the watchers piled up: bench/live_memory.py)."""

    async def recompose(self) -> None:
        await super().recompose()
        drop_gone_watchers(self)
