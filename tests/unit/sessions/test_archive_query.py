"""One set of search rules for the archive: read_archive and the /chunks browser find the same."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from agent.slash.chunk_search import ChunkSearcher, body, hit_page, pages, read_chunk
from sessions.archive import ChunkArchive
from sessions.archive_query import (
    MAX_COUNTED_MATCHES,
    MAX_QUERY_CHARS,
    QueryError,
    SearchCancelled,
    chunk_entries,
    compile_query,
    find_spans,
    nested_repetition,
    pack_pages,
    search,
    split_pages,
)
from sessions.bounded_regex import Deadline, compile_pattern
from sessions.messages import Message, ToolCall
from tools.archive_reader import ArchiveReaderTool
from tools.base import ToolContext

# A tool-call argument with quotes and a space, as the model typed it.
RUN = ToolCall("call_run", "run_command", json.dumps({"command": 'pytest -k "parse args"'}))
# A long tool output whose one match is near its end, so the browser must open a later page.
LONG_OUTPUT = "".join(f"line {n} of a long log\n" for n in range(6_000)) + "the zebra at the end\n"
# The hit line of read_archive: `chunk 2 · m4 · user: …` and its optional match count.
HIT_LINE = re.compile(r"chunk (\d+) · (\S+) · .*?(?: \((\d+)\+? matches in this message\))?\Z")
# Queries that the tool and the browser used to answer differently (phrases, markup words,
# empty matches, an invalid and a catastrophic regex), and ordinary ones.
QUERIES = [
    "zebra",
    "ZEBRA yak",
    "yak zebra",
    r"KeyError: '\w+'",
    "parse.args",
    'pytest -k "parse args"',
    "foo(( zebra",
    "(a+)+$",
    "x*",
    "session",
    "user",
    "```",
    "chunk",
    "  zebra  ",
]


@pytest.fixture
def archive(tmp_path: Path) -> ChunkArchive:
    chunks = ChunkArchive(tmp_path / "chunks", "s1")
    chunks.write_chunk(
        [
            Message("user", "Fix parse_args: KeyError: 'verbose' when run", id="m1"),
            Message("assistant", "Running it.", tool_calls=(RUN,), id="m2"),
            Message("tool", "1 failed", tool_call_id=RUN.id, name=RUN.name, id="m3"),
        ],
        topics="session user chunk",
        tokens=10,
        shrunk=[Message("tool", "full text: zebra yak", tool_call_id="c9", name="grep", id="m9")],
    )
    chunks.write_chunk(
        [
            Message("user", "a zebra yak, then another zebra; foo(( too", id="m4"),
            Message("assistant", "yak and zebra, in that order", id="m5"),
            Message("tool", LONG_OUTPUT, tool_call_id="c6", name="read_file", id="m6"),
        ],
        topics="animals",
        tokens=10,
    )
    return chunks


async def tool_hits(archive: ChunkArchive, query: str, tmp_path: Path) -> dict[int, list[str]]:
    """read_archive's hits: the message ids of each chunk, each repeated per match."""
    out = await ArchiveReaderTool(archive).run(
        {"action": "search", "query": query}, ToolContext(tmp_path)
    )
    hits: dict[int, list[str]] = {}
    for line in out.text.splitlines():
        found = HIT_LINE.match(line)
        if found:
            hits.setdefault(int(found[1]), []).extend([found[2]] * int(found[3] or 1))
    return hits


@pytest.mark.parametrize("query", QUERIES)
async def test_the_tool_and_the_browser_find_the_same(
    archive: ChunkArchive, tmp_path: Path, query: str
) -> None:
    expected = await tool_hits(archive, query, tmp_path)
    numbers = [info.number for info in archive.chunks()]
    found = ChunkSearcher(archive).search(compile_query(query), numbers, lambda: False)
    assert {n: h.count for n, h in found.items()} == {n: len(ids) for n, ids in expected.items()}
    assert {n: h.first.entry.message.id for n, h in found.items()} == {
        n: ids[0] for n, ids in expected.items()
    }


async def test_what_each_query_finds(archive: ChunkArchive, tmp_path: Path) -> None:
    # A plain phrase is matched as typed (a regex without special characters), in any case.
    assert await tool_hits(archive, "ZEBRA yak", tmp_path) == {1: ["m9"], 2: ["m4"]}
    # Words only when the query is not a valid regex: all must appear, in any order.
    assert await tool_hits(archive, "foo(( zebra", tmp_path) == {2: ["m4"] * 3}
    # The chunk file's own markup (front matter, headings, fences) is never searched, and an
    # empty match (`q*` matches nothing here but the empty string) is no hit.
    for markup in ("session", "user", "```", "chunk", "q*"):
        assert await tool_hits(archive, markup, tmp_path) == {}
    # Tool-call arguments are searched as typed, not as escaped JSON.
    assert await tool_hits(archive, 'pytest -k "parse args"', tmp_path) == {1: ["m2"]}


def test_regex_or_words() -> None:
    regex = compile_query(r"KeyError: '\w+'")
    assert regex.is_regex and regex.described == r"/KeyError: '\w+'/ (regex, ignoring case)"
    exact = compile_query("Zebra", case_sensitive=True)
    assert exact.described == "/Zebra/ (regex, case-sensitive)"
    words = compile_query("foo(( bar foo((")
    assert not words.is_regex
    assert words.described.startswith(
        "the words foo(( bar (all must appear, ignoring case; the query is not a valid regex: "
    )
    nested = compile_query(r"(\w+\s?)*$")
    assert not nested.is_regex
    assert "the nested repetition (\\w+\\s?)* can take exponential time" in nested.described
    assert compile_query("  spaced  ").described == "/spaced/ (regex, ignoring case)"


@pytest.mark.parametrize("query", ["", "   \n"])
def test_an_empty_query_is_refused(query: str) -> None:
    with pytest.raises(QueryError, match="non-empty query"):
        compile_query(query)


def test_a_very_long_query_is_refused() -> None:
    compile_query("a" * MAX_QUERY_CHARS)
    with pytest.raises(QueryError, match=f"more than {MAX_QUERY_CHARS}"):
        compile_query("a" * (MAX_QUERY_CHARS + 1))


@pytest.mark.parametrize(
    "pattern",
    [r"(a+)+", r"(a*)*b", r"(?:x|y+)+", r"((ab+))*", r"(\w+\s?)*$", r"(.*a){2,}", r"(a+){1,}"],
)
def test_nested_unbounded_repetition_is_found(pattern: str) -> None:
    assert nested_repetition(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [
        r"(\d+\.){3}\d+",  # a bounded repeat: the dots keep it linear
        r"(a|b)*",
        r"(?>a+)+",  # atomic: never backtracks
        r"(a++)+",  # possessive
        r"\(a+\)+",  # escaped parentheses are no group
        r"[(]a+[)]+",  # nor are bracketed ones
        r"(a)+(b+)",
        r"x{2}y{,3}(z?)+",
    ],
)
def test_safe_patterns_are_run_as_regexes(pattern: str) -> None:
    assert nested_repetition(pattern) is None
    assert compile_query(pattern).is_regex


def test_a_catastrophic_pattern_returns_at_once(archive: ChunkArchive) -> None:
    archive.write_chunk([Message("user", "a" * 5_000 + "!", id="m10")], topics="", tokens=1)
    numbers = [info.number for info in archive.chunks()]
    started = time.monotonic()
    result = search(compile_query("(a+)+$"), numbers, lambda n: chunk_entries(archive, n))
    assert result.hits == [] and time.monotonic() - started < 5


def test_spans_skip_empty_matches_and_are_capped() -> None:
    deadline = Deadline()
    assert find_spans(compile_pattern("x*"), "ab", deadline) == []
    every = [(n, n + 1) for n in range(1_000)]
    assert find_spans(compile_pattern("a"), "a" * 5_000, deadline) == every
    assert len(find_spans(compile_pattern("a"), "a" * 5_000, deadline)) == MAX_COUNTED_MATCHES


def test_unreadable_chunks_are_skipped_and_a_search_can_stop(archive: ChunkArchive) -> None:
    archive.path(1).write_text("not a chunk\n")
    loader = ChunkSearcher(archive).entries
    result = search(compile_query("zebra"), [1, 2], loader)
    assert result.skipped == [(1, "no front matter: the first line is 'not a chunk'")]
    assert {hit.entry.message.id for hit in result.hits} == {"m4", "m5", "m6"}
    with pytest.raises(SearchCancelled):
        search(compile_query("zebra"), [2], loader, lambda: True)


def test_the_searcher_rereads_a_changed_chunk(archive: ChunkArchive) -> None:
    searcher = ChunkSearcher(archive)
    assert searcher.search(compile_query("walrus"), [1], lambda: False) == {}
    archive.merge_into_last([Message("user", "a walrus", id="m7")], topics="", tokens=1)
    assert list(searcher.search(compile_query("walrus"), [2], lambda: False)) == [2]


def test_the_browser_opens_a_chunk_at_its_hit(archive: ChunkArchive) -> None:
    info = archive.chunks()[1]
    shown = pages(body(read_chunk(info)))
    assert len(shown) > 2
    found = ChunkSearcher(archive).search(compile_query("zebra at the"), [2], lambda: False)
    assert "the zebra at the end" in shown[hit_page(shown, found[2].first)]
    first = ChunkSearcher(archive).search(compile_query("zebra"), [2], lambda: False)
    assert hit_page(shown, first[2].first) == 0
    # A shrunk original is found in its own section, not at a folded stub of the same id.
    shrunk = ChunkSearcher(archive).search(compile_query("full text"), [1], lambda: False)
    one = pages(body(read_chunk(archive.chunks()[0])), size=300)
    assert "full text: zebra yak" in one[hit_page(one, shrunk[1].first)]


def test_pages_split_exactly_at_the_preferred_boundary() -> None:
    text = "".join(f"line {n}\n" for n in range(1_000))
    pieces = split_pages(text, 100)
    assert "".join(pieces) == text
    assert all(len(piece) <= 100 and piece.endswith("\n") for piece in pieces)
    unbroken = "x" * 250
    assert split_pages(unbroken, 100) == ["x" * 100, "x" * 100, "x" * 50]
    assert split_pages("short", 100) == ["short"]


def test_blocks_pack_into_pages() -> None:
    blocks = [("a" * 40, False), ("b" * 40, False), ("c" * 40, True), ("d" * 10, False)]
    assert pack_pages(blocks, 90, "\n\n") == [["a" * 40, "b" * 40], ["c" * 40], ["d" * 10]]
    assert pack_pages([("x" * 200, False)], 90, "\n\n") == [["x" * 200]]
