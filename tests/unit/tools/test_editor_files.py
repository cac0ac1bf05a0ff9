"""The file tools through an editor (tools/editor_files.py): write_file, edit_file and read_file's
text go through its buffers, the disk stays as it was; images, binary files, skills' files and
paths outside the workspace never reach it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.support.editor_buffers import BufferEditor
from tests.support.images import png
from tools import read_file as read_file_module
from tools.base import ToolContext, ToolError
from tools.edit_file import EditFileTool
from tools.editor_reads import editor_text
from tools.file_changes import MAX_EDIT_BYTES
from tools.read_file import ReadFileTool
from tools.write_file import WriteFileTool

DISK_TEXT = "x = 1  # as saved\n"
BUFFER_TEXT = "x = 1  # unsaved\ny = 2\n"


@pytest.fixture
def root(workspace: Path) -> Path:
    """The workspace as the tools resolve it (the paths the editor is given lie in it)."""
    return workspace.resolve()


@pytest.fixture
def editor(root: Path) -> BufferEditor:
    """An editor with an unsaved buffer of a.py that differs from the disk's a.py."""
    (root / "a.py").write_text(DISK_TEXT)
    return BufferEditor({root / "a.py": BUFFER_TEXT})


@pytest.fixture
def ectx(ctx: ToolContext, editor: BufferEditor) -> ToolContext:
    return dataclasses.replace(ctx, editor=editor)


# --- write_file ---------------------------------------------------------------------------


async def test_write_goes_to_the_editor_and_leaves_the_disk(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    out = await WriteFileTool().run({"path": "a.py", "content": "z = 3\n"}, ectx)
    assert out.text == "overwrote a.py (1 lines, 6 bytes)"
    assert out.meta["created"] is False and out.meta["path"] == "a.py"
    assert "-x = 1  # unsaved\n" in out.meta["diff"] and "+z = 3\n" in out.meta["diff"]
    assert out.facts.files_written == ("a.py",)
    assert editor.writes == [(root / "a.py", "z = 3\n")]
    assert (root / "a.py").read_bytes() == DISK_TEXT.encode()


async def test_write_of_a_new_file_creates_it_in_the_editor_only(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    out = await WriteFileTool().run({"path": "pkg/new.py", "content": "hi\n"}, ectx)
    assert out.text == "created pkg/new.py (1 lines, 3 bytes)" and out.meta["created"] is True
    assert out.meta["diff"].startswith("--- /dev/null\n+++ b/pkg/new.py\n")
    assert editor.buffers[root / "pkg" / "new.py"] == "hi\n"
    assert not (root / "pkg").exists()


async def test_write_preview_diffs_against_the_buffer(
    editor: BufferEditor, ectx: ToolContext
) -> None:
    preview = await WriteFileTool().preview({"path": "a.py", "content": BUFFER_TEXT}, ectx)
    assert preview == "(no change to a.py)"  # the disk's text differs; the buffer's does not
    assert editor.writes == []


# --- edit_file ----------------------------------------------------------------------------


async def test_edit_changes_the_buffer_not_the_disk(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    args = {"path": "a.py", "old_string": "y = 2", "new_string": "y = 20"}
    out = await EditFileTool().run(args, ectx)
    assert out.text == "edited a.py: replaced 1 occurrence (at line 2)"
    assert out.meta["path"] == "a.py" and "+y = 20\n" in out.meta["diff"]
    assert out.facts.files_edited == ("a.py",)
    assert editor.writes == [(root / "a.py", "x = 1  # unsaved\ny = 20\n")]
    assert (root / "a.py").read_bytes() == DISK_TEXT.encode()


async def test_edit_of_text_only_on_disk_is_not_found(
    editor: BufferEditor, ectx: ToolContext
) -> None:
    args = {"path": "a.py", "old_string": "# as saved", "new_string": "# changed"}
    with pytest.raises(ToolError) as caught:
        await EditFileTool().run(args, ectx)
    assert str(caught.value).startswith("old_string not found in a.py;")
    assert editor.writes == []


async def test_edit_preview_diffs_against_the_buffer(
    editor: BufferEditor, ectx: ToolContext
) -> None:
    args = {"path": "a.py", "old_string": "# unsaved", "new_string": "# reviewed"}
    preview = await EditFileTool().preview(args, ectx)
    assert preview.startswith("--- a/a.py\n+++ b/a.py\n")
    assert "-x = 1  # unsaved\n+x = 1  # reviewed\n" in preview
    assert editor.writes == []


async def test_edit_of_a_file_the_editor_does_not_have_is_not_found(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    args = {"path": "gone.py", "old_string": "a", "new_string": "b"}
    with pytest.raises(ToolError) as caught:
        await EditFileTool().run(args, ectx)
    assert str(caught.value) == "file not found: gone.py (use write_file to create a new file)"
    assert editor.asked == [("read", root / "gone.py")]


async def test_edit_of_a_buffer_with_nul_bytes_is_refused(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    editor.buffers[root / "a.py"] = "a\x00b\n"
    args = {"path": "a.py", "old_string": "a", "new_string": "c"}
    with pytest.raises(ToolError, match="looks like a binary file"):
        await EditFileTool().run(args, ectx)
    assert editor.writes == []


async def test_edit_of_a_buffer_over_the_limit_is_refused(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    editor.buffers[root / "a.py"] = "é" * (MAX_EDIT_BYTES // 2 + 1)  # few chars, many bytes
    args = {"path": "a.py", "old_string": "é", "new_string": "e", "replace_all": True}
    with pytest.raises(ToolError, match=f"a.py is over the {MAX_EDIT_BYTES}-byte limit"):
        await EditFileTool().run(args, ectx)
    assert editor.writes == []


@pytest.mark.parametrize("tool", ["write", "edit"])
@pytest.mark.parametrize("path", ["../outside.py", "/etc/hostname", "sub/../../outside.py"])
async def test_a_path_outside_is_refused_before_the_editor_is_asked(
    tool: str, path: str, workspace: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    (workspace.parent / "outside.py").write_text("a\n")
    with pytest.raises(ToolError, match="outside"):
        if tool == "write":
            await WriteFileTool().run({"path": path, "content": "b\n"}, ectx)
        else:
            await EditFileTool().run({"path": path, "old_string": "a", "new_string": "b"}, ectx)
    assert editor.asked == []
    assert (workspace.parent / "outside.py").read_text() == "a\n"


async def test_a_symlink_leading_out_is_refused_before_the_editor_is_asked(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    (root.parent / "secret.txt").write_text("s\n")
    (root / "link.txt").symlink_to(root.parent / "secret.txt")
    with pytest.raises(ToolError):
        await EditFileTool().run({"path": "link.txt", "old_string": "s", "new_string": "t"}, ectx)
    assert editor.asked == []


async def test_an_added_directory_is_the_editors_too(
    tmp_path: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    added = (tmp_path / "lib").resolve()
    added.mkdir()
    ctx = dataclasses.replace(ectx, extra_roots=(added,))
    out = await WriteFileTool().run({"path": str(added / "m.py"), "content": "m\n"}, ctx)
    assert out.text == f"created {added / 'm.py'} (1 lines, 2 bytes)"
    assert editor.writes == [(added / "m.py", "m\n")] and not (added / "m.py").exists()


async def test_an_editor_write_failure_is_one_clear_line(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    editor.write_failure = "buffer is read-only\n\x1b[31mred\x1b[0m\tand more"
    with pytest.raises(ToolError) as caught:
        await WriteFileTool().run({"path": "a.py", "content": "z\n"}, ectx)
    said = str(caught.value)
    assert said == "cannot write a.py in the editor: buffer is read-only [31mred [0m and more"
    assert (root / "a.py").read_bytes() == DISK_TEXT.encode()


async def test_an_editor_read_failure_is_one_clear_line(
    editor: BufferEditor, ectx: ToolContext
) -> None:
    editor.read_failure = "the editor went away"
    args = {"path": "a.py", "old_string": "x", "new_string": "w"}
    said = "cannot read a.py in the editor: the editor went away"
    with pytest.raises(ToolError) as caught:
        await EditFileTool().run(args, ectx)
    assert str(caught.value) == said
    preview = await EditFileTool().preview(args, ectx)
    assert preview.endswith(f"(this call will fail: {said})")
    assert editor.writes == []


# --- read_file ----------------------------------------------------------------------------


async def test_read_shows_the_buffer(root: Path, editor: BufferEditor, ectx: ToolContext) -> None:
    out = await ReadFileTool().run({"path": "a.py"}, ectx)
    assert out.text == "     1\tx = 1  # unsaved\n     2\ty = 2"
    assert out.meta["total_lines"] == 2 and out.facts.files_read == ("a.py",)
    assert editor.asked == [("read", root / "a.py")]


async def test_read_windows_the_buffer_like_a_file(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    editor.buffers[root / "a.txt"] = "".join(f"line {i}\n" for i in range(1, 11))
    out = await ReadFileTool().run({"path": "a.txt", "offset": 4, "limit": 3}, ectx)
    assert out.text.splitlines() == [
        "     4\tline 4",
        "     5\tline 5",
        "     6\tline 6",
        '[lines 4-6 of 10 (71 bytes); next: read_file path="a.txt" offset=7 limit=3; '
        "the last lines: offset=8 limit=3]",
    ]


async def test_read_stamp_follows_the_buffers_text(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    first = await ReadFileTool().run({"path": "a.py"}, ectx)
    again = await ReadFileTool().run({"path": "a.py"}, ectx)
    editor.buffers[root / "a.py"] = BUFFER_TEXT.replace("y", "w")  # same size, new text
    changed = await ReadFileTool().run({"path": "a.py"}, ectx)
    assert first.facts.read_stamp is not None
    assert first.facts.read_stamp == again.facts.read_stamp
    assert changed.facts.read_stamp is not None
    assert changed.facts.read_stamp.size == first.facts.read_stamp.size
    assert changed.facts.read_stamp != first.facts.read_stamp


async def test_read_of_a_file_the_editor_does_not_have(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    with pytest.raises(ToolError) as caught:
        await ReadFileTool().run({"path": "nope.txt"}, ectx)
    assert str(caught.value) == "file not found: nope.txt"
    assert editor.asked == [("read", root / "nope.txt")]


async def test_read_of_an_image_reads_the_disk(
    root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    (root / "pic.png").write_bytes(png())
    out = await ReadFileTool().run({"path": "pic.png"}, ectx)
    assert out.meta["image"] is True and out.text.startswith("pic.png is a PNG image (3×2")
    assert editor.asked == []


@pytest.mark.parametrize(
    ("name", "data", "refusal"),
    [
        ("blob.bin", b"ab\x00cd", "looks like a binary file"),
        ("wide.txt", "hi\n".encode("utf-16"), "is UTF-16 text"),
    ],
)
async def test_read_of_a_binary_file_reads_the_disk(
    name: str, data: bytes, refusal: str, root: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    (root / name).write_bytes(data)
    with pytest.raises(ToolError, match=refusal):
        await ReadFileTool().run({"path": name}, ectx)
    assert editor.asked == []


async def test_read_of_a_directory_reads_the_disk(editor: BufferEditor, ectx: ToolContext) -> None:
    with pytest.raises(ToolError, match="is a directory"):
        await ReadFileTool().run({"path": "."}, ectx)
    assert editor.asked == []


async def test_read_of_a_skills_file_reads_the_disk(
    tmp_path: Path, editor: BufferEditor, ectx: ToolContext
) -> None:
    skill = (tmp_path / "skills" / "demo").resolve()
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("do the thing\n")
    ctx = dataclasses.replace(ectx, read_roots=(skill,))
    out = await ReadFileTool().run({"path": str(skill / "SKILL.md")}, ctx)
    assert out.text == "     1\tdo the thing"
    assert editor.asked == []


async def test_read_outside_is_refused_before_the_editor_is_asked(
    editor: BufferEditor, ectx: ToolContext
) -> None:
    with pytest.raises(ToolError, match="outside"):
        await ReadFileTool().run({"path": "../elsewhere.txt"}, ectx)
    assert editor.asked == []


async def test_read_of_a_huge_buffer_holds_only_the_bound(
    root: Path, editor: BufferEditor, ectx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 100 bytes stand for 128 MiB: entries 1-12 fit in them (99 bytes, cut after a whole line).
    monkeypatch.setattr(read_file_module, "COUNT_BYTES_BUDGET", 100)
    editor.buffers[root / "big.log"] = "".join(f"entry {i}\n" for i in range(1, 1001))
    out = await ReadFileTool().run({"path": "big.log", "limit": 5}, ectx)
    assert out.text.splitlines()[-1] == (
        '[lines 1-5 of at least 12 (9,893 bytes); next: read_file path="big.log" offset=6 limit=5]'
    )


def test_editor_text_is_cut_after_a_whole_line_and_sized_whole() -> None:
    held = editor_text("ab\ncdé\nfg\n", 8)
    assert held.data == b"ab\ncd\xc3\xa9\n" and held.size == 11 and not held.complete
    whole = editor_text("ab\ncdé\nfg\n", 100)
    assert whole.complete and whole.data == "ab\ncdé\nfg\n".encode()
    assert whole.version == held.version  # the hash is of the whole text either way
    assert editor_text("ab\ncdé\nfh\n", 100).version != whole.version
