"""Which command `/NAME` runs when a command file has a built-in's name: the file, the built-in
staying `/pleat:NAME`; `/help` and `/quit` always pleat's; and how every listing says which is
which (/help, the / list, the palette's texts, the headless init line)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.commands.builtin import BY_NAME, Builtin
from agent.commands.catalog import CommandCatalog, CustomCommand
from agent.commands.resolution import fixed_builtin, listing, resolve
from agent.headless.custom import tui_only_refusal, typed_command


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, so no ~/.claude of the machine's user is read."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    return home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def loaded(workspace: Path) -> tuple[CommandCatalog, list[str]]:
    catalog = CommandCatalog(workspace)
    catalog.refresh()
    return catalog, catalog.new_notes()


def test_a_project_file_of_a_builtins_name_is_what_the_bare_name_runs(workspace: Path) -> None:
    write(workspace / ".claude" / "commands" / "review.md", "Review my way: $ARGUMENTS")
    catalog, notes = loaded(workspace)
    found = resolve("review", catalog)
    assert isinstance(found, CustomCommand) and found.body == "Review my way: $ARGUMENTS"
    assert resolve("pleat:review", catalog) is BY_NAME["review"]
    assert resolve("compact", catalog) is BY_NAME["compact"]  # no file: the built-in
    assert resolve("pleat:nothing", catalog) is None and resolve("nothing", catalog) is None
    assert resolve("review", None) is BY_NAME["review"]  # no files read: the built-in
    assert notes == [
        "/review runs the project command '.claude/commands/review.md'; pleat's built-in is "
        "/pleat:review"
    ]
    catalog.refresh()
    assert catalog.new_notes() == []  # said once


def test_a_users_file_shadows_too_and_the_projects_wins_over_it(
    workspace: Path, home: Path, pleat_home: Path
) -> None:
    write(home / ".claude" / "commands" / "diff.md", "the user's diff")
    write(pleat_home / "commands" / "export.md", "the user's export")
    write(workspace / ".pleat" / "commands" / "export.md", "the project's export")
    catalog, _ = loaded(workspace)
    diff, export = resolve("diff", catalog), resolve("export", catalog)
    assert isinstance(diff, CustomCommand) and (diff.scope, diff.body) == (
        "user",
        "the user's diff",
    )
    assert isinstance(export, CustomCommand) and export.body == "the project's export"


def test_help_quit_and_the_pleat_spelling_are_never_taken_by_a_file(workspace: Path) -> None:
    commands = workspace / ".pleat" / "commands"
    write(commands / "help.md", "my help")
    write(commands / "quit.md", "my quit")
    write(commands / "pleat" / "review.md", "a file spelled like the built-in")
    write(commands / "pleat" / "mine.md", "a namespace of my own")
    catalog, notes = loaded(workspace)
    assert [c.name for c in catalog.commands] == ["pleat:mine"]
    assert resolve("help", catalog) is BY_NAME["help"]
    assert resolve("quit", catalog) is BY_NAME["quit"]
    assert resolve("pleat:review", catalog) is BY_NAME["review"]
    assert isinstance(resolve("pleat:mine", catalog), CustomCommand)
    assert sorted(notes) == [
        "custom command /help ('.pleat/commands/help.md') is not used: /help always runs "
        "pleat's built-in",
        "custom command /pleat:review ('.pleat/commands/pleat/review.md') is not used: "
        "/pleat:review always runs pleat's built-in",
        "custom command /quit ('.pleat/commands/quit.md') is not used: /quit always runs "
        "pleat's built-in",
    ]


def test_the_names_that_need_no_files() -> None:
    assert fixed_builtin("pleat:undo") is BY_NAME["undo"]
    assert fixed_builtin("help") is BY_NAME["help"] and fixed_builtin("quit") is BY_NAME["quit"]
    assert fixed_builtin("undo") is None  # a file may take it
    assert fixed_builtin("pleat:") is None and fixed_builtin("audit") is None


def test_the_listing_says_which_is_which(workspace: Path) -> None:
    write(
        workspace / ".claude" / "commands" / "review.md",
        "---\ndescription: Our review checklist\nargument-hint: [area]\n---\nReview $1.",
    )
    write(workspace / ".claude" / "commands" / "tidy.md", "Tidy the imports.")
    catalog, _ = loaded(workspace)
    rows = {row.typed: row for row in listing(catalog.commands)}
    builtin = rows["pleat:review"]
    assert isinstance(builtin.command, Builtin) and builtin.usage == "/pleat:review [focus]"
    assert builtin.note == "/review runs the project command .claude/commands/review.md"
    custom = rows["review"]
    assert isinstance(custom.command, CustomCommand) and custom.usage == "/review [area]"
    assert custom.note == "the built-in is /pleat:review"
    assert rows["tidy"].note == "" and rows["compact"].note == ""
    assert "pleat:compact" not in rows  # only a shadowed built-in is listed under pleat:
    assert [r.typed for r in listing(())] == list(BY_NAME)  # no files: the built-ins alone

    from tui.command_catalog import help_lines, label
    from tui.command_help import help_text

    assert label(custom) == (
        "/review [area]     Our review checklist (project command "
        ".claude/commands/review.md; the built-in is /pleat:review)"
    )
    assert label(builtin).startswith("/pleat:review [focus] ask the model to review")
    assert label(builtin).endswith("(/review runs the project command .claude/commands/review.md)")
    shown = help_text(listing(catalog.commands))
    assert "- `/pleat:review [focus]`: ask the model to review" in shown
    assert "(\\/review runs the project command \\.claude\\/commands\\/review\\.md)" in shown
    assert "- `/compact [--preview] [focus]`:" in shown  # not shadowed: as always
    assert "Every built-in also answers to `/pleat:NAME`" in shown
    (review_line,) = [line for line in help_lines([custom]) if line.startswith("- ")]
    assert review_line == (
        "- `/review` \\[area\\]: Our review checklist (project, "
        "\\.claude\\/commands\\/review\\.md; the built\\-in is \\/pleat\\:review)"
    )


def test_headless_resolves_as_the_tui_does(workspace: Path) -> None:
    write(workspace / ".claude" / "commands" / "review.md", "Review my way.")
    write(workspace / ".claude" / "commands" / "model.md", "Which model are you?")
    err = io.StringIO()
    typed = typed_command(workspace, "/review the parser", err)
    assert typed is not None and isinstance(typed.command, CustomCommand)
    assert (typed.name, typed.arguments, typed.builtin) == ("review", "the parser", None)
    assert "/review runs the project command" in err.getvalue()
    qualified = typed_command(workspace, "/pleat:review the parser", io.StringIO())
    assert qualified is not None and qualified.builtin is BY_NAME["review"]
    # A file of a TUI-only built-in's name is a command headless; the built-in stays refused.
    assert tui_only_refusal(typed_command(workspace, "/model", io.StringIO())) is None
    refused = tui_only_refusal(typed_command(workspace, "/pleat:model", io.StringIO()))
    assert refused is not None and refused.startswith("/pleat:model works in pleat's terminal UI")
    assert typed_command(workspace, "/etc/hosts is broken", io.StringIO()) is None
    assert typed_command(workspace, "help me", io.StringIO()) is None
