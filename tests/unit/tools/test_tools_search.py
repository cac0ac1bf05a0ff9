"""glob and grep: gitignore (with and without git), binary files, caps, bad patterns."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.base import ToolContext, ToolError
from tools.gitignore import is_ignored, parse_gitignore
from tools.output_budget import OutputBudget
from tools.search import GlobTool, GrepTool
from tools.visible_files import visible_files


def make_project(root: Path) -> None:
    """A small tree with an ignored file, an ignored directory and a binary file."""
    (root / ".gitignore").write_text("secret.env\nbuild/\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("import os\nTOKEN = 'needle'\n")
    (root / "src" / "notes.md").write_text("a needle here\n")
    (root / "secret.env").write_text("needle=hunter2\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("needle\n")
    (root / "blob.bin").write_bytes(b"needle\x00\x01\x02")


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


async def test_grep_in_a_git_repo_skips_ignored_and_binary(
    workspace: Path, ctx: ToolContext, no_git_above: None
) -> None:
    make_project(workspace)
    git_init(workspace)
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert out.text.splitlines() == [
        "src/app.py:2: TOKEN = 'needle'",
        "src/notes.md:1: a needle here",
    ]
    assert out.meta == {"matches": 2, "files": 2, "shown": 2, "truncated": False}


async def test_grep_without_git_honours_gitignore(
    workspace: Path, ctx: ToolContext, no_git_above: None
) -> None:
    make_project(workspace)
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert out.text.splitlines() == [
        "src/app.py:2: TOKEN = 'needle'",
        "src/notes.md:1: a needle here",
    ]


async def test_grep_when_git_is_not_installed(
    workspace: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_project(workspace)
    git_init(workspace)
    monkeypatch.setenv("PATH", str(workspace / "no-such-bin"))
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert [line.split(":")[0] for line in out.text.splitlines()] == ["src/app.py", "src/notes.md"]


async def test_an_ignored_directory_named_explicitly_is_searched(
    workspace: Path, ctx: ToolContext, no_git_above: None
) -> None:
    make_project(workspace)
    git_init(workspace)
    out = await GrepTool().run({"pattern": "needle", "path": "build"}, ctx)
    assert out.text == "build/out.py:1: needle"


async def test_grep_options(workspace: Path, ctx: ToolContext, no_git_above: None) -> None:
    make_project(workspace)
    tool = GrepTool()
    only_py = await tool.run({"pattern": "needle", "glob": "*.py"}, ctx)
    assert only_py.text == "src/app.py:2: TOKEN = 'needle'"
    insensitive = await tool.run({"pattern": "IMPORT", "case_insensitive": True}, ctx)
    assert insensitive.text == "src/app.py:1: import os"
    one_file = await tool.run({"pattern": r"^a\b", "path": "src/notes.md"}, ctx)
    assert one_file.text == "src/notes.md:1: a needle here"
    none = await tool.run({"pattern": "haystack"}, ctx)
    assert none.text.startswith("no matches for 'haystack' in .")
    assert not none.is_error


async def test_grep_errors(workspace: Path, ctx: ToolContext) -> None:
    make_project(workspace)
    with pytest.raises(ToolError, match="invalid regular expression '\\(unclosed'"):
        await GrepTool().run({"pattern": "(unclosed"}, ctx)
    with pytest.raises(ToolError, match="binary"):
        await GrepTool().run({"pattern": "needle", "path": "blob.bin"}, ctx)
    with pytest.raises(ToolError, match="path not found: missing"):
        await GrepTool().run({"pattern": "x", "path": "missing"}, ctx)


async def test_grep_pages_matches_and_cuts_long_lines(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "many.txt").write_text("hit\n" * 250)
    (workspace / "wide.js").write_text("x" * 5000 + "FOUND" + "y" * 5000 + "\n")
    small = ToolContext(workspace, OutputBudget(300))
    capped = await GrepTool().run({"pattern": "hit"}, small)
    lines = capped.text.splitlines()
    assert small.budget.fits(capped.text)
    shown = len(lines) - 1
    assert lines[-1].startswith(f"[matches 1-{shown} of 250, as many as fit")
    assert f'next: grep pattern="hit" offset={shown}; or narrow the pattern' in lines[-1]
    assert lines[-1].endswith("(the matches are in 1 file)]")
    assert capped.meta == {"matches": 250, "files": 1, "shown": shown, "truncated": True}
    wide = await GrepTool().run({"pattern": "FOUND"}, ctx)
    assert "FOUND" in wide.text
    assert wide.text.startswith("wide.js:1: …x")
    assert len(wide.text) < 400


async def test_grep_does_not_follow_a_symlink_out(
    workspace: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    (tmp_path / "secret.txt").write_text("needle outside\n")
    (workspace / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "ok.txt").write_text("needle inside\n")
    out = await GrepTool().run({"pattern": "needle"}, ctx)
    assert out.text == "ok.txt:1: needle inside"


async def test_glob_finds_visible_files_sorted(
    workspace: Path, ctx: ToolContext, no_git_above: None
) -> None:
    make_project(workspace)
    git_init(workspace)
    (workspace / "top.py").write_text("")
    tool = GlobTool()
    assert (await tool.run({"pattern": "**/*.py"}, ctx)).text == "src/app.py\ntop.py"
    assert (await tool.run({"pattern": "*.py"}, ctx)).text == "top.py"
    assert (await tool.run({"pattern": "*", "path": "src"}, ctx)).text == "src/app.py\nsrc/notes.md"
    braces = await tool.run({"pattern": "src/*.{md,py}"}, ctx)
    assert braces.text == "src/app.py\nsrc/notes.md"
    everything = (await tool.run({"pattern": "**"}, ctx)).text.splitlines()
    assert "secret.env" not in everything and "build/out.py" not in everything
    assert not any(name.startswith(".git/") for name in everything)
    missing = await tool.run({"pattern": "*.rs"}, ctx)
    assert "try **/*.rs" in missing.text


async def test_glob_is_paged_by_the_budget(workspace: Path) -> None:
    for i in range(1003):
        (workspace / f"f{i:05}.txt").touch()
    ctx = ToolContext(workspace, OutputBudget(500))
    out = await GlobTool().run({"pattern": "*.txt"}, ctx)
    lines = out.text.splitlines()
    assert ctx.budget.fits(out.text)
    shown = len(lines) - 1
    assert lines[0] == "f00000.txt"
    assert lines[-1].startswith(f"[files 1-{shown} of 1,003, as many as fit")
    assert f'next: glob pattern="*.txt" offset={shown}' in lines[-1]


async def test_glob_refuses_absolute_patterns(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="must be relative"):
        await GlobTool().run({"pattern": "/etc/*"}, ctx)


def test_walk_applies_nested_gitignores(workspace: Path) -> None:
    (workspace / ".gitignore").write_text(
        "# comment\n*.log\n!keep.log\n/only-root.txt\ncache/\ndocs/**/draft.md\n"
    )
    files = {
        "a.log": "",
        "keep.log": "",
        "only-root.txt": "",
        "sub/only-root.txt": "",
        "sub/cache/x.py": "",
        "sub/cache.py": "",
        "docs/draft.md": "",
        "docs/deep/er/draft.md": "",
        "docs/final.md": "",
        "pkg/.gitignore": "generated.py\n",
        "pkg/generated.py": "",
        "pkg/real.py": "",
        ".git/config": "",
    }
    for name, text in files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    root = workspace.resolve()
    assert visible_files(root, root, use_git=False) == [
        ".gitignore",
        "docs/final.md",
        "keep.log",
        "pkg/.gitignore",
        "pkg/real.py",
        "sub/cache.py",
        "sub/only-root.txt",
    ]


def test_gitignore_matcher_rules() -> None:
    rules = parse_gitignore("build/\n/dist\nsrc/**/gen_*.py\n\\#hash\ntrailing\\ \n", "")
    assert is_ignored(rules, "build", is_dir=True)
    assert not is_ignored(rules, "build", is_dir=False)
    assert is_ignored(rules, "dist", is_dir=False)
    assert not is_ignored(rules, "a/dist", is_dir=False)
    assert is_ignored(rules, "src/gen_a.py", is_dir=False)
    assert is_ignored(rules, "src/x/y/gen_a.py", is_dir=False)
    assert not is_ignored(rules, "lib/gen_a.py", is_dir=False)
    assert is_ignored(rules, "#hash", is_dir=False)
    assert is_ignored(rules, "trailing ", is_dir=False)
    nested = parse_gitignore("*.tmp\n", "pkg")
    assert is_ignored(nested, "pkg/a/b.tmp", is_dir=False)
    assert not is_ignored(nested, "other/b.tmp", is_dir=False)
