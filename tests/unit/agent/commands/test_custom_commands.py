"""The custom command loader: where files are found, which one wins, and hostile files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.commands.catalog import CommandCatalog, invocation
from agent.commands.files import MAX_COMMAND_BYTES, MAX_DEPTH, MAX_ENTRIES


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, so no ~/.claude of the machine's user is read."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def loaded(workspace: Path) -> tuple[CommandCatalog, list[str]]:
    catalog = CommandCatalog(workspace)
    catalog.refresh()
    return catalog, catalog.new_notes()


def test_the_four_directories_and_their_precedence(
    workspace: Path, home: Path, pleat_home: Path
) -> None:
    pleat_project = workspace / ".pleat" / "commands"
    claude_project = workspace / ".claude" / "commands"
    pleat_user = pleat_home / "commands"
    claude_user = home / ".claude" / "commands"
    for directory in (pleat_project, claude_project, pleat_user, claude_user):
        write(directory / "shared.md", f"from {directory}")
    write(claude_project / "polish.md", "project polish")
    write(pleat_user / "polish.md", "user polish")
    write(claude_user / "polish.md", "claude user polish")
    write(pleat_user / "mine.md", "mine")
    write(claude_user / "theirs.md", "theirs")
    catalog, notes = loaded(workspace)
    assert notes == []
    by_name = {c.name: c for c in catalog.commands}
    assert sorted(by_name) == ["mine", "polish", "shared", "theirs"]
    assert by_name["shared"].body == f"from {pleat_project}"
    assert by_name["shared"].shown == ".pleat/commands/shared.md"
    assert (by_name["polish"].body, by_name["polish"].scope) == ("project polish", "project")
    assert (by_name["mine"].scope, by_name["theirs"].scope) == ("user", "user")
    assert by_name["theirs"].shown == "~/.claude/commands/theirs.md"


def test_claude_config_dir_replaces_the_home_claude_directory(
    workspace: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(home / ".claude" / "commands" / "stale.md", "stale")
    write(tmp_path / "elsewhere" / "commands" / "fresh.md", "fresh")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    catalog, _ = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["fresh"]


def test_subdirectories_are_namespaces_to_a_depth(workspace: Path, home: Path) -> None:
    commands = workspace / ".pleat" / "commands"
    write(commands / "frontend" / "component.md", "a component")
    write(commands / "a" / "b" / "c" / "deep.md", "three levels")
    too_deep = commands.joinpath(*"wxyz"[: MAX_DEPTH + 1])
    write(too_deep / "lost.md", "too deep")
    catalog, notes = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["a:b:c:deep", "frontend:component"]
    assert notes == [f"'.pleat/commands/w/x/y/z' is more than {MAX_DEPTH} levels deep; not read"]


def test_front_matter_gives_description_and_hint_else_the_first_line(
    workspace: Path, home: Path
) -> None:
    commands = workspace / ".pleat" / "commands"
    write(
        commands / "polish.md",
        "---\ndescription: Polish a file\nargument-hint: [file]\n---\nPolish $ARGUMENTS\n",
    )
    write(commands / "plain.md", "\n# Explain the code simply\n\nMore text.\n")
    write(commands / "long.md", "---\ndescription: " + "word " * 60 + "\n---\nbody")
    catalog, notes = loaded(workspace)
    assert notes == []
    polish, plain, long = (catalog.get(n) for n in ("polish", "plain", "long"))
    assert polish is not None and plain is not None and long is not None
    assert (polish.description, polish.argument_hint) == ("Polish a file", "[file]")
    assert polish.usage == "/polish [file]" and polish.body == "Polish $ARGUMENTS"
    assert plain.description == "Explain the code simply" and plain.argument_hint == ""
    assert len(long.description) == 100 and long.description.endswith("…")


def test_a_malformed_file_is_skipped_with_one_line_and_the_others_load(
    workspace: Path, home: Path
) -> None:
    commands = workspace / ".pleat" / "commands"
    write(commands / "broken.md", "---\ndescription: never closed\nPolish\n")
    write(commands / "good.md", "Fine.")
    catalog, notes = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["good"]
    assert notes == ["'.pleat/commands/broken.md': the front matter has no closing ---; skipped"]


@pytest.mark.parametrize(
    "name",
    ["bad name.md", "-dash.md", "é.md", "a\x1b[2Jb.md", "tab\there.md", "x" * 65 + ".md"],
)
def test_hostile_names_are_skipped_with_a_visible_note(
    workspace: Path, home: Path, name: str
) -> None:
    write(workspace / ".pleat" / "commands" / name, "hostile")
    catalog, notes = loaded(workspace)
    assert catalog.commands == ()
    assert len(notes) == 1 and "a command name takes letters, digits" in notes[0]
    assert "\x1b" not in notes[0] and "\t" not in notes[0] and "\n" not in notes[0]


def test_other_files_and_hidden_ones_are_not_commands(workspace: Path, home: Path) -> None:
    commands = workspace / ".pleat" / "commands"
    write(commands / "README.txt", "not a command")
    write(commands / ".polish.md.swp", "editor swap")
    write(commands / ".hidden.md", "hidden")
    catalog, notes = loaded(workspace)
    assert catalog.commands == () and notes == []


def test_project_links_out_of_the_workspace_are_skipped(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside" / "secret.md", "read me out")
    commands = workspace / ".pleat" / "commands"
    commands.mkdir(parents=True)
    (commands / "secret.md").symlink_to(outside)
    (commands / "elsewhere").symlink_to(outside.parent, target_is_directory=True)
    write(workspace / "docs" / "inside.md", "inside the workspace")
    (commands / "inside.md").symlink_to(workspace / "docs" / "inside.md")
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "commands").symlink_to(outside.parent, target_is_directory=True)
    catalog, notes = loaded(workspace)
    assert [(c.name, c.body) for c in catalog.commands] == [("inside", "inside the workspace")]
    assert sorted(notes) == [
        "'.pleat/commands/elsewhere' leads outside the workspace; not read",
        "'.pleat/commands/secret.md' leads outside the workspace; skipped",
        ".claude/commands leads outside the workspace; its commands not read",
    ]


def test_a_user_link_may_lead_anywhere(workspace: Path, home: Path, tmp_path: Path) -> None:
    dotfiles = write(tmp_path / "dotfiles" / "polish.md", "from my dotfiles")
    commands = home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "polish.md").symlink_to(dotfiles)
    catalog, notes = loaded(workspace)
    assert notes == [] and [c.body for c in catalog.commands] == ["from my dotfiles"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_pipes_and_oversized_files_are_skipped_without_blocking(
    workspace: Path, home: Path
) -> None:
    project = workspace / ".pleat" / "commands"
    project.mkdir(parents=True)
    os.mkfifo(project / "pipe.md")
    user = home / ".claude" / "commands"
    user.mkdir(parents=True)
    os.mkfifo(user / "userpipe.md")
    write(project / "big.md", "x" * (MAX_COMMAND_BYTES + 1))
    write(project / "fits.md", "x" * MAX_COMMAND_BYTES)
    catalog, notes = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["fits"]
    assert sorted(notes) == [
        f"'.pleat/commands/big.md' is larger than {MAX_COMMAND_BYTES:,} bytes; skipped",
        "'.pleat/commands/pipe.md' is not a regular file; skipped",
        "'~/.claude/commands/userpipe.md' is not a regular file; skipped",
    ]


def test_a_huge_directory_is_read_only_to_its_limit(workspace: Path, home: Path) -> None:
    commands = workspace / ".pleat" / "commands"
    commands.mkdir(parents=True)
    for number in range(MAX_ENTRIES + 200):
        (commands / f"c{number}.md").write_text("x")
    catalog, notes = loaded(workspace)
    assert len(catalog.commands) == MAX_ENTRIES
    assert notes == [
        f".pleat/commands has more than {MAX_ENTRIES:,} entries; the rest are not read"
    ]


def test_a_built_in_name_is_taken_but_help_is_not_and_each_is_said_once(
    workspace: Path, home: Path
) -> None:
    write(workspace / ".pleat" / "commands" / "help.md", "my help")
    write(workspace / ".pleat" / "commands" / "compact.md", "my compact")
    catalog, notes = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["compact"]
    assert notes == [
        "custom command /help ('.pleat/commands/help.md') is not used: /help always runs "
        "pleat's built-in",
        "/compact runs the project command '.pleat/commands/compact.md'; pleat's built-in is "
        "/pleat:compact",
    ]
    catalog.refresh()
    assert catalog.new_notes() == []


def test_edits_take_effect_at_the_next_refresh(workspace: Path, home: Path) -> None:
    commands = workspace / ".pleat" / "commands"
    polish = write(commands / "polish.md", "first version")
    catalog, _ = loaded(workspace)
    write(commands / "added.md", "added")
    polish.write_text("second version, longer")
    catalog.refresh()
    assert [(c.name, c.body) for c in catalog.commands] == [
        ("added", "added"),
        ("polish", "second version, longer"),
    ]
    polish.write_text("third, same size here!!")  # the same size: the times tell it
    stamp = polish.stat()
    os.utime(polish, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
    catalog.refresh()
    assert catalog.get("polish") is not None
    assert catalog.get("polish").body == "third, same size here!!"  # type: ignore[union-attr]
    polish.unlink()
    catalog.refresh()
    assert catalog.get("polish") is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("/polish src/app.py", ("polish", "src/app.py")),
        ("/polish", ("polish", "")),
        ("  /frontend:component  a form ", ("frontend:component", "a form")),
        ("/polish\nsecond line", ("polish", "second line")),
        ("/etc/hosts what is this", None),
        ("polish this", None),
        ("/ spaced", None),
        ("/-x", None),
    ],
)
def test_a_typed_command_line(text: str, found: tuple[str, str] | None) -> None:
    assert invocation(text) == found


def test_what_a_file_says_is_shown_inert(workspace: Path, home: Path) -> None:
    """A description or hint with escape codes and Markdown is shown as written: control
    characters visible, Markdown escaped in /help, one line in the / list."""
    from agent.commands.resolution import listing
    from tui.command_catalog import help_lines, label

    write(
        workspace / ".pleat" / "commands" / "Evil.md",
        '---\ndescription: "wipe\\x1b[2J *bold* [link](http://x) `code`\\nsecond"\n'
        "argument-hint: <b>[file]</b>\n---\nbody",
    )
    catalog, _ = loaded(workspace)
    (evil,) = catalog.commands
    assert evil.description == "wipe\x1b[2J *bold* [link](http://x) `code` second"
    rows = [row for row in listing(catalog.commands) if row.command is evil]
    lines = help_lines(rows)
    assert lines[:3] == ["", "**Custom commands**", ""]
    assert lines[3] == (
        "- `/Evil` \\<b\\>\\[file\\]\\<\\/b\\>: wipe\\\\x1b\\[2J \\*bold\\* "
        "\\[link\\]\\(http\\:\\/\\/x\\) "
        "\\`code\\` second (project, \\.pleat\\/commands\\/Evil\\.md)"
    )
    assert "\n" not in label(rows[0]) and label(rows[0]).endswith("(project)")
    from agent.commands.completion import command_completion

    found = command_completion("/ev", 3, 0, [(evil.name, label(rows[0]))])
    assert found is not None and [s.value for s in found.suggestions] == ["/Evil"]
