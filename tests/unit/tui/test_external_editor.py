"""Editing in the user's own editor ($VISUAL, else $EDITOR): a real editor process edits the text
while the app is handed over; an editor that fails, is missing or is not set changes nothing and
says why in one line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from textual.app import SuspendNotSupported

from tui.external_editor import EditorError, edit_externally


def script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o700)
    return str(path)


def test_the_users_editor_edits_the_text_and_a_failing_one_changes_nothing(tmp_path: Path) -> None:
    editor = script(tmp_path / "ed", 'printf "edited: %s" "$(cat "$1")" > "$1"')
    failing = script(tmp_path / "fail", 'echo "ruined" > "$1"; exit 3')
    handed: list[str] = []

    @contextmanager
    def suspend() -> Iterator[None]:
        handed.append("suspended")
        yield

    assert edit_externally("draft", suspend, {"EDITOR": editor}) == "edited: draft"
    assert handed == ["suspended"]
    cases = {
        "exited with status 3": {"VISUAL": failing, "EDITOR": editor},  # VISUAL comes first
        "cannot run": {"EDITOR": str(tmp_path / "no-such-editor")},
        "set $VISUAL or $EDITOR": {},
        "not a command": {"EDITOR": "vim 'unclosed"},
    }
    for said, environ in cases.items():
        with pytest.raises(EditorError, match=said.replace("$", r"\$")) as error:
            edit_externally("draft", suspend, environ)
        assert "\n" not in str(error.value)

    @contextmanager
    def unsupported() -> Iterator[None]:
        raise SuspendNotSupported()
        yield

    with pytest.raises(EditorError, match="cannot be handed to an editor"):
        edit_externally("draft", unsupported, {"EDITOR": editor})
