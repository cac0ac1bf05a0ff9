"""read_file, write_file, edit_file and list_dir on real files in a temporary workspace."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolError
from tools.edit_file import EditFileTool
from tools.list_dir import ListDirTool
from tools.output_budget import OutputBudget
from tools.read_file import MAX_LINE_CHARS, ReadFileTool
from tools.write_file import WriteFileTool

# --- read_file ---------------------------------------------------------------------------


async def test_read_numbers_lines_like_cat_n(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.py").write_text("first\nsecond\n")
    out = await ReadFileTool().run({"path": "a.py"}, ctx)
    assert out.text == "     1\tfirst\n     2\tsecond"
    assert not out.is_error


async def test_read_window_with_offset_and_limit(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = await ReadFileTool().run({"path": "a.txt", "offset": 4, "limit": 3}, ctx)
    lines = out.text.splitlines()
    assert lines[:3] == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert lines[3] == (
        '[lines 4-6 of 10 (71 bytes); next: read_file path="a.txt" offset=7 limit=3; '
        "the last lines: offset=8 limit=3]"
    )


async def test_huge_file_is_read_in_windows(workspace: Path, ctx: ToolContext) -> None:
    total = 200_000
    (workspace / "big.log").write_text("".join(f"entry {i}\n" for i in range(1, total + 1)))
    tool = ReadFileTool()
    first = await tool.run({"path": "big.log"}, ctx)
    lines = first.text.splitlines()
    assert lines[0] == "     1\tentry 1"
    assert lines[1999] == "  2000\tentry 2000"
    assert lines[-1] == (
        '[lines 1-2,000 of 200,000 (2,488,895 bytes); next: read_file path="big.log" '
        "offset=2001 limit=2000; the last lines: offset=198001 limit=2000]"
    )
    second = await tool.run({"path": "big.log", "offset": 2001}, ctx)
    assert second.text.splitlines()[0] == "  2001\tentry 2001"
    assert "offset=4001" in second.text
    last = await tool.run({"path": "big.log", "offset": total - 9}, ctx)
    assert last.text.splitlines()[-1] == f"{total:6}\tentry {total}"
    assert "for more" not in last.text


async def test_output_is_capped_by_the_budget(workspace: Path) -> None:
    (workspace / "wide.txt").write_text(("x" * 1000 + "\n") * 500)
    ctx = ToolContext(workspace, OutputBudget(5_000))
    out = await ReadFileTool().run({"path": "wide.txt"}, ctx)
    assert ctx.budget.fits(out.text)
    note = out.text.splitlines()[-1]
    shown = out.meta["last_line"]
    assert note.startswith(f"[lines 1-{shown} of 500 (500,500 bytes), as many as fit")
    assert f'next: read_file path="wide.txt" offset={shown + 1} limit={shown}' in note
    assert f"the last lines: offset={500 - shown + 1} limit={shown}]" in note


async def test_long_lines_are_cut(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "min.js").write_text("a" * 50_000 + "\nshort\n")
    out = await ReadFileTool().run({"path": "min.js"}, ctx)
    lines = out.text.splitlines()
    assert lines[0].endswith("[line cut]")
    assert len(lines[0]) < MAX_LINE_CHARS + 50
    assert lines[1] == "     2\tshort"
    assert f"longer than {MAX_LINE_CHARS} chars were cut" in out.text


async def test_binary_file_is_refused(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "data.bin").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    with pytest.raises(ToolError, match=r"data\.bin looks like a binary file"):
        await ReadFileTool().run({"path": "data.bin"}, ctx)


async def test_a_damaged_image_is_refused_saying_why(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ToolError, match=r"img\.png is not a usable image: a truncated PNG header"):
        await ReadFileTool().run({"path": "img.png"}, ctx)


async def test_non_utf8_bytes_are_replaced_with_a_note(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    out = await ReadFileTool().run({"path": "latin1.txt"}, ctx)
    assert out.text.splitlines()[0] == "     1\tcaf\ufffd"
    assert "not valid UTF-8" in out.text


async def test_crlf_endings_are_not_shown(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    out = await ReadFileTool().run({"path": "dos.txt"}, ctx)
    assert out.text == "     1\tone\n     2\ttwo"


async def test_read_errors_are_clear(workspace: Path, ctx: ToolContext) -> None:
    tool = ReadFileTool()
    with pytest.raises(ToolError, match=r"file not found: nope\.txt"):
        await tool.run({"path": "nope.txt"}, ctx)
    (workspace / "sub").mkdir()
    with pytest.raises(ToolError, match="sub is a directory"):
        await tool.run({"path": "sub"}, ctx)
    (workspace / "three.txt").write_text("1\n2\n3\n")
    with pytest.raises(ToolError, match=r"offset 9 is past the end of three.txt \(3 lines\)"):
        await tool.run({"path": "three.txt", "offset": 9}, ctx)


async def test_empty_file(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "empty.txt").write_text("")
    out = await ReadFileTool().run({"path": "empty.txt"}, ctx)
    assert out.text == "(empty.txt is empty)"


# --- write_file --------------------------------------------------------------------------


async def test_write_creates_parent_dirs_and_previews_a_diff(
    workspace: Path, ctx: ToolContext
) -> None:
    tool = WriteFileTool()
    args = {"path": "pkg/sub/mod.py", "content": "a = 1\nb = 2\n"}
    preview = await tool.preview(args, ctx)
    assert preview.startswith("--- /dev/null\n+++ b/pkg/sub/mod.py\n")
    assert "+a = 1\n+b = 2\n" in preview
    assert not (workspace / "pkg").exists(), "preview must not write"
    out = await tool.run(args, ctx)
    assert out.text == "created pkg/sub/mod.py (2 lines, 12 bytes)"
    assert out.meta["diff"] == preview
    assert (workspace / "pkg/sub/mod.py").read_text() == "a = 1\nb = 2\n"
    assert [p.name for p in (workspace / "pkg/sub").iterdir()] == ["mod.py"], "no temp file left"


async def test_overwrite_reports_and_diffs_and_keeps_mode(
    workspace: Path, ctx: ToolContext
) -> None:
    script = workspace / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    out = await WriteFileTool().run({"path": "run.sh", "content": "echo new\n"}, ctx)
    assert out.text.startswith("overwrote run.sh (1 lines")
    assert "-echo old\n+echo new\n" in out.meta["diff"]
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


async def test_write_onto_a_directory_fails(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "d").mkdir()
    with pytest.raises(ToolError, match="d is a directory"):
        await WriteFileTool().run({"path": "d", "content": "x"}, ctx)
    preview = await WriteFileTool().preview({"path": "d", "content": "x"}, ctx)
    assert "this call will fail" in preview


# --- edit_file ---------------------------------------------------------------------------


async def test_edit_replaces_a_unique_string(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("def f():\n    return 1\n")
    tool = EditFileTool()
    args = {"path": "m.py", "old_string": "return 1", "new_string": "return 2"}
    preview = await tool.preview(args, ctx)
    assert "-    return 1\n+    return 2\n" in preview
    assert (workspace / "m.py").read_text() == "def f():\n    return 1\n"
    out = await tool.run(args, ctx)
    assert out.text == "edited m.py: replaced 1 occurrence (at line 2)"
    assert out.meta["diff"] == preview
    assert (workspace / "m.py").read_text() == "def f():\n    return 2\n"


async def test_edit_with_no_match_is_an_error(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("x = 1\n")
    args = {"path": "m.py", "old_string": "y = 1", "new_string": "y = 2"}
    with pytest.raises(ToolError, match=r"old_string not found in m\.py"):
        await EditFileTool().run(args, ctx)
    assert "old_string not found" in await EditFileTool().preview(args, ctx)
    assert (workspace / "m.py").read_text() == "x = 1\n"


async def test_edit_with_several_matches_needs_context(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("x = 1\nx = 1\nx = 1\n")
    args = {"path": "m.py", "old_string": "x = 1", "new_string": "x = 2"}
    with pytest.raises(ToolError, match=r"occurs 3 times in m\.py.*more surrounding lines"):
        await EditFileTool().run(args, ctx)
    assert (workspace / "m.py").read_text() == "x = 1\nx = 1\nx = 1\n"


async def test_edit_replace_all(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "m.py").write_text("a\nx = 1\nx = 1\n")
    args = {"path": "m.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}
    out = await EditFileTool().run(args, ctx)
    assert out.text == "edited m.py: replaced 2 occurrences (first at line 2)"
    assert (workspace / "m.py").read_text() == "a\nx = 2\nx = 2\n"


async def test_edit_keeps_invalid_bytes_and_crlf(workspace: Path, ctx: ToolContext) -> None:
    path = workspace / "legacy.txt"
    path.write_bytes(b"caf\xe9\r\nold line\r\nend\r\n")
    args = {"path": "legacy.txt", "old_string": "old line\nend", "new_string": "new line\nend"}
    await EditFileTool().run(args, ctx)
    assert path.read_bytes() == b"caf\xe9\r\nnew line\r\nend\r\n"


async def test_edit_refusals(workspace: Path, ctx: ToolContext) -> None:
    tool = EditFileTool()
    with pytest.raises(ToolError, match=r"file not found: new\.py"):
        await tool.run({"path": "new.py", "old_string": "a", "new_string": "b"}, ctx)
    (workspace / "m.py").write_text("a\n")
    with pytest.raises(ToolError, match="old_string is empty"):
        await tool.run({"path": "m.py", "old_string": "", "new_string": "b"}, ctx)
    with pytest.raises(ToolError, match="identical"):
        await tool.run({"path": "m.py", "old_string": "a", "new_string": "a"}, ctx)
    (workspace / "b.bin").write_bytes(b"a\x00b")
    with pytest.raises(ToolError, match="binary"):
        await tool.run({"path": "b.bin", "old_string": "a", "new_string": "c"}, ctx)


# --- list_dir ----------------------------------------------------------------------------


async def test_list_dir_sorts_and_marks_directories(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "b.txt").write_text("")
    (workspace / "a").mkdir()
    (workspace / "c.py").write_text("")
    out = await ListDirTool().run({}, ctx)
    assert out.text == "a/\nb.txt\nc.py"
    assert (await ListDirTool().run({"path": "a"}, ctx)).text == "(a is empty)"


async def test_list_dir_is_paged_by_the_budget(workspace: Path) -> None:
    many = workspace / "many"
    many.mkdir()
    for i in range(1005):
        (many / f"f{i:05}").touch()
    ctx = ToolContext(workspace, OutputBudget(400))
    out = await ListDirTool().run({"path": "many"}, ctx)
    lines = out.text.splitlines()
    assert ctx.budget.fits(out.text)
    shown = len(lines) - 1
    assert lines[-1].startswith(f"[entries 1-{shown} of 1,005, as many as fit")
    assert f'next: list_dir path="many" offset={shown}' in lines[-1]


async def test_list_dir_errors(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "f.txt").write_text("")
    with pytest.raises(ToolError, match=r"f\.txt is a file"):
        await ListDirTool().run({"path": "f.txt"}, ctx)
    with pytest.raises(ToolError, match="directory not found: nope"):
        await ListDirTool().run({"path": "nope"}, ctx)
