"""A custom command's expansion: arguments put in once, @path files included from the workspace
only and within a bound, nothing a command file says ever run."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.commands.catalog import CustomCommand
from agent.commands.expansion import (
    MAX_INCLUDES,
    MAX_PROMPT_CHARS,
    ExpansionError,
    expand,
    split_arguments,
)

# Room for included files in most tests: far more than they include.
ROOM = 50_000


def command(body: str, name: str = "audit") -> CustomCommand:
    return CustomCommand(name, "", "", "project", f".pleat/commands/{name}.md", body)


def expanded(body: str, arguments: str, workspace: Path, room: int = ROOM) -> str:
    return expand(command(body), arguments, workspace, room).text


def test_arguments_replace_the_whole_string(workspace: Path) -> None:
    assert expanded("Audit $ARGUMENTS now", "src/app.py  carefully", workspace) == (
        "Audit src/app.py  carefully now"
    )


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ('"src/my app.py" speed', "file=src/my app.py focus=speed third="),
        ("a b c", "file=a focus=b third=c"),
        ("'it is' \"quoted\"", "file=it is focus=quoted third="),
        ("", "file= focus= third="),
    ],
)
def test_positional_arguments_split_like_a_shell(
    workspace: Path, arguments: str, text: str
) -> None:
    assert expanded("file=$1 focus=$2 third=$3", arguments, workspace) == text


def test_the_ninth_argument_and_ten_is_not_one(workspace: Path) -> None:
    arguments = " ".join(str(n) for n in range(1, 11))
    assert expanded("$9|$10|costs $100", arguments, workspace) == "9|$10|costs $100"


def test_an_unclosed_quote_splits_at_spaces_with_a_note(workspace: Path) -> None:
    result = expand(command("first=$1 all=$ARGUMENTS"), "don't stop", workspace, ROOM)
    assert result.text == "first=don't all=don't stop"
    assert result.notes == ("the arguments have an unclosed quote: $1..$9 split at spaces",)
    assert split_arguments("a 'b c'") == (["a", "b c"], None)


def test_arguments_are_put_in_once_never_expanded_again(workspace: Path) -> None:
    (workspace / "secret.txt").write_text("included?")
    text = expanded("Do $ARGUMENTS then $1", "$2 $ARGUMENTS", workspace)
    assert text == "Do $2 $ARGUMENTS then $2"


def test_arguments_without_a_placeholder_are_appended(workspace: Path) -> None:
    assert expanded("Run the tests.", "only unit", workspace) == (
        "Run the tests.\n\nARGUMENTS: only unit"
    )
    assert expanded("Run the tests.", "   ", workspace) == "Run the tests."


def test_an_empty_or_overlong_expansion_is_refused_in_one_line(workspace: Path) -> None:
    with pytest.raises(ExpansionError, match=r"^/audit has no prompt: .pleat/commands/audit.md"):
        expand(command("  \n"), "", workspace, ROOM)
    with pytest.raises(ExpansionError, match=f"more than the {MAX_PROMPT_CHARS:,}"):
        expand(command("$ARGUMENTS " * 1_000), "x" * 1_000, workspace, ROOM)


def test_a_mentioned_workspace_file_is_included_after_the_prompt(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('```')\n")
    result = expand(command("Audit @src/app.py, then @$1."), "src/app.py", workspace, ROOM)
    assert result.notes == ()
    assert result.text == (
        "Audit @src/app.py, then @src/app.py.\n\n"
        "Contents of src/app.py:\n````\nprint('```')\n\n````"
    )


def test_mentions_in_code_and_images_are_left_alone(workspace: Path) -> None:
    (workspace / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    body = "Use `@fixture` here.\n```python\n@pytest.fixture\ndef x(): ...\n```\nSee @shot.png"
    result = expand(command(body), "", workspace, ROOM)
    assert result.text == body and result.notes == ()


def test_files_outside_the_workspace_are_not_included(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret 4242")
    (workspace / "link.txt").symlink_to(secret)
    body = f"Read @../secret.txt and @{secret} and @link.txt and @missing.py"
    result = expand(command(body), "", workspace, ROOM)
    assert "4242" not in result.text
    assert len(result.notes) == 4
    assert result.notes[0].startswith("@../secret.txt not included: path '../secret.txt' is ")
    assert "outside the workspace" in result.notes[1]
    assert result.notes[2].startswith("@link.txt not included: path 'link.txt' is outside the")
    assert result.notes[3] == "@missing.py not included: no such file in the workspace"
    assert "(@missing.py was not included: no such file in the workspace)" in result.text


def test_directories_and_binary_files_are_not_included(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    result = expand(command("See @src and @blob.bin"), "", workspace, ROOM)
    assert result.notes == (
        "@src not included: src is a directory, not a file; not read",
        "@blob.bin not included: not a text file",
    )


def test_included_files_are_bounded_by_the_room(workspace: Path) -> None:
    (workspace / "big.txt").write_text("a" * 5_000)
    (workspace / "next.txt").write_text("never reached")
    result = expand(command("@big.txt @next.txt"), "", workspace, 1_000)
    assert "a" * 1_000 in result.text and "a" * 1_001 not in result.text
    assert "[... cut here: the rest does not fit; read_file reads big.txt]" in result.text
    assert "never reached" not in result.text
    assert result.notes == (
        "@next.txt not included: the included files already fill the room a prompt may take",
    )


def test_a_command_includes_a_bounded_number_of_files(workspace: Path) -> None:
    for number in range(MAX_INCLUDES + 2):
        (workspace / f"f{number}.txt").write_text(f"file {number}")
    body = " ".join(f"@f{number}.txt" for number in range(MAX_INCLUDES + 2))
    result = expand(command(body), "", workspace, ROOM)
    assert f"file {MAX_INCLUDES - 1}" in result.text and f"file {MAX_INCLUDES}\n" not in result.text
    assert len(result.notes) == 2
    assert result.notes[0].endswith(f"a command includes {MAX_INCLUDES} files at most")


def test_run_lines_are_never_run(workspace: Path) -> None:
    body = "Status: !`touch pwned`\nThen audit."
    result = expand(command(body), "", workspace, ROOM)
    assert not (workspace / "pwned").exists()
    assert result.text == body
    assert result.notes == (
        "its !`command` lines were not run (pleat runs nothing a command file says); "
        "the model sees them as written",
    )


def test_images_come_from_what_was_typed_and_workspace_mentions_only(
    workspace: Path, tmp_path: Path
) -> None:
    from agent.images.prompt import find_images
    from tests.support.images import png

    private = tmp_path / "private.png"
    private.write_bytes(png(seed=1))
    (workspace / "shot.png").write_bytes(png(seed=2))
    (workspace / "typed.png").write_bytes(png(seed=3))
    (workspace / "notes.md").write_text(f"see {private} and @{private}\n")
    body = f"Compare @shot.png with $ARGUMENTS. Notes: @notes.md. Also {private}"
    result = expand(command(body), "@typed.png", workspace, ROOM)
    assert str(private) in result.text  # the included file's text, and the body's, as written
    found = find_images(result.images_from, workspace)
    assert sorted(image.source for image in found.images) == ["shot.png", "typed.png"]
    pasted = expand(command("Look: $ARGUMENTS"), str(private), workspace, ROOM)
    assert [i.source for i in find_images(pasted.images_from, workspace).images] == [str(private)]
