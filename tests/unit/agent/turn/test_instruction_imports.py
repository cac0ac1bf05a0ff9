"""`@path` imports and Claude Code's instruction files: what counts as an import (never in a code
span or a fence), relative and `~/` paths, five hops and no more, cycles, the workspace rule for a
project's files (links out, settings and credentials under ~/.claude refused, pipes and
directories skipped), the home rule for the user's, one byte budget per scope, and the order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.turn.instruction_imports import import_specs
from agent.turn.instruction_set import SCOPE_BYTES, load_instructions
from agent.turn.nested_instructions import NestedInstructions
from agent.turn.system_prompt import system_prompt
from sessions import messages as msg
from sessions.messages import Message, ToolCall
from sessions.paths import data_home
from tools.result_facts import ResultFacts


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, with Claude Code's directory in its usual place."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    return home


def names(workspace: Path) -> list[tuple[str, str, str | None]]:
    """(kind, name, imported by) of each file loaded, in order."""
    return [(f.kind, f.name, f.imported_by) for f in load_instructions(workspace).files]


def test_what_counts_as_an_import() -> None:
    text = "\n".join(
        [
            "See @README for an overview and @package.json for the scripts.",
            "Style: @docs/style.md. Also @./a.md, @../b.md, @~/.claude/mine.md and @/abs.md;",
            "not `@in/a/span.md`, not ``a `@tick` @in/double.md``, not mail@example.com,",
            "not @@twice, not @#hash, not a bare @ or @/, but @with\\ space.md#section.",
            "```sh",
            "@in/fence.md",
            "````",  # a longer run closes a fence too
            "@after/fence.md",
            "~~~",
            "@in/tilde.md",
            "```",  # a backtick run does not close a tilde fence
            "@still/in/tilde.md",
            "~~~~",
            "@after/tilde.md `an unclosed tick @open/tick.md",
            "",
            "    ```python",
            "    @in/indented/fence.md",
            "    ```",
            "@README",
        ]
    )
    assert import_specs(text) == [
        "README",
        "package.json",
        "docs/style.md",
        "./a.md",
        "../b.md",
        "~/.claude/mine.md",
        "/abs.md",
        "with space.md",
        "after/fence.md",
        "after/tilde.md",
        "open/tick.md",
    ]


def test_imports_are_relative_to_the_importer_and_come_right_after_it(
    workspace: Path, home: Path
) -> None:
    (workspace / "docs" / "deep").mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("Root. Read @docs/style.md\nand @README.md\n")
    (workspace / "docs" / "style.md").write_text("STYLE; see @deep/more.md and @../README.md\n")
    (workspace / "docs" / "deep" / "more.md").write_text("MORE\n")
    (workspace / "README.md").write_text("README TEXT\n")  # twice imported, read once
    (workspace / "CLAUDE.local.md").write_text("LOCAL; @docs/style.md is in already\n")
    assert names(workspace) == [
        ("project", "AGENTS.md", None),
        ("imported", "docs/style.md", "AGENTS.md"),
        ("imported", "docs/deep/more.md", "docs/style.md"),
        ("imported", "README.md", "docs/style.md"),
        ("local", "CLAUDE.local.md", None),
    ]
    found = load_instructions(workspace)
    assert found.skipped == () and found.missing == ()


def test_five_hops_are_followed_a_sixth_is_said_and_a_cycle_stops(
    workspace: Path, home: Path
) -> None:
    (workspace / "AGENTS.md").write_text("@h1.md\n")
    for hop in range(1, 7):
        (workspace / f"h{hop}.md").write_text(f"HOP{hop} @h{hop + 1}.md\n")
    loaded = load_instructions(workspace)
    assert [f.name for f in loaded.files] == ["AGENTS.md", *(f"h{n}.md" for n in range(1, 6))]
    assert loaded.skipped == ("@h6.md (in h5.md) is import hop 6: at most 5",)
    assert "HOP6" not in system_prompt(workspace, ["read_file"])

    (workspace / "h2.md").write_text("HOP2 back to @h1.md and @AGENTS.md\n")
    loaded = load_instructions(workspace)
    assert [f.name for f in loaded.files] == ["AGENTS.md", "h1.md", "h2.md"]
    assert loaded.skipped == (
        "@h1.md (in h2.md) imports a file importing it (a cycle); not again",
        "@AGENTS.md (in h2.md) imports a file importing it (a cycle); not again",
    )


def test_a_projects_file_imports_only_the_workspace_and_markdown_under_dot_claude(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    claude = home / ".claude"
    (claude / "mine.md").write_text("MINE FROM DOT CLAUDE\n")
    (claude / "settings.json").write_text('{"env": {"KEY": "SECRET-SETTINGS"}}')
    (claude / ".credentials.json").write_text("SECRET-TOKEN")
    (claude / "creds.md").symlink_to(claude / ".credentials.json")  # .md by name only
    (home / "notes.md").write_text("SECRET-HOME-NOTES\n")
    (tmp_path / "outside.md").write_text("SECRET-OUTSIDE\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "link.md").symlink_to(tmp_path / "outside.md")
    os.mkfifo(workspace / "pipe.md")  # a careless open would wait for a writer
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (workspace / "AGENTS.md").write_text(
        "@~/.claude/mine.md @~/.claude/settings.json @~/.claude/creds.md @~/notes.md\n"
        f"@../outside.md @{tmp_path / 'outside.md'} @docs/link.md @docs @pipe.md @logo.png\n"
        "@nobody @docs/typo.md\n"
    )
    loaded = load_instructions(workspace)
    assert [(f.name, f.imported_by) for f in loaded.files[1:]] == [
        ("~/.claude/mine.md", "AGENTS.md")
    ]
    rule = "is not inside the workspace, or a Markdown file under ~/.claude; not read"
    assert loaded.skipped == (
        f"@~/.claude/settings.json (in AGENTS.md): ~/.claude/settings.json {rule}",
        f"@~/.claude/creds.md (in AGENTS.md): ~/.claude/.credentials.json {rule}",
        f"@~/notes.md (in AGENTS.md): ~/notes.md {rule}",
        f"@../outside.md (in AGENTS.md): {tmp_path / 'outside.md'} {rule}",
        f"@{tmp_path / 'outside.md'} (in AGENTS.md): {tmp_path / 'outside.md'} {rule}",
        f"@docs/link.md (in AGENTS.md): {tmp_path / 'outside.md'} {rule}",
        "@docs (in AGENTS.md): docs is a directory, not a file; not read",
        "@pipe.md (in AGENTS.md): pipe.md is a named pipe, not a file; not read",
        "@logo.png (in AGENTS.md): logo.png is not text; not read",
    )
    assert loaded.missing == (
        "@nobody (in AGENTS.md): no such file",
        "@docs/typo.md (in AGENTS.md): no such file",
    )
    prompt = system_prompt(workspace, ["read_file"])
    assert "MINE FROM DOT CLAUDE" in prompt and "SECRET" not in prompt


def test_the_users_claude_md_imports_from_the_home_and_comes_first(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    (home / "notes.md").write_text("HOME NOTES\n")
    (tmp_path / "elsewhere.md").write_text("SECRET-ELSEWHERE\n")
    (home / ".claude" / "CLAUDE.md").write_text("CLAUDE USER @~/notes.md @../../elsewhere.md\n")
    own = data_home()
    own.mkdir(parents=True)
    (own / "AGENTS.md").write_text("PLEAT USER\n")
    (workspace / "CLAUDE.md").write_text("PROJECT\n")
    (workspace / "CLAUDE.local.md").write_text("LOCAL\n")
    assert [(kind, name) for kind, name, _ in names(workspace)] == [
        ("user", "~/.claude/CLAUDE.md"),
        ("imported", "~/notes.md"),
        ("user", str(own.resolve() / "AGENTS.md")),  # PLEAT_HOME is outside this home
        ("project", "CLAUDE.md"),
        ("local", "CLAUDE.local.md"),
    ]
    assert load_instructions(workspace).skipped == (
        f"@../../elsewhere.md (in ~/.claude/CLAUDE.md): {tmp_path / 'elsewhere.md'} is not "
        "under your home directory; not read",
    )
    prompt = system_prompt(workspace, ["read_file"])
    order = ["CLAUDE USER", "HOME NOTES", "PLEAT USER", "PROJECT", "LOCAL"]
    assert [prompt.index(text) for text in order] == sorted(prompt.index(t) for t in order)
    assert "Imported by ~/.claude/CLAUDE.md, from ~/notes.md:\nHOME NOTES" in prompt
    assert "private instructions for this project, from CLAUDE.local.md:\nLOCAL" in prompt
    assert "SECRET" not in prompt


def test_a_scopes_files_share_one_budget(workspace: Path, home: Path) -> None:
    half = SCOPE_BYTES // 2
    (workspace / "AGENTS.md").write_text("A" * half + "\n@big.md @late.md\n")
    (workspace / "big.md").write_text("B" * SCOPE_BYTES)
    (workspace / "late.md").write_text("LATE\n")
    (workspace / "CLAUDE.local.md").write_text("LOCAL\n")
    (home / ".claude" / "CLAUDE.md").write_text("U" * SCOPE_BYTES)  # the user's: apart
    loaded = load_instructions(workspace)
    project = [f for f in loaded.files if f.kind != "user"]
    assert [f.name for f in project] == ["AGENTS.md", "big.md"]
    assert sum(len(f.text.split("\n[...")[0].encode()) for f in project) == SCOPE_BYTES
    assert project[1].text.endswith(
        f"[... big.md cut: the project's instructions take at most {SCOPE_BYTES:,} bytes]"
    )
    spent = f"the project's instructions already take {SCOPE_BYTES:,} bytes"
    assert loaded.skipped == (
        f"@late.md (in AGENTS.md) not read: {spent}",
        f"local instructions skipped: CLAUDE.local.md not read: {spent}",
    )


def test_hostile_import_paths_never_raise_nor_reach_the_terminal(
    workspace: Path, home: Path
) -> None:
    up = "x" + "/.." * 40 + "/etc/passwd"  # past the root whatever the temporary directory
    (workspace / "AGENTS.md").write_text(
        "@a\0b.md @" + "a" * 5_000 + ".md @" + "b/" * 3_000 + f" @{up}\n"
        "@\x1b[2J/etc/hosts (not a path) @evil\x1b]52;c;SGVsbG8=\x07.md\n"
    )
    loaded = load_instructions(workspace)
    assert [f.name for f in loaded.files] == ["AGENTS.md"]
    lines = [*loaded.skipped, *loaded.missing]
    assert len(lines) == 4 and all("\x1b" not in line and "\x07" not in line for line in lines)
    assert all(len(line) < 500 for line in lines)
    assert loaded.skipped[0].startswith(f"@{up} (in AGENTS.md): /etc/")


async def test_a_nested_files_imports_come_with_it(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "AGENTS.md").write_text("PKG RULE @rules.md @../../secret.md\n")
    (workspace / "pkg" / "rules.md").write_text("PKG IMPORTED RULE\n")
    (tmp_path / "secret.md").write_text("SECRET\n")
    history: list[Message] = []

    class Host:
        def __init__(self) -> None:
            self.history = history

        def add(self, message: Message) -> Message:
            history.append(message)
            return message

    nested = NestedInstructions(Host(), workspace)
    call = ToolCall("c0", "read_file", "{}")
    history += [msg.assistant(None, (call,))]
    facts = ResultFacts(files_read=("pkg/a.py",)).to_dict()
    history.append(msg.tool_result(call, "ok", is_error=False, facts=facts))
    added = await nested.after_tools()
    assert added is not None and added.content is not None
    assert "PKG RULE" in added.content and "SECRET" not in added.content
    assert "Imported by pkg/AGENTS.md, from pkg/rules.md:\nPKG IMPORTED RULE" in added.content
    assert nested.skipped == [
        f"@../../secret.md (in pkg/AGENTS.md): {tmp_path / 'secret.md'} is not inside the "
        "workspace, or a Markdown file under ~/.claude; not read"
    ]
