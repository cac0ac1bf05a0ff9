"""The built-in prompts' requests from real git repositories: /review carries the workspace's
changes (relative to it when it is a subdirectory) and runs nothing a repository configures;
nothing to review is a one-line refusal; /init's request keeps what was typed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.commands.builtin_prompts import (
    INIT_PROMPT,
    MAX_DIFF_CHARS,
    NO_CHANGES,
    PromptRefused,
    init_prompt,
    review_prompt,
)
from agent.permissions.policy import READ_ONLY_KEY
from sessions.messages import TYPED_KEY
from tests.support.git_support import git, git_repo


def test_review_of_a_subdirectory_workspace_names_its_files_as_the_tools_do(
    tmp_path: Path,
) -> None:
    git_repo(tmp_path, {"top.txt": b"top\n"})
    workspace = tmp_path / "pkg"
    workspace.mkdir()
    (workspace / "mod.py").write_text("a = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "pkg")
    (workspace / "mod.py").write_text("a = 2\n")
    (tmp_path / "top.txt").write_text("changed outside the workspace\n")
    built = review_prompt(workspace, "/review", "")
    assert "diff --git a/mod.py b/mod.py" in built.text and "+a = 2" in built.text
    assert "top.txt" not in built.text  # outside the workspace
    assert built.meta[READ_ONLY_KEY] == "true" and built.meta[TYPED_KEY] == "/review"


def test_a_repositorys_diff_program_and_text_conversion_never_run(tmp_path: Path) -> None:
    git_repo(tmp_path, {"a.bin": b"one\n"})
    ran = tmp_path.parent / f"{tmp_path.name}-ran"
    git(tmp_path, "config", "diff.external", f"touch {ran}")
    git(tmp_path, "config", "diff.conv.textconv", f"touch {ran}; cat")
    (tmp_path / ".gitattributes").write_text("*.bin diff=conv\n")
    (tmp_path / "a.bin").write_text("two\n")
    built = review_prompt(tmp_path, "/review", "")
    assert "+two" in built.text and not ran.exists()


def test_a_filter_driver_the_repository_names_never_runs(tmp_path: Path) -> None:
    """A sandboxed command may write .git/config and .gitattributes: `git status` and `git
    diff` ran the clean filter they named, with the user's rights, at the next /review (found
    by review). Every driver the config defines is emptied for /review's git."""
    git_repo(tmp_path, {"app.py": b"x = 1\n"})
    ran = tmp_path.parent / f"{tmp_path.name}-filtered"
    git(tmp_path, "config", "filter.f.clean", f"sh -c 'touch {ran}; cat'")
    git(tmp_path, "config", "filter.a.b.process", f"sh -c 'touch {ran}'")
    (tmp_path / ".gitattributes").write_text("* filter=f\n*.py filter=a.b\n")
    (tmp_path / "app.py").write_text("x = 2\n")
    built = review_prompt(tmp_path, "/review", "")
    assert "+x = 2" in built.text and not ran.exists()


def test_a_big_diff_is_cut_and_says_so_and_a_clean_tree_is_refused(tmp_path: Path) -> None:
    git_repo(tmp_path, {"big.txt": b"x\n"})
    with pytest.raises(PromptRefused, match=re.escape(NO_CHANGES)):
        review_prompt(tmp_path, "/review", "")
    (tmp_path / "big.txt").write_text("line of text\n" * 10_000)
    built = review_prompt(tmp_path, "/review", "")
    assert f"[pleat: the diff cut at {MAX_DIFF_CHARS:,} of " in built.text
    assert len(built.text) < MAX_DIFF_CHARS + 5_000


def test_init_keeps_what_was_typed_and_adds_the_focus(tmp_path: Path) -> None:
    built = init_prompt(tmp_path, "/init mention the benchmarks", "mention the benchmarks")
    assert built.text == f"{INIT_PROMPT}\n\nThe user adds: mention the benchmarks"
    assert built.meta[TYPED_KEY] == "/init mention the benchmarks"
    assert READ_ONLY_KEY not in built.meta  # /init writes, as the mode allows


def test_a_filter_driver_whose_name_holds_an_equals_sign_is_refused_not_run(
    tmp_path: Path,
) -> None:
    """`-c filter.a=b.clean=` sets `filter.a` (git cuts the key at the first `=`), so the
    driver `a=b` stayed and ran at /review (found by review): /review refuses instead."""
    git_repo(tmp_path, {"app.py": b"x = 1\n"})
    ran = tmp_path.parent / f"{tmp_path.name}-filtered"
    git(tmp_path, "config", "filter.a=b.clean", f"touch {ran}; cat")
    (tmp_path / ".gitattributes").write_text("* filter=a=b\n")
    (tmp_path / "app.py").write_text("x = 2\n")
    with pytest.raises(PromptRefused, match="filter drivers cannot be turned off"):
        review_prompt(tmp_path, "/review", "")
    assert not ran.exists()
