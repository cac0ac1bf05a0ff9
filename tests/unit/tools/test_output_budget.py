"""Window-aware tool output: every tool fits its budget, and its notes lead to all of the rest.

Each test pages through an oversized output by following the tool's own "next:" note (as a
model would, tests/support/hints.py) and checks that the pages, put together, are the whole
output: nothing lost, nothing repeated, every page within the budget by the real tokenizer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agent.compaction.policy import CompactionPolicy
from agent.model.tokens import count_text
from sessions.archive import ChunkArchive
from sessions.messages import Message
from sessions.outputs import KeptOutputs
from tests.support.hints import next_call
from tools.archive_reader import ArchiveReaderTool
from tools.base import Tool, ToolContext, ToolOutput
from tools.output_budget import MAX_TOKEN_BYTES, OutputBudget
from tools.registry import ToolRegistry, default_registry

# A small window's budget: about what a 4k-token window gives one tool result.
SMALL = 600
NUMBERED = re.compile(r"\s*(\d+)\t(.*)\Z")


@pytest.fixture
def outputs(tmp_path: Path) -> KeptOutputs:
    return KeptOutputs(tmp_path / "outputs")


def context(workspace: Path, outputs: KeptOutputs | None, tokens: int = SMALL) -> ToolContext:
    return ToolContext(workspace, OutputBudget(tokens, count_text), outputs, page_tokens=tokens)


async def page_through(
    registry: ToolRegistry, ctx: ToolContext, tool: str, args: dict[str, Any], limit: int = 500
) -> list[str]:
    """Call, then follow each output's next-call note until there is none; every output must
    fit the budget. Returns the outputs in order."""
    texts: list[str] = []
    call: tuple[str, dict[str, Any]] | None = (tool, args)
    while call is not None:
        assert len(texts) < limit, "the notes never end"
        out = await registry.dispatch(call[0], call[1], ctx)
        assert not out.is_error, out.text
        assert ctx.budget.fits(out.text), f"{count_text(out.text)} tokens > {ctx.budget.tokens}"
        texts.append(out.text)
        call = next_call(out.text)
    return texts


def numbered_lines(texts: list[str]) -> dict[int, str]:
    """Line number -> text, over every page (each number must appear once)."""
    seen: dict[int, str] = {}
    for text in texts:
        for line in text.splitlines():
            match = NUMBERED.match(line)
            if match:
                number = int(match.group(1))
                assert number not in seen, f"line {number} shown twice"
                seen[number] = match.group(2)
    return seen


def listed(texts: list[str]) -> list[str]:
    """The listing lines of every page (notes in brackets left out)."""
    return [line for text in texts for line in text.splitlines() if not line.startswith("[")]


def test_the_budget_is_a_share_of_the_usable_window() -> None:
    from agent.compaction.policy import Budget

    policy = CompactionPolicy()
    assert Budget.of(policy, 4_096).tool_output_tokens == int(0.2 * (4_096 - 1_024))
    assert Budget.of(policy, 16_000).tool_output_tokens == int(0.2 * 12_000)
    assert Budget.of(policy, 200_000).tool_output_tokens == 25_000  # the absolute cap
    narrow = CompactionPolicy(tool_output_share=0.05)
    assert Budget.of(narrow, 16_000).tool_output_tokens == 600


async def test_read_file_pages_to_the_last_line(workspace: Path) -> None:
    lines = [f"line {n}: {'word ' * (n % 17)}end" for n in range(1, 3_001)]
    (workspace / "big.txt").write_text("\n".join(lines) + "\n")
    ctx = context(workspace, None)
    texts = await page_through(default_registry(), ctx, "read_file", {"path": "big.txt"})
    assert len(texts) > 10
    assert numbered_lines(texts) == {n: lines[n - 1] for n in range(1, 3_001)}
    first_note = texts[0].splitlines()[-1]
    assert "of 3,000 (" in first_note and " bytes)" in first_note
    assert "the last lines: offset=" in first_note


async def test_grep_pages_through_every_match(workspace: Path) -> None:
    (workspace / "hits.txt").write_text("".join(f"match {n}\n" for n in range(1, 2_001)))
    (workspace / "more.txt").write_text("match in another file\n")
    texts = await page_through(
        default_registry(), context(workspace, None), "grep", {"pattern": "match"}
    )
    found = listed(texts)
    assert found == [f"hits.txt:{n}: match {n}" for n in range(1, 2_001)] + [
        "more.txt:1: match in another file"
    ]
    assert "of 2,001" in texts[0] and "matches are in 2 files" in texts[0]


async def test_glob_and_list_dir_page_through_every_path(workspace: Path) -> None:
    tree = workspace / "tree"
    tree.mkdir()
    names = [f"file-{n:05d}.py" for n in range(1_500)]
    for name in names:
        (tree / name).touch()
    registry = default_registry()
    ctx = context(workspace, None)
    globbed = await page_through(registry, ctx, "glob", {"pattern": "**/*.py"})
    assert listed(globbed) == [f"tree/{name}" for name in names]
    entries = await page_through(registry, ctx, "list_dir", {"path": "tree"})
    assert listed(entries) == names


@pytest.mark.slow  # a megabyte of command output paged through: the whole suite runs it
async def test_a_command_too_big_is_kept_and_paged(
    tmp_path: Path, workspace: Path, outputs: KeptOutputs
) -> None:
    ctx = context(workspace, outputs)
    command = "seq 1 20000 | sed 's/^/row /'"
    registry = default_registry(archive=ChunkArchive(tmp_path / "chunks", "s"))
    first = await registry.dispatch("run_command", {"command": command}, ctx)
    assert ctx.budget.fits(first.text)
    assert first.text.startswith("row 1\nrow 2\n")
    assert first.text.endswith("row 20000\nexit code: 0")
    assert first.meta["truncated"] and first.meta["kept_output"] == 1
    assert first.meta["total_lines"] == 20_001
    assert "of 20,001 were cut to fit the context" in first.text
    kept = outputs.read(1).splitlines()
    assert kept == [f"row {i}" for i in range(1, 20_001)] + ["exit code: 0"]
    # The note leads through the middle to the end, one budget-sized page at a time.
    tool, args = next_call(first.text) or ("", {})
    texts = await page_through(registry, ctx, tool, args)
    shown = numbered_lines(texts)
    start = args["offset"]
    assert shown == {n: kept[n - 1] for n in range(start, 20_002)}


async def test_any_registered_tool_is_cut_and_kept(workspace: Path, outputs: KeptOutputs) -> None:
    """A tool added later through the registry (an MCP tool, say) gets the same bound."""

    class Chatty(Tool):
        name = "chatty"
        description = "prints a lot"
        parameters: dict[str, Any] = {"type": "object", "properties": {}}  # noqa: RUF012

        async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
            return ToolOutput("\n".join(f"record {n} " + "漢字" * 20 for n in range(5_000)))

    registry = ToolRegistry([Chatty()])
    ctx = context(workspace, outputs)
    out = await registry.dispatch("chatty", {}, ctx)
    assert ctx.budget.fits(out.text)  # by the real tokenizer, with text of 2+ tokens per char
    assert out.text.startswith("record 0 ")
    assert out.text.splitlines()[-1].startswith("record 4999 ")
    assert outputs.read(out.meta["kept_output"]).count("record ") == 5_000
    without = await registry.dispatch("chatty", {}, context(workspace, None))
    assert "was not kept: no session to keep it in" in without.text
    assert without.meta["kept_output"] is None


async def test_a_huge_archive_message_is_read_in_budget_pages(
    tmp_path: Path, workspace: Path
) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    body = "\n".join(f"archived line {n}" for n in range(1, 6_001))
    archive.write_chunk(
        [
            Message(role="user", content="read the log", id="m2"),
            Message(role="assistant", content=body, id="m3"),
        ],
        topics="a log",
        tokens=40_000,
    )
    registry = ToolRegistry([ArchiveReaderTool(archive)])
    texts = await page_through(
        registry, context(workspace, None), "read_archive", {"action": "read", "chunk": 1}
    )
    assert len(texts) > 10
    joined = "\n".join(listed(texts))
    for n in (1, 3_000, 6_000):
        assert f"archived line {n}\n" in joined + "\n"
    lines = [line for line in listed(texts) if line.startswith("archived line ")]
    assert lines == [f"archived line {n}" for n in range(1, 6_001)]


async def test_a_single_long_line_is_reachable_to_its_end(
    tmp_path: Path, workspace: Path, outputs: KeptOutputs
) -> None:
    """A 200 KB output on one line (a JSON reply, a minified bundle): its pieces are numbered
    and the notes lead through every one of them."""
    line = "".join(f"{n:06d}," for n in range(30_000))  # 210,000 characters, no newline
    (workspace / "one.json").write_text(line)
    ctx = context(workspace, outputs, tokens=1_500)
    registry = default_registry(archive=ChunkArchive(tmp_path / "chunks", "s"))
    first = await registry.dispatch("run_command", {"command": "cat one.json"}, ctx)
    assert ctx.budget.fits(first.text)
    assert "long ones in 500-character pieces" in first.text
    tool, args = next_call(first.text) or ("", {})
    texts = await page_through(registry, ctx, tool, args, limit=2_000)
    pieces = numbered_lines(texts)
    last = max(pieces)
    assert pieces[last] == "exit code: 0"
    shown = "".join(pieces[n] for n in sorted(pieces) if n != last)
    assert shown.endswith("029999,")
    start = args["offset"]
    assert shown == line[(start - 1) * 500 :]


def test_a_text_longer_than_any_count_of_it_could_fit_is_over_without_counting() -> None:
    """A command's megabytes of output are over the budget at once: no token of the encodings
    pleat counts with is longer than MAX_TOKEN_BYTES bytes (read from them here)."""
    import tiktoken

    from agent.model.tokens import ENCODING

    longest = max(len(b) for b in tiktoken.get_encoding(ENCODING).token_byte_values())
    assert longest <= MAX_TOKEN_BYTES

    counted: list[int] = []

    def count(text: str) -> int:
        counted.append(len(text))
        return count_text(text)

    budget = OutputBudget(1_000, count)
    assert not budget.fits("x" * (1_000 * MAX_TOKEN_BYTES + 1)) and counted == []
    assert budget.fits("x" * 1_000) and counted == [1_000]
