"""A text edited in the user's own editor ($VISUAL, else $EDITOR): the app handed the terminal, a
private temporary file, the text read back; when the editor fails, nothing changes."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path

from textual.app import SuspendNotSupported

from sessions.lone_surrogates import encodable

# Bytes of an edited text read back at most: a summary or a prompt is pages, not megabytes; a
# file the editor (or someone) made huge is refused rather than loaded whole into the screen.
MAX_EDITED_BYTES = 1_000_000


class EditorError(Exception):
    """The editor could not be used or did not finish well: one line; the text is unchanged."""


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """$VISUAL, else $EDITOR, as the words of a command (`code --wait` is two)."""
    command = (environ.get("VISUAL") or environ.get("EDITOR") or "").strip()
    if not command:
        raise EditorError("set $VISUAL or $EDITOR to edit in your own editor")
    import shlex  # (when the editor opens: not before the first frame)

    try:
        words = shlex.split(command)
    except ValueError as error:
        raise EditorError(f"$VISUAL or $EDITOR is not a command pleat can read: {error}") from None
    if not words:
        raise EditorError("set $VISUAL or $EDITOR to edit in your own editor")
    return words


def edit_externally(
    text: str,
    suspend: Callable[[], AbstractContextManager[None]],
    environ: Mapping[str, str] = os.environ,
    suffix: str = ".md",
) -> str:
    """`text` as the user left it in their editor, run on a file in a private temporary
    directory while `suspend` (the app's App.suspend) hands it the terminal. Raises
    EditorError (no editor, it could not start or failed, the file is too big or not UTF-8)."""
    argv = editor_command(environ)
    with tempfile.TemporaryDirectory(prefix="pleat-edit-") as directory:  # 0700: the user's
        path = Path(directory) / f"pleat-text{suffix}"
        path.write_text(encodable(text), encoding="utf-8")
        try:
            with suspend():
                status = subprocess.run([*argv, str(path)], check=False).returncode
        except SuspendNotSupported:
            raise EditorError("this terminal cannot be handed to an editor") from None
        except OSError as error:
            raise EditorError(f"cannot run {argv[0]}: {error.strerror or error}") from None
        if status != 0:
            raise EditorError(f"{argv[0]} exited with status {status}: the text is unchanged")
        try:
            with path.open("rb") as edited:
                data = edited.read(MAX_EDITED_BYTES + 1)
        except OSError as error:
            raise EditorError(f"cannot read the edited text: {error.strerror or error}") from None
    if len(data) > MAX_EDITED_BYTES:
        raise EditorError(f"the edited text is over {MAX_EDITED_BYTES:,} bytes: unchanged")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise EditorError("the edited text is not UTF-8: the text is unchanged") from None
