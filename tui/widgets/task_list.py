"""The task list (todo_write's) pinned above the prompt; hidden while it is empty."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from agent.terminal_text import visible

if TYPE_CHECKING:
    from tools.todo_list import TodoItem

# How each status is marked, and styled: done struck through and dim, the task in progress
# bold, the pending ones plain.
MARKS = {"done": "✓", "in_progress": "▶", "pending": "○"}
STYLES = {"done": "dim strike", "in_progress": "bold", "pending": ""}
# Tasks shown at once: enough for a usual plan, while the conversation keeps most of the screen;
# a longer list shows the tasks around the first unfinished one and counts the rest.
MAX_SHOWN_TASKS = 8


def shown_window(items: Sequence[TodoItem]) -> tuple[int, int]:
    """The slice [start, end) of the tasks to show: from just before the first unfinished one
    (its finished predecessor gives context), MAX_SHOWN_TASKS long, kept inside the list."""
    if len(items) <= MAX_SHOWN_TASKS:
        return 0, len(items)
    first_open = next((i for i, item in enumerate(items) if item.status != "done"), len(items))
    start = max(0, min(first_open - 1, len(items) - MAX_SHOWN_TASKS))
    return start, start + MAX_SHOWN_TASKS


def render_tasks(items: Sequence[TodoItem]) -> Text:
    """A title with the progress, then one line per task shown, marked by its status."""
    done = sum(1 for item in items if item.status == "done")
    text = Text(f"Tasks {done}/{len(items)} done", style="bold")
    start, end = shown_window(items)
    if start:
        text.append(f"\n  … {start} earlier", style="dim")
    for item in items[start:end]:
        text.append(f"\n{MARKS[item.status]} ")
        text.append(visible(item.content), style=STYLES[item.status])
    if end < len(items):
        text.append(f"\n  … {len(items) - end} more", style="dim")
    return text


class TaskList(Static):
    """Shows the session's current task list (the app gives it after each change)."""

    def __init__(self) -> None:
        super().__init__(id="tasks", markup=False)
        self.items: list[TodoItem] = []
        self.display = False

    def show(self, items: Sequence[TodoItem] | None) -> None:
        """Show these tasks (None or none: hide)."""
        self.items = list(items or ())
        self.display = bool(self.items)
        self.update(render_tasks(self.items) if self.items else "")
