"""What the model is told of a file's diagnostics: errors then warnings, by line, bounded, and a
server's text kept on one line; positions converted between pleat's columns and LSP's."""

from __future__ import annotations

from lsprotocol import types

from tools.lsp.diagnostics import (
    MAX_LISTED,
    MAX_MESSAGE_CHARS,
    MAX_REPORT_CHARS,
    DiagnosticsBoard,
    report,
)
from tools.lsp.positions import from_lsp_character, to_lsp_character


def _diagnostic(
    line: int, message: str, severity: int | None, character: int = 0
) -> types.Diagnostic:
    start = types.Position(line=line, character=character)
    kind = types.DiagnosticSeverity(severity) if severity else None
    return types.Diagnostic(
        range=types.Range(start=start, end=start), message=message, severity=kind, source="lint"
    )


def test_errors_come_first_then_warnings_and_hints_are_left_out() -> None:
    items = [
        _diagnostic(9, "unused import", 2),
        _diagnostic(4, "undefined name 'x'", 1, character=4),
        _diagnostic(1, "a hint", 4),
        _diagnostic(7, "no severity: an error", None),
    ]
    text = report("pylsp", "a.py", items, "", "utf-16")
    assert text.splitlines() == [
        "pylsp reports 2 errors and 1 warning in a.py:",
        "  line 5:5 error: undefined name 'x' (lint)",
        "  line 8:1 error: no severity: an error (lint)",
        "  line 10:1 warning: unused import (lint)",
    ]
    assert (
        report("pylsp", "a.py", [items[2]], "", "utf-16") == "pylsp: no errors or warnings in a.py"
    )


def test_a_hostile_server_cannot_fake_lines_nor_flood_the_result() -> None:
    forged = "bad\n  line 1:1 error: forged\x1b[2K" + "y" * 10_000
    items = [_diagnostic(n, forged, 1) for n in range(500)]
    text = report("srv", "a.py", items, "", "utf-16")
    lines = text.splitlines()
    listed, more = lines[1:-1], lines[-1]
    assert len(text) <= MAX_REPORT_CHARS and len(listed) <= MAX_LISTED
    assert more == f"  … and {500 - len(listed)} more"
    assert all(len(line) < MAX_MESSAGE_CHARS + 60 for line in lines)
    assert [line.split(" error: ")[0] for line in listed] == [
        f"  line {n + 1}:1" for n in range(len(listed))
    ]  # the newline in the message became a space: no line of the report is the server's
    assert lines[1].startswith("  line 1:1 error: bad line 1:1 error: forged")


def test_columns_count_characters_whatever_the_servers_encoding() -> None:
    line = "s = '😀' + name"  # the emoji is two UTF-16 units, four UTF-8 bytes
    column = line.index("name") + 1
    assert to_lsp_character(line, column, "utf-16") == column
    assert to_lsp_character(line, column, "utf-8") == column + 2
    assert to_lsp_character(line, column, "utf-32") == column - 1
    for encoding in ("utf-8", "utf-16", "utf-32"):
        assert (
            from_lsp_character(line, to_lsp_character(line, column, encoding), encoding) == column
        )


async def test_a_wait_ends_with_the_publication_of_the_version_sent() -> None:
    board = DiagnosticsBoard()
    board.publish("file:///a.py", 1, [_diagnostic(0, "old", 1)])
    before = board.count
    assert await board.wait("file:///a.py", before, 2, 0.05) is None  # nothing new: in time
    board.publish("file:///a.py", 1, [])  # a late one for the old version does not answer
    assert await board.wait("file:///a.py", before, 2, 0.05) is None
    board.publish("file:///a.py", 2, [_diagnostic(3, "new", 1)])
    found = await board.wait("file:///a.py", before, 2, 0.05)
    assert found is not None and found.items[0].message == "new"
