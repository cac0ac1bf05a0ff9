"""read_archive on a real chunk archive: list, search, read, pages, ids, and refused arguments."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from sessions.archive import ChunkArchive
from sessions.archive_query import MAX_HITS, PAGE_CHARS
from sessions.messages import Message, ToolCall
from tools.archive_lookup import EMPTY_ARCHIVE
from tools.archive_reader import READER_TOOL_NAME, ArchiveReaderTool
from tools.base import ToolContext, ToolError
from tools.registry import ToolRegistry, default_registry

# Room a page may take beyond PAGE_CHARS: its title line and footer.
PAGE_SLACK = 500

RUN_PYTEST = ToolCall(
    "call_run", "run_command", json.dumps({"command": 'pytest tests/test_cli.py -k "parse_args"'})
)
READ_CLI = ToolCall("call_read", "read_file", json.dumps({"path": "src/cli.py"}))
TRACEBACK = (
    "Traceback (most recent call last):\n"
    + "".join(f'  File "src/cli.py", line {n}, in step_{n}\n' for n in range(1, 120))
    + "KeyError: 'verbose'\n"
)
CLI_SOURCE = "".join(f"def helper_{n}(argv):\n    return argv[{n}]\n\n" for n in range(200))
ORIGINAL = "ORIGINAL-MARKER " + CLI_SOURCE
STUB = (
    "[pleat: this read_file output (9000 characters) was shrunk; the full text is archived in "
    "chunk 1 as message m7. It began:]\nORIGINAL-MARKER def helper_0\n[...]"
)


def tool_message(call: ToolCall, content: str, message_id: str, **meta: Any) -> Message:
    return Message(
        "tool", content, tool_call_id=call.id, name=call.name, id=message_id, meta=dict(meta)
    )


@pytest.fixture
def archive(tmp_path: Path) -> ChunkArchive:
    """Chunk 1: m1-m5 folded plus the shrunk original of m7; chunk 2: m6-m10 (two folds)."""
    chunks = ChunkArchive(tmp_path / "chunks", "session-1")
    chunks.write_chunk(
        [
            Message("user", "Fix parse_args: the CLI crashes with KeyError: 'verbose'", id="m1"),
            Message("assistant", "Running the tests first.", tool_calls=(RUN_PYTEST,), id="m2"),
            tool_message(RUN_PYTEST, TRACEBACK, "m3"),
            Message("assistant", None, tool_calls=(READ_CLI,), id="m4"),
            tool_message(READ_CLI, CLI_SOURCE, "m5"),
        ],
        topics="parse_args KeyError",
        tokens=4000,
        shrunk=[tool_message(READ_CLI, ORIGINAL, "m7")],
    )
    chunks.write_chunk(
        [
            Message("user", "Also rename parse_args to parse_cli", id="m6"),
            tool_message(READ_CLI, STUB, "m7", shrunk_to_chunk=1),
        ],
        topics="rename",
        tokens=300,
    )
    chunks.merge_into_last(
        [
            Message("assistant", "calling foo(( broke the parser; renaming now", id="m8"),
            Message("user", "thanks", id="m9"),
        ],
        topics="rename, parser",
        tokens=100,
    )
    return chunks


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(tmp_path)


@pytest.fixture
def registry(archive: ChunkArchive) -> ToolRegistry:
    return ToolRegistry([ArchiveReaderTool(archive)])


async def call(registry: ToolRegistry, ctx: ToolContext, **args: Any) -> str:
    """Dispatch with raw JSON (so validation runs end to end); fail on an error output."""
    out = await registry.dispatch(READER_TOOL_NAME, json.dumps(args), ctx)
    assert not out.is_error, out.text
    return out.text


async def error(registry: ToolRegistry, ctx: ToolContext, raw: str) -> str:
    out = await registry.dispatch(READER_TOOL_NAME, raw, ctx)
    assert out.is_error, out.text
    assert "\n" not in out.text
    return out.text


async def all_pages(registry: ToolRegistry, ctx: ToolContext, **args: Any) -> list[str]:
    """Every page of a read, following the footers."""
    pages = [await call(registry, ctx, action="read", **args)]
    while "; next: " in pages[-1]:
        assert pages[-1].endswith(f"page={len(pages) + 1}]")
        pages.append(await call(registry, ctx, action="read", page=len(pages) + 1, **args))
    return pages


def page_body(page: str) -> str:
    """A page without its title line and footer."""
    body = page.split("\n\n", 1)[1]
    return re.sub(r"\n\n\[page \d+ of \d+[;:][^\n]*\]\Z", "", body)


# --- list ----------------------------------------------------------------------------------


async def test_list_shows_every_chunk_oldest_first(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    text = await call(registry, ctx, action="list")
    lines = text.splitlines()
    assert lines[0] == "2 chunks in the archive, oldest first:"
    assert lines[1].startswith(
        "chunk 1 · messages m1-m5 (5 messages + 1 shrunk original) · ~4000 tokens · created "
    )
    assert lines[1].endswith(" · parse_args KeyError")
    assert lines[2].startswith("chunk 2 · messages m6-m9 (4 messages) · ~400 tokens · created ")
    assert ", last merged " in lines[2]
    assert lines[2].endswith(" · rename, parser")
    assert "action=read chunk=N" in lines[-1]


async def test_empty_archive(tmp_path: Path, ctx: ToolContext) -> None:
    registry = ToolRegistry([ArchiveReaderTool(ChunkArchive(tmp_path / "none", "s"))])
    assert await call(registry, ctx, action="list") == EMPTY_ARCHIVE
    assert await call(registry, ctx, action="search", query="x") == EMPTY_ARCHIVE
    assert await call(registry, ctx) == EMPTY_ARCHIVE  # no action: list
    text = await error(registry, ctx, '{"action": "read", "chunk": 1}')
    assert text == f"chunk 1 does not exist; {EMPTY_ARCHIVE}"
    assert EMPTY_ARCHIVE in await error(registry, ctx, '{"action": "read", "id": "m1"}')


# --- search --------------------------------------------------------------------------------


async def test_regex_hit_names_chunk_id_role_and_snippet(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    text = await call(registry, ctx, action="search", query=r"KeyError: '\w+'")
    lines = text.splitlines()
    assert lines[0] == (
        r"2 hits for /KeyError: '\w+'/ (regex, ignoring case) in chunks 1-2, oldest first:"
    )
    assert lines[1] == (
        "chunk 1 · m1 · user: Fix parse_args: the CLI crashes with »KeyError: 'verbose'«"
    )
    # A long tool output: a one-line snippet around the match, cut with ellipses.
    assert lines[2].startswith("chunk 1 · m3 · tool run_command: …")
    assert lines[2].endswith("»KeyError: 'verbose'«")
    assert len(lines[2]) < 300
    assert "action=read id=" in lines[-1]


async def test_search_ignores_case_unless_asked(registry: ToolRegistry, ctx: ToolContext) -> None:
    assert "m1 · user" in await call(registry, ctx, action="search", query="keyerror")
    exact = await call(registry, ctx, action="search", query="keyerror", case_sensitive=True)
    assert exact.startswith("no hits for /keyerror/ (regex, case-sensitive) in chunks 1-2")


async def test_invalid_regex_searches_the_words(registry: ToolRegistry, ctx: ToolContext) -> None:
    text = await call(registry, ctx, action="search", query="foo(( PARSER")
    lines = text.splitlines()
    assert lines[0].startswith("1 hit for the words foo(( PARSER (all must appear, ignoring case;")
    assert "not a valid regex" in lines[0]
    assert lines[1] == (
        "chunk 2 · m8 · assistant: calling »foo((« broke the »parser«; renaming now "
        "(2 matches in this message)"
    )
    none = await call(registry, ctx, action="search", query="foo(( nowhere-to-be-found")
    assert none.startswith("no hits for the words")


async def test_search_finds_tool_call_arguments(registry: ToolRegistry, ctx: ToolContext) -> None:
    # The command is matched as the model typed it, not as escaped JSON.
    text = await call(registry, ctx, action="search", query='-k "parse_args"')
    assert text.splitlines()[1] == (
        'chunk 1 · m2 · assistant · call run_command: command: pytest tests/test_cli.py »-k "'
        'parse_args"«'
    )
    paths = await call(registry, ctx, action="search", query=r"src/cli\.py")
    assert "chunk 1 · m4 · assistant · call read_file: path: »src/cli.py«" in paths


async def test_search_limited_to_one_chunk(registry: ToolRegistry, ctx: ToolContext) -> None:
    everywhere = await call(registry, ctx, action="search", query="parse_args")
    assert "chunk 1 · m1" in everywhere and "chunk 2 · m6" in everywhere
    one = await call(registry, ctx, action="search", query="parse_args", chunk=2)
    hits = [line for line in one.splitlines() if line.startswith("chunk ")]
    assert one.splitlines()[0].endswith("in chunk 2, oldest first:")
    assert hits == ["chunk 2 · m6 · user: Also rename »parse_args« to parse_cli"]
    missing = await error(registry, ctx, '{"action": "search", "query": "x", "chunk": 5}')
    assert missing == "chunk 5 does not exist; the archive has chunks 1-2"


async def test_search_covers_shrunk_originals(registry: ToolRegistry, ctx: ToolContext) -> None:
    text = await call(registry, ctx, action="search", query="ORIGINAL-MARKER def helper_0")
    hits = [line for line in text.splitlines() if line.startswith("chunk ")]
    assert hits[0].startswith("chunk 1 · m7 · tool read_file · shrunk original: ")
    assert hits[1].startswith("chunk 2 · m7 · tool read_file: ")  # the stub, folded later


async def test_hits_are_capped_and_the_rest_counted(tmp_path: Path, ctx: ToolContext) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    for first in (1, 41):
        messages = [Message("user", f"needle {n}", id=f"m{n}") for n in range(first, first + 40)]
        archive.write_chunk(messages, topics="hay", tokens=10)
    registry = ToolRegistry([ArchiveReaderTool(archive)])
    text = await call(registry, ctx, action="search", query="needle")
    hits = [line for line in text.splitlines() if line.startswith("chunk ")]
    assert len(hits) == MAX_HITS
    assert hits[0] == "chunk 1 · m1 · user: »needle« 1"
    assert text.splitlines()[0].startswith("80 hits for /needle/")
    assert f"[{80 - MAX_HITS} more hits not shown (in chunks 1-2); narrow the query" in text


async def test_empty_query_is_refused(registry: ToolRegistry, ctx: ToolContext) -> None:
    assert "needs `query`" in await error(registry, ctx, '{"action": "search"}')
    assert "non-empty" in await error(registry, ctx, '{"action": "search", "query": "  "}')


# --- read ----------------------------------------------------------------------------------


async def test_read_a_whole_chunk(registry: ToolRegistry, ctx: ToolContext) -> None:
    text = await call(registry, ctx, action="read", chunk=1)
    assert text.startswith(
        "[chunk 1: 5 messages, m1 to m5, then 1 shrunk original · page 1 of 1]\n\n"
    )
    headers = re.findall(r"^\[m\d+ [^\n]*\]$", text, re.MULTILINE)
    assert headers == [
        "[m1 · user]",
        "[m2 · assistant]",
        "[m3 · tool run_command · call_run]",
        "[m4 · assistant]",
        "[m5 · tool read_file · call_read]",
        "[m7 · tool read_file · call_read · shrunk original, full text]",
    ]
    assert (
        "[m2 · assistant]\nRunning the tests first.\n"
        f"tool call call_run: run_command {RUN_PYTEST.arguments}\n\n"
    ) in text
    assert f"[m3 · tool run_command · call_run]\n{TRACEBACK}\n\n" in text
    assert f"[m4 · assistant]\ntool call call_read: read_file {READ_CLI.arguments}\n\n" in text
    assert text.endswith(
        f"[m7 · tool read_file · call_read · shrunk original, full text]\n{ORIGINAL}"
    )


async def test_read_an_id_range(registry: ToolRegistry, ctx: ToolContext) -> None:
    text = await call(registry, ctx, action="read", chunk=1, from_id="m2", to_id="4")
    assert text.startswith("[chunk 1: messages m2 to m4 (3 of 6) · page 1 of 1]")
    assert re.findall(r"^\[(m\d+) · ", text, re.MULTILINE) == ["m2", "m3", "m4"]
    tail = await call(registry, ctx, action="read", chunk=2, from_id="m8")
    assert re.findall(r"^\[(m\d+) · ", tail, re.MULTILINE) == ["m8", "m9"]


async def test_unknown_or_reversed_ids_are_clear_errors(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    text = await error(registry, ctx, '{"action": "read", "chunk": 1, "from_id": "m40"}')
    assert text == (
        "message m40 is not in chunk 1, which holds m1-m5 (5 messages) and the shrunk originals m7"
    )
    reversed_range = '{"action": "read", "chunk": 1, "from_id": "m4", "to_id": "m2"}'
    assert "comes before from_id" in await error(registry, ctx, reversed_range)
    both = '{"action": "read", "id": "m4", "to_id": "m5"}'
    assert "either `id`" in await error(registry, ctx, both)
    assert "needs `chunk`" in await error(registry, ctx, '{"action": "read"}')


async def test_read_message_by_id_gives_the_shrunk_original(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    text = await call(registry, ctx, id="m7")  # the action is inferred from `id`
    title, block = text.split("\n\n", 1)
    assert title == (
        "[message m7 from chunk 1, the full original of an output shrunk in the live "
        "conversation · page 1 of 1]"
    )
    assert block == f"[m7 · tool read_file · call_read · shrunk original, full text]\n{ORIGINAL}"
    stub = await call(registry, ctx, action="read", id="m7", chunk=2)
    assert stub.endswith(f"[m7 · tool read_file · call_read]\n{STUB}")
    plain = await call(registry, ctx, action="read", id="1")
    assert plain.endswith("[m1 · user]\nFix parse_args: the CLI crashes with KeyError: 'verbose'")
    missing = await error(registry, ctx, '{"action": "read", "id": "m99"}')
    assert missing.startswith("no message m99 in the archive (chunks 1-2 hold m1 to m9)")


async def test_nonexistent_chunk_lists_the_existing_ones(
    registry: ToolRegistry, ctx: ToolContext
) -> None:
    text = await error(registry, ctx, '{"action": "read", "chunk": 3}')
    assert text == "chunk 3 does not exist; the archive has chunks 1-2"


@pytest.mark.parametrize(
    "chunk", ['"../../etc/passwd"', '"chunk-0001.md"', '"1"', "true", "[1]", "0", "-1", "1.5"]
)
async def test_path_like_chunks_are_refused(
    registry: ToolRegistry, ctx: ToolContext, chunk: str
) -> None:
    text = await error(registry, ctx, f'{{"action": "read", "chunk": {chunk}}}')
    assert text.startswith("argument 'chunk' of read_archive must be ")


async def test_there_is_no_path_argument(registry: ToolRegistry, ctx: ToolContext) -> None:
    text = await error(registry, ctx, '{"action": "read", "path": "/etc/passwd"}')
    assert text.startswith("unknown argument 'path' for read_archive")
    # An id is only compared with archived ids, never used as a file name.
    text = await error(registry, ctx, '{"action": "read", "id": "../../etc/passwd"}')
    assert text.startswith("no message ../../etc/passwd in the archive")


# --- pages ---------------------------------------------------------------------------------


async def test_a_big_chunk_is_paginated_without_loss(tmp_path: Path, ctx: ToolContext) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    contents = {
        f"m{n}": f"<message {n}>\n" + "".join(f"{n}:{line} output line\n" for line in range(300))
        for n in range(1, 31)
    }
    archive.write_chunk(
        [Message("user", text, id=mid) for mid, text in contents.items()], topics="", tokens=1
    )
    registry = ToolRegistry([ArchiveReaderTool(archive)])
    pages = await all_pages(registry, ctx, chunk=1)
    assert len(pages) >= 4
    for number, page in enumerate(pages, 1):
        assert len(page) <= PAGE_CHARS + PAGE_SLACK
        assert page.startswith(f"[chunk 1: 30 messages, m1 to m30 · page {number} of {len(pages)}]")
    assert "next: read_archive action=read chunk=1 page=2]" in pages[0]
    assert pages[-1].endswith(f"[page {len(pages)} of {len(pages)}: the end]")
    joined = "\n\n".join(page_body(page) for page in pages)
    assert re.findall(r"^\[(m\d+) · ", joined, re.MULTILINE) == list(contents)  # in order, once
    for mid, text in contents.items():
        assert joined.count(f"[{mid} · user]\n{text}") == 1
    assert "part 1 of" not in joined  # no message was split
    assert "page 9 of" not in await call(registry, ctx, action="read", chunk=1, page=len(pages))
    beyond = json.dumps({"action": "read", "chunk": 1, "page": len(pages) + 1})
    assert await error(registry, ctx, beyond) == (
        f"page {len(pages) + 1} does not exist: this read has {len(pages)} pages"
    )


@pytest.mark.parametrize("with_newlines", [True, False])
async def test_a_huge_message_is_split_across_pages(
    tmp_path: Path, ctx: ToolContext, with_newlines: bool
) -> None:
    archive = ChunkArchive(tmp_path / "chunks", "s")
    if with_newlines:
        huge = "".join(
            f"line {n:06d} of a very large tool output\n" for n in range(2400)
        )  # 98,400 characters
    else:
        huge = "".join(f"{n:06d}," for n in range(15_000))  # one line, 105,000 characters
    call_ = ToolCall("c1", "run_command", '{"command": "cat big.log"}')
    archive.write_chunk(
        [
            Message("assistant", None, tool_calls=(call_,), id="m1"),
            tool_message(call_, huge, "m2"),
            Message("user", "after", id="m3"),
        ],
        topics="",
        tokens=1,
    )
    registry = ToolRegistry([ArchiveReaderTool(archive)])
    pages = await all_pages(registry, ctx, id="m2")
    assert len(pages) == 3
    assert "next: read_archive action=read id=m2 page=2]" in pages[0]
    rebuilt = []
    for number, page in enumerate(pages, 1):
        assert len(page) <= PAGE_CHARS + PAGE_SLACK
        header, piece = page_body(page).split("\n", 1)
        assert header == f"[m2 · tool run_command · c1 · part {number} of 3]"
        if number < 3:
            note = f"\n[m2 continues in part {number + 1} on the next page]"
            assert piece.endswith(note)
            piece = piece.removesuffix(note)
            if with_newlines:
                assert piece.endswith("\n")  # cut between lines, not inside one
        rebuilt.append(piece)
    assert "".join(rebuilt) == huge
    # Read as part of its chunk, the neighbours stay whole and the parts end their pages.
    chunk_pages = await all_pages(registry, ctx, chunk=1)
    joined = "\n\n".join(page_body(page) for page in chunk_pages)
    assert joined.count("[m1 · assistant]\ntool call c1: run_command") == 1
    assert joined.count("[m3 · user]\nafter") == 1
    assert re.findall(r"^\[(m\d+) · ", joined, re.MULTILINE) == ["m1", "m2", "m2", "m2", "m3"]


# --- the tool itself -----------------------------------------------------------------------


def test_schema_and_registration(archive: ChunkArchive) -> None:
    tool = ArchiveReaderTool(archive)
    assert tool.read_only
    schema = tool.schema()["function"]
    assert schema["name"] == "read_archive"
    assert "exact text from before a fold" in schema["description"]
    assert "path" not in schema["parameters"]["properties"]
    assert schema["parameters"]["properties"]["chunk"]["type"] == "integer"
    assert default_registry(archive=archive).names()[-1] == "read_archive"
    assert "read_archive" not in default_registry().names()


async def test_reading_happens_off_the_event_loop(
    archive: ChunkArchive, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[threading.Thread] = []
    real = archive.read_parts

    def spy(number: int) -> tuple[list[Message], list[Message]]:
        seen.append(threading.current_thread())
        return real(number)

    monkeypatch.setattr(archive, "read_parts", spy)
    tool = ArchiveReaderTool(archive)
    await tool.run({"action": "read", "chunk": 1}, ctx)
    await tool.run({"action": "search", "query": "x"}, ctx)
    assert seen and all(thread is not threading.main_thread() for thread in seen)


async def test_a_damaged_chunk_is_a_clear_error(archive: ChunkArchive, ctx: ToolContext) -> None:
    archive.path(2).write_text("not a chunk\n")
    tool = ArchiveReaderTool(archive)
    with pytest.raises(ToolError, match=r"^chunk 2 is damaged and cannot be read; "):
        await tool.run({"action": "read", "chunk": 2}, ctx)
    # Search still covers the readable chunks.
    out = await tool.run({"action": "search", "query": "verbose"}, ctx)
    assert "chunk 1 · m1" in out.text
