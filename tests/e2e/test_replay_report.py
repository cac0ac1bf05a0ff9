"""`pleat replay --report FILE.html`: one self-contained page comparing the strategies, with
each fold marked and the sessions a strategy failed listed; and the per-call series behind it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.compaction.policy import CompactionPolicy
from agent.replay.recorded import read_sessions
from agent.replay.report_charts import session_chart
from agent.replay.strategies import STRATEGIES, run_strategy
from tests.support.pleat_process import pleat

# A window small enough that the long session below overflows it without compaction, and
# large enough for the offline summarizer's fold to fit.
WINDOW = 8_000
# Tool output of one round, about 600 tokens: twenty rounds are half again the window.
OUTPUT = "line of build output with a file name src/module.py and a number 12345\n" * 40


def session(name: str, rounds: int) -> dict:
    """A recorded session in the shape of the shared data set (mini-swe-agent's bash)."""
    messages: list[dict] = [
        {"role": "system", "content": "You are a coding agent with a bash tool."},
        {"role": "user", "content": f"Fix the failing build of {name}."},
    ]
    for number in range(rounds):
        call = f"call_{number:04d}"
        messages.append(
            {
                "role": "assistant",
                "content": f"THOUGHT: step {number}: look at the next part of the log.",
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "bash", "arguments": json.dumps({"command": "make"})},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call, "content": f"{number}\n{OUTPUT}"})
    messages.append({"role": "assistant", "content": "Done: the build passes."})
    return {"instance_id": name, "messages": messages}


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A short session every strategy finishes, and a long one that only folding survives."""
    path = tmp_path / "sessions.jsonl"
    lines = [session("short__task-1", 3), session("long__task-2", 24)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


async def test_series_follow_every_request_and_fold(recorded: Path, tmp_path: Path) -> None:
    long = next(s for s in read_sessions(recorded) if s.name == "long__task-2")
    policy = CompactionPolicy(context_window=WINDOW)
    results = {
        name: await run_strategy(
            name, long, policy=policy, window=WINDOW, archive_dir=tmp_path / name
        )
        for name in STRATEGIES
    }
    for result in results.values():
        series = result.series
        assert len(series.context) == len(series.billed) == result.requests
        assert max(series.context) == result.peak_context
        assert series.billed == sorted(series.billed)  # cumulative
        assert series.billed[-1] == pytest.approx(result.billed)
    insert = results["insert"]
    assert insert.finished and len(insert.series.folds) == insert.compactions > 0
    for fold in insert.series.folds:  # a fold shrinks the next request's context
        assert insert.series.context[fold] < insert.series.context[fold - 1]
    assert not results["none"].finished
    assert results["none"].series.context[-1] > WINDOW  # the refused request is the last one

    # The page's session chart: every session in its menu swaps in data for every trace.
    short = next(s for s in read_sessions(recorded) if s.name == "short__task-1")
    by_strategy = {
        name: [
            await run_strategy(
                name, short, policy=policy, window=WINDOW, archive_dir=tmp_path / f"s-{name}"
            ),
            result,
        ]
        for name, result in results.items()
    }
    figure = session_chart(by_strategy, trigger=4_800, window=WINDOW)
    assert figure is not None
    assert figure.layout.title.text.endswith("long__task-2")  # the one that folded comes first
    buttons = figure.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["short__task-1", "long__task-2"]
    for button in buttons:
        swap = button.args[0]
        assert len(swap["x"]) == len(swap["y"]) == len(figure.data)
    long_swap = buttons[1].args[0]
    assert [trace.y for trace in figure.data] == [tuple(y) for y in long_swap["y"]]


def external_references(page: str) -> list[str]:
    """Every src= or href= of the page's tags that points off the page (http, https or
    protocol-relative). Script bodies are left out: the inlined library holds map attribution
    links as strings, which a chart without maps never shows."""
    markup = re.sub(r"(<script\b[^>]*>).*?(</script>)", r"\1\2", page, flags=re.S | re.I)
    pattern = r"""<[^>]+\b(?:src|href)\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)"""
    return re.findall(pattern, markup, flags=re.IGNORECASE)


@pytest.mark.slow  # the whole replay and plotly's page (plotly's import alone is seconds)
def test_report_page_is_self_contained_and_complete(recorded: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    done = pleat(
        "replay", str(recorded), "--context-window", str(WINDOW), "--report", str(page_path)
    )
    assert done.returncode == 0, done.stderr
    assert f"report written to {page_path}" in done.stderr
    assert "insert" in done.stdout  # the text table is still printed
    page = page_path.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert external_references(page) == []
    assert not re.search(r"<script[^>]+\bsrc\s*=", page, flags=re.IGNORECASE)
    assert "Plotly.newPlot" in page and len(page) > 1_000_000  # the library itself is inlined
    for strategy in STRATEGIES:
        assert f'"name":"{strategy}"' in page  # a line in the charts
        assert f"{strategy}</td>" in page  # a row of the totals table
    assert '"name":"insert: folds"' in page
    assert re.search(r"insert: fold before call \d+", page)  # each fold marked where it was
    assert "fold threshold 4,800" in page  # (8,000 - 2,000 reserved) x 0.8
    failures = page[page.index('<table id="failures">') :]
    assert "long__task-2" in failures and "overflowed the window" in failures
    assert "short__task-1" not in failures  # every strategy finished the short one
    assert "<td>" in failures.split("none", 1)[1]  # "none" is among the failing strategies


@pytest.mark.slow  # the whole replay before the report is written
def test_report_to_an_unwritable_place_is_one_line(recorded: Path, tmp_path: Path) -> None:
    done = pleat(
        "replay",
        str(recorded),
        "--strategy",
        "none",
        "--report",
        str(tmp_path / "no-such-dir" / "report.html"),
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("pleat: error: cannot write")
