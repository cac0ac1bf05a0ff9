"""Which language a file is, and which server speaks it: config.toml's, else a well-known one on
PATH."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tools.lsp.settings import LspSettings

# The languages pleat knows by file extension: the name config.toml's `[lsp.NAME]` uses, and
# the languageId LSP gives the file (one server speaks TypeScript and JavaScript, clangd C and
# C++: one name each, several ids).
KNOWN_EXTENSIONS: dict[str, tuple[str, str]] = {
    ".py": ("python", "python"),
    ".pyi": ("python", "python"),
    ".ts": ("typescript", "typescript"),
    ".mts": ("typescript", "typescript"),
    ".cts": ("typescript", "typescript"),
    ".tsx": ("typescript", "typescriptreact"),
    ".js": ("typescript", "javascript"),
    ".mjs": ("typescript", "javascript"),
    ".cjs": ("typescript", "javascript"),
    ".jsx": ("typescript", "javascriptreact"),
    ".go": ("go", "go"),
    ".rs": ("rust", "rust"),
    ".c": ("c", "c"),
    ".h": ("c", "c"),
    ".cc": ("c", "cpp"),
    ".cpp": ("c", "cpp"),
    ".cxx": ("c", "cpp"),
    ".hh": ("c", "cpp"),
    ".hpp": ("c", "cpp"),
    ".hxx": ("c", "cpp"),
}
# The servers looked for on PATH when config.toml names none, best first: the type checkers
# before the linters (pyright finds what pylsp's pyflakes finds and type errors besides; ruff's
# server lints but answers no definitions).
WELL_KNOWN: dict[str, tuple[tuple[str, ...], ...]] = {
    "python": (
        ("pyright-langserver", "--stdio"),
        ("basedpyright-langserver", "--stdio"),
        ("pylsp",),
        ("ruff", "server"),
    ),
    "typescript": (("typescript-language-server", "--stdio"),),
    "go": (("gopls",),),
    "rust": (("rust-analyzer",),),
    "c": (("clangd",),),
}


@dataclass(frozen=True)
class Language:
    """A file's language: its settings name and its LSP languageId."""

    name: str
    language_id: str


@dataclass(frozen=True)
class ServerCommand:
    """The server to run for a language: its argv (the program found), or why there is none."""

    language: str
    argv: tuple[str, ...] = ()
    missing: str = ""  # why no server runs (argv is empty then)

    @property
    def name(self) -> str:
        """The server's name as /lsp and the notes say it: its program's file name."""
        return Path(self.argv[0]).name if self.argv else ""


def language_of(path: Path, settings: LspSettings) -> Language | None:
    """The language of `path` by its extension (config.toml's extensions first), or None."""
    suffix = path.suffix.lower()
    for setting in settings.languages:
        if suffix in setting.extensions:
            return Language(setting.language, setting.language)
    known = KNOWN_EXTENSIONS.get(suffix)
    return Language(*known) if known else None


def _which(program: str) -> str | None:
    """`program` found on PATH's absolute directories only: a relative entry (".", "", "bin")
    is the directory pleat runs in, the workspace, where a repository could plant a "server"
    that would run unasked as soon as the model reads a file (found by review). A name with a
    slash (config.toml's own path) is taken as written."""
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return shutil.which(program, path=os.pathsep.join(e for e in entries if os.path.isabs(e)))


def server_command(language: str, settings: LspSettings) -> ServerCommand | None:
    """The server for `language`: config.toml's command (its program looked up on PATH), else
    the first well-known one found; a ServerCommand saying what is missing when none is found;
    None when this language is turned off."""
    setting = settings.language(language)
    if setting is not None and not setting.enabled:
        return None
    if setting is not None and setting.command:
        program = _which(setting.command[0])
        if program is None:
            return ServerCommand(language, missing=f"{setting.command[0]} not found")
        return ServerCommand(language, (program, *setting.command[1:]))
    candidates = WELL_KNOWN.get(language, ())
    for argv in candidates:
        if (program := _which(argv[0])) is not None:
            return ServerCommand(language, (program, *argv[1:]))
    if not candidates:
        return ServerCommand(language, missing=f"no command set ([lsp.{language}] command)")
    names = ", ".join(argv[0] for argv in candidates)
    return ServerCommand(language, missing=f"none of {names} is on PATH")
