"""One row of the benchmark table: measure, goal, value and verdict, from a results file."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
# How a goal compares, by the sign its text opens with (">= 90%" is value >= threshold).
COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
# Errors a results file that is missing, older or partial raises when read: its row says so.
NOT_MEASURED = (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError)


@dataclass(frozen=True)
class Row:
    """One line of the table: a measure, its goal, what was measured and whether it meets it."""

    measure: str
    goal: str
    measured: str
    met: bool
    value: float | None
    threshold: float


def load(name: str) -> dict[str, Any]:
    """A results file of RESULTS, or {} when it is missing or unreadable (its rows say so)."""
    try:
        data = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def check(measure: str, goal: str, threshold: float, read: Callable[[], tuple[float, str]]) -> Row:
    """The row of a goal: read() gives the value and how it is shown; the goal's text opens with
    the comparison (`>= 90%`), so the text and the verdict cannot disagree."""
    try:
        value, shown = read()
    except NOT_MEASURED:
        return Row(measure, goal, "not measured", False, None, threshold)
    return Row(
        measure, goal, shown, COMPARISONS[goal.split()[0]](value, threshold), value, threshold
    )
