"""The front matter reader: Claude Code's `key: value` subset, and one-line errors for the rest."""

from __future__ import annotations

import pytest

from agent.commands.front_matter import MAX_LINES, FrontMatterError, parse_document


def test_a_file_without_front_matter_is_all_body() -> None:
    document = parse_document("Review the code.\n---\nnot front matter\n")
    assert document.fields == {}
    assert document.body == "Review the code.\n---\nnot front matter\n"


def test_claude_code_fields_are_read_and_the_body_follows() -> None:
    text = (
        "---\n"
        "description: Create a git commit\n"
        "argument-hint: [message]\n"
        "allowed-tools: Bash(git add:*), Bash(git status:*)\n"
        "model: claude-3-5-haiku-20241022\n"
        "---\n"
        "Commit with $ARGUMENTS\n"
    )
    document = parse_document(text)
    assert document.fields == {
        "description": "Create a git commit",
        "argument-hint": "[message]",
        "allowed-tools": "Bash(git add:*), Bash(git status:*)",
        "model": "claude-3-5-haiku-20241022",
    }
    assert document.body == "Commit with $ARGUMENTS\n"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('description: "Review: the \\"hot\\" path"', 'Review: the "hot" path'),
        ("description: 'it''s quoted'", "it's quoted"),
        ("description: plain # a comment", "plain"),
        ("description: a#b stays", "a#b stays"),
        ('description: "# not a comment"', "# not a comment"),
        ("description:", ""),
        ("description: 'spaces kept  '", "spaces kept  "),
    ],
)
def test_values_are_unquoted_as_yaml_does(line: str, value: str) -> None:
    assert parse_document(f"---\n{line}\n---\nbody").fields["description"] == value


def test_continued_values_lists_and_blocks() -> None:
    text = (
        "---\n"
        "# a comment line\n"
        "description: a long description\n"
        "  that goes on\n"
        "\n"
        "allowed-tools:\n"
        "  - Read\n"
        "  - 'Bash(ls:*)'\n"
        "notes: |\n"
        "  line one\n"
        "  line two\n"
        "folded: >\n"
        "  one\n"
        "  two\n"
        "flow: [a, b]\n"
        "---\n"
        "body\n"
    )
    fields = parse_document(text).fields
    assert fields["description"] == "a long description that goes on"
    assert fields["allowed-tools"] == "Read, Bash(ls:*)"
    assert fields["notes"] == "line one\nline two"
    assert fields["folded"] == "one two"
    assert fields["flow"] == "[a, b]"


def test_windows_line_ends_a_bom_and_the_dots_closer() -> None:
    document = parse_document("\ufeff---\r\ndescription: x\r\n...\r\nbody\r\n")
    assert document.fields == {"description": "x"}
    assert document.body == "body\n"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("---\ndescription: x\nbody without a closer\n", "the front matter has no closing ---"),
        ("---\ndescription: x\nno colon here\n---\nbody", "line 3 is not `key: value`"),
        ("---\na: 1\na: 2\n---\n", "line 3: a is given twice"),
        ('---\na: "open\n---\n', "line 2: a quote is not closed"),
        ("---\na: 'x' y\n---\n", "line 2: text after the closing quote"),
        ("---\n  orphan: 1\n---\n", "line 2: an indented line belongs to no key"),
        ("---\nkey with space: 1\n---\n", "line 2 is not `key: value`"),
        ("---\n" + "\n" * (MAX_LINES + 5) + "---\n", "longer than"),
    ],
)
def test_malformed_front_matter_is_one_line_error(text: str, error: str) -> None:
    with pytest.raises(FrontMatterError) as raised:
        parse_document(text)
    assert error in str(raised.value)
    assert "\n" not in str(raised.value)


def test_double_quoted_escapes_as_yaml_reads_them() -> None:
    text = '---\na: "tab\\there \\x41\\u00e9\\U0001F600 \\e[2J \\q"\n---\n'
    assert parse_document(text).fields["a"] == "tab\there Aé😀 \x1b[2J \\q"
    with pytest.raises(FrontMatterError, match=r"line 2: \\UFFFFFFFF is no character"):
        parse_document('---\na: "\\UFFFFFFFF"\n---\n')
