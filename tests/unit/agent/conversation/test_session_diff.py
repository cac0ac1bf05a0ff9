"""/diff's pieces: a file name that could forge diff lines is quoted, and no file is diffed past
what difflib does in a moment (found by review: 12,000 lines took 6.6 s)."""

from __future__ import annotations

from agent.conversation.session_diff import MAX_DIFFED_LINES, file_diff, quoted_path


def test_a_name_with_a_newline_or_an_escape_is_one_quoted_line() -> None:
    assert quoted_path("src/a.py") == "src/a.py"
    hostile = "ev\x1bil[31m\n+++ b/forged"
    piece = file_diff(hostile, b"a\n", b"b\n", whole=True)
    assert piece is not None
    header = [line for line in piece.splitlines() if line.startswith(("---", "+++"))]
    assert header == [
        '--- a/"ev\\u001bil[31m\\n+++ b/forged"',
        '+++ b/"ev\\u001bil[31m\\n+++ b/forged"',
    ]
    assert quoted_path('say "hi"') == '"say \\"hi\\""'


def test_long_files_and_files_past_the_shown_diff_are_said_changed_not_diffed() -> None:
    long = "".join(f"line {n}\n" for n in range(MAX_DIFFED_LINES + 1)).encode()
    other = long.replace(b"line 7\n", b"line seven\n")
    assert file_diff("big.txt", long, other, whole=True) == (
        f"File big.txt changed: {MAX_DIFFED_LINES + 1:,} -> {MAX_DIFFED_LINES + 1:,} lines "
        "(not diffed)\n"
    )
    assert file_diff("a.txt", b"a\n", b"b\n", whole=False) == (
        "File a.txt changed: 1 -> 1 lines (not diffed)\n"
    )
    assert file_diff("a.txt", b"a\n", b"a\n", whole=True) is None
    assert file_diff("a.bin", b"\0", b"\1", whole=True) == "Binary file a.bin changed\n"
