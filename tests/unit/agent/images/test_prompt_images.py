"""The prompt parser: `@path` images in the workspace, pasted image paths (quoted, escaped,
file:// URLs), non-images left as text, missing or refused ones said in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.images.prompt import MAX_PROMPT_IMAGES, find_images
from tests.support import images


def sources(prompt: str, workspace: Path) -> list[str]:
    found = find_images(prompt, workspace)
    return [image.source for image in found.images]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the workspace, with a space in its name (as screenshots folders have)."""
    folder = tmp_path / "Screen Shots"
    folder.mkdir()
    return folder


def test_an_at_path_attaches_the_workspace_image(workspace: Path) -> None:
    (workspace / "ui").mkdir()
    (workspace / "ui" / "shot.png").write_bytes(images.png(80, 60))
    found = find_images("what is in @ui/shot.png?", workspace)
    assert [i.label for i in found.images] == ["shot.png 80×60"]
    assert found.images[0].source == "ui/shot.png"
    assert found.images[0].data == (workspace / "ui" / "shot.png").read_bytes()
    assert found.notes == []


def test_a_quoted_at_path_may_hold_spaces(workspace: Path) -> None:
    (workspace / "my shot.jpg").write_bytes(images.jpeg(20, 10))
    assert sources('compare @"my shot.jpg" and this', workspace) == ["my shot.jpg"]
    assert sources(r"see @my\ shot.jpg", workspace) == ["my shot.jpg"]


def test_at_paths_that_are_not_images_stay_text(workspace: Path) -> None:
    (workspace / "notes.md").write_text("# notes\n")
    (workspace / "fake.png").write_text("a text file with an image's name\n")
    found = find_images("read @notes.md and @fake.png, ask @someone", workspace)
    assert found.images == [] and found.notes == []


def test_a_missing_image_is_said_and_a_missing_other_path_is_not(workspace: Path) -> None:
    found = find_images("look at @gone.png. and @gone.txt", workspace)
    assert found.images == []
    assert found.notes == ["@gone.png: no such file in the workspace; not attached"]


def test_an_at_path_never_leaves_the_workspace(workspace: Path, outside: Path) -> None:
    (outside / "secret.png").write_bytes(images.png())
    (workspace / "link.png").symlink_to(outside / "secret.png")
    relative = os.path.relpath(outside / "secret.png", workspace)
    found = find_images(f'@"{relative}" @link.png', workspace)
    assert found.images == []
    assert len(found.notes) == 2
    assert all("outside the workspace" in note for note in found.notes)


def test_pasted_paths_in_each_form_terminals_use(workspace: Path, outside: Path) -> None:
    """Dragged onto a terminal, a file is pasted as its path: quoted, or with backslash-escaped
    spaces, or as a file:// URL. Outside the workspace is fine: it is the user's own input."""
    for n in range(4):
        (outside / f"shot {n}.png").write_bytes(images.png(5, 5, seed=n))
    folder = str(outside)
    escaped = folder.replace(" ", "\\ ")
    url = "file://" + folder.replace(" ", "%20")
    prompt = (
        f"'{folder}/shot 0.png' and \"{folder}/shot 1.png\" then {escaped}/shot\\ 2.png "
        f"and {url}/shot%203.png: what changed?"
    )
    assert sources(prompt, workspace) == [f"{folder}/shot {n}.png" for n in range(4)]


def test_a_pasted_home_path(
    workspace: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(outside))
    (outside / "a.webp").write_bytes(images.webp_lossless(3, 3))
    assert sources("~/a.webp", workspace) == [f"{outside}/a.webp"]


def test_a_pasted_path_is_read_only_as_an_image(workspace: Path, outside: Path) -> None:
    (outside / "data.txt").write_text("private\n")
    (outside / "data.png").write_text("private\n")
    (outside / "dir.png").mkdir()
    prompt = f"'{outside}/data.txt' '{outside}/data.png' '{outside}/dir.png'"
    found = find_images(prompt, workspace)
    assert found.images == []
    assert found.notes == [
        f"{outside}/data.png is not a PNG, JPEG, GIF or WebP image file; not attached",
        f"{outside}/dir.png is not a PNG, JPEG, GIF or WebP image file; not attached",
    ]


def test_urls_emails_and_prose_are_not_paths(workspace: Path) -> None:
    prompt = "see https://example.com/a.png or mail me@host.png, and/or a /b.png"
    found = find_images(prompt, workspace)
    assert found.images == []
    assert found.notes == ["/b.png: no such file; not attached"]


def test_each_image_is_attached_once_in_order(workspace: Path) -> None:
    (workspace / "a.png").write_bytes(images.png(seed=1))
    (workspace / "b.gif").write_bytes(images.gif())
    prompt = f"@b.gif @a.png {workspace}/a.png @b.gif"
    assert sources(prompt, workspace) == ["b.gif", "a.png"]


def test_too_many_images_keep_the_first(workspace: Path) -> None:
    count = MAX_PROMPT_IMAGES + 2
    for n in range(count):
        (workspace / f"i{n}.png").write_bytes(images.png(seed=n))
    found = find_images(" ".join(f"@i{n}.png" for n in range(count)), workspace)
    assert len(found.images) == MAX_PROMPT_IMAGES
    assert found.notes == [f"only the first {MAX_PROMPT_IMAGES} images are attached"]


def test_an_image_past_the_limits_is_said(workspace: Path) -> None:
    (workspace / "wide.gif").write_bytes(images.gif(9_000, 10))
    found = find_images("@wide.gif", workspace)
    assert found.images == []
    assert found.notes == [
        "wide.gif is 9000×10 pixels, over the 8,000 a side providers accept (Anthropic's "
        "limit); send a scaled-down copy; not attached"
    ]
