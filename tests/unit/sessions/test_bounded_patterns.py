"""Patterns from the model never hold pleat: regexes run under a time budget, globs in linear
time, and grep neither skips long lines silently nor takes UTF-16 text for binary."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

import sessions.bounded_regex
from sessions.archive import ChunkArchive
from sessions.archive_query import chunk_entries, compile_query, search
from sessions.bounded_regex import Deadline, PatternTooSlow, compile_pattern
from sessions.messages import Message
from tools.archive_reader import ArchiveReaderTool
from tools.base import ToolContext, ToolError
from tools.globbing import LinearGlob, glob_to_regex
from tools.line_search import matches_per_line, matching_lines
from tools.search import GlobTool, GrepTool

# The budget of a search that must run out of it: the patterns backtrack for minutes, so it
# always runs out (a small one keeps these tests fast and races nothing).
TEST_BUDGET_SECONDS = 0.2
# The budget of a search that must not run out: its work takes milliseconds, and no busy
# machine stretches that to a minute.
SANE_BUDGET_SECONDS = 60.0
# The budget of a search that finds a few bytes' match first, then meets a trap that runs it
# out: the match comes in milliseconds even on a loaded machine, far inside it.
MIXED_BUDGET_SECONDS = 2.0
# A line on which backtracking patterns try every split of the a's before failing at the "!".
BACKTRACKING_LINE = "a" * 48 + "!"
# Patterns whose run on BACKTRACKING_LINE takes minutes or more even in the `regex` package
# (which does see through `(a+)+$`); the archive query's nested-repetition check catches none of
# them, so only the time budget stops them.
CATASTROPHIC = ["(a|aa)+$", "(?:a|a)+$", "(aa|a)+!?$x"]
# Patterns `re` would backtrack on for minutes that must come back at once, stopped or not.
ALSO_HOSTILE = ["(a+)+$", "(a|a?)+$", r"(\w+\s?)+$", "(.*a){20}"]


def set_budget(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    monkeypatch.setattr(sessions.bounded_regex, "PATTERN_TIME_BUDGET_SECONDS", seconds)


@pytest.fixture(autouse=True)
def sane_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every search here gets a budget its work cannot run out, unless a test asks for less."""
    set_budget(monkeypatch, SANE_BUDGET_SECONDS)


@pytest.fixture
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    set_budget(monkeypatch, TEST_BUDGET_SECONDS)


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize("pattern", CATASTROPHIC)
async def test_grep_stops_a_catastrophic_pattern_with_one_clear_line(
    workspace: Path, ctx: ToolContext, pattern: str
) -> None:
    (workspace / "trap.txt").write_text(f"first\n{BACKTRACKING_LINE}\n")
    with pytest.raises(ToolError, match=r"more than 0\.2 s to match .* backtracks"):
        await asyncio.wait_for(GrepTool().run({"pattern": pattern}, ctx), timeout=30)


async def test_grep_keeps_the_matches_found_before_the_budget_ran_out(
    workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_budget(monkeypatch, MIXED_BUDGET_SECONDS)
    (workspace / "a.txt").write_text("aaa\n")  # matches quickly
    (workspace / "b.txt").write_text(BACKTRACKING_LINE + "\n")  # then the trap
    out = await asyncio.wait_for(GrepTool().run({"pattern": "(a|aa)+$"}, ctx), timeout=30)
    assert out.text.splitlines()[0] == "a.txt:1: aaa"
    assert "[search stopped early: the pattern took more than 2 s" in out.text


@pytest.mark.usefixtures("small_budget")
def test_the_deadline_is_shared_by_every_run_of_one_search() -> None:
    deadline = Deadline()
    pattern = compile_pattern("(a|aa)+$")
    with pytest.raises(PatternTooSlow):
        for _ in range(100):  # each run alone would time out: together they share one budget
            deadline.search(pattern, BACKTRACKING_LINE)
    with pytest.raises(PatternTooSlow):
        deadline.remaining()


def make_archive(root: Path) -> ChunkArchive:
    archive = ChunkArchive(root / "chunks", "s1")
    messages = [Message("user", "hello", id="m1"), Message("assistant", BACKTRACKING_LINE, id="m2")]
    archive.write_chunk(messages, topics="t", tokens=10)
    return archive


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_an_archive_search_stops_a_catastrophic_pattern(tmp_path: Path, pattern: str) -> None:
    archive = make_archive(tmp_path)
    query = compile_query(pattern, case_sensitive=True)
    result = search(query, [1], lambda n: chunk_entries(archive, n))
    assert result.hits == []
    if query.is_regex:  # `(a+)+$` is run as words instead: the budget is for the others
        assert result.stopped_early is not None and "backtracks" in result.stopped_early


@pytest.mark.usefixtures("small_budget")
@pytest.mark.parametrize("pattern", ALSO_HOSTILE)
async def test_other_hostile_patterns_come_back(
    workspace: Path, ctx: ToolContext, pattern: str
) -> None:
    (workspace / "trap.txt").write_text(f"first\n{BACKTRACKING_LINE}\n")
    try:
        out = await asyncio.wait_for(GrepTool().run({"pattern": pattern}, ctx), timeout=30)
    except ToolError as error:
        assert "backtracks" in str(error)
    else:
        assert out.text.startswith(("no matches", "trap.txt:"))


@pytest.mark.usefixtures("small_budget")
async def test_read_archive_answers_a_catastrophic_query(tmp_path: Path, ctx: ToolContext) -> None:
    archive = make_archive(tmp_path)
    tool = ArchiveReaderTool(archive)
    with pytest.raises(ToolError, match="backtracks"):
        await asyncio.wait_for(tool.run({"action": "search", "query": "(a|aa)+$"}, ctx), 30)


# Patterns whose meaning could change when lines are searched joined in blocks: line anchors,
# classes and spaces that can cross a line break, alternatives of different lengths.
BLOCK_PATTERNS = [
    "a", "^a", "a$", "^$", r"a\s*b", r"a\s+", r"\s*$", "[^x]+b", "b|ab", "(?s)a.b", r"\bab\b",
    "x*", "a(?=\n)", r"a(?!\S)", r"(?m)^b", r"\Aa", r"a\Z", r"(?<=b)a", "",
]  # fmt: skip


@pytest.mark.parametrize("pattern", BLOCK_PATTERNS)
def test_lines_searched_in_blocks_match_as_if_searched_one_by_one(pattern: str) -> None:
    rng = random.Random(pattern)
    lines = ["".join(rng.choice("ab x") for _ in range(rng.randrange(0, 6))) for _ in range(400)]
    expected = [
        (i, m.start())
        for i, line in enumerate(lines)
        if (m := re.compile(pattern, re.MULTILINE).search(line)) is not None
    ]
    compiled = compile_pattern(pattern, multiline=True)
    per_line = matches_per_line(pattern)
    assert list(matching_lines(compiled, lines, Deadline(), per_line=per_line)) == expected


def random_glob(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(1, 5)):
        if rng.random() < 0.25:
            parts.append("**")
        else:
            parts.append(
                "".join(
                    rng.choice(["a", "b", "*", "?", "[ab]", "[!a]"])
                    for _ in range(rng.randrange(0, 5))
                )
            )
    return "/".join(parts)


@pytest.mark.slow  # 15,000 random cases
def test_the_linear_glob_matcher_agrees_with_the_regex_translation() -> None:
    rng = random.Random(14)
    for _ in range(1_500):
        pattern = random_glob(rng)
        linear = LinearGlob(pattern)
        regex = re.compile(glob_to_regex(pattern))
        for _ in range(10):
            path = "/".join(
                "".join(rng.choice("ab") for _ in range(rng.randrange(1, 5)))
                for _ in range(rng.randrange(1, 5))
            )
            assert linear.fullmatch(path) == (regex.fullmatch(path) is not None), (pattern, path)


async def test_nested_globs_finish(workspace: Path, ctx: ToolContext) -> None:
    deep = workspace / "d1" / "d2" / "d3"
    deep.mkdir(parents=True)
    (deep / ("a" * 80 + ".txt")).write_text("x\n")
    (workspace / ".gitignore").write_text("**/**/**/**/**/**/**/**/*a*a*a*a*a*a*a*a*a*b\n")
    pattern = "**/**/**/**/**/**/**/**/**/**/*a*a*a*a*a*a*a*a*a*a*b"
    out = await asyncio.wait_for(GlobTool().run({"pattern": pattern}, ctx), timeout=30)
    assert out.text.startswith("no files match")
    found = await asyncio.wait_for(GlobTool().run({"pattern": "**/**/*a*a*a*.txt"}, ctx), 30)
    assert found.text.splitlines()[0] == f"d1/d2/d3/{'a' * 80}.txt"


async def test_grep_reports_lines_longer_than_it_searches(
    workspace: Path, ctx: ToolContext
) -> None:
    (workspace / "min.js").write_text("needle " + "x" * (2 * 1024 * 1024) + " needle\nneedle\n")
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert out.text.splitlines()[0].startswith("min.js:1: needle")
    assert "[1 lines longer than 1 MiB were searched only in their first MiB" in out.text


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
async def test_grep_searches_utf16_and_utf32_text(
    workspace: Path, ctx: ToolContext, encoding: str
) -> None:
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00"}
    text = "first line\nthe needle is here\nlast\n"
    (workspace / "wide.txt").write_bytes(bom[encoding] + text.encode(encoding))
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert out.text.splitlines()[0] == "wide.txt:2: the needle is here"
