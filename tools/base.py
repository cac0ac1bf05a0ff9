"""The tool contract: a schema for the model, a read-only flag for permissions, an async run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from sessions.image_ref import ImageRef
from sessions.output_spool import SpooledOutput
from tools.call_summary import shown_arguments
from tools.editor_files import EditorFiles
from tools.errors import ToolError as ToolError  # where tools have always found it
from tools.image_file import LoadedImage
from tools.lsp.port import LanguageServices
from tools.output_budget import OutputBudget
from tools.output_limits import DEFAULT_OUTPUT_TOKENS
from tools.rereads import EarlierReads
from tools.result_facts import FACTS_KEY, ResultFacts
from tools.sandbox.policy import Sandbox

# How permission rules read a tool's main argument (agent/permissions/rules.py): a shell command
# line (cut into the commands it runs), a path (made relative to the workspace), a web address
# (in its normal form, tools/web_address.py), or plain text.
MainArgumentKind = Literal["command", "path", "url", "text"]


class OutputKeeper(Protocol):
    """Where the full text of a cut output is kept for paging (sessions.outputs.KeptOutputs)."""

    @property
    def directory(self) -> Path:
        """Where kept outputs live; a long command's output is spooled there as it arrives."""
        ...

    def keep(self, text: str) -> int:
        """Store the text; returns the number read_archive reads it back by."""
        ...

    def read(self, number: int) -> str: ...

    def redacted(self, text: str) -> str:
        """The text with the session's known secrets redacted, as kept outputs are."""
        ...


class ImageAttacher(Protocol):
    """Where an image a tool read goes (agent.images.parts.Attachments): the session keeps a
    copy, and the model sees it if it accepts images."""

    def refusal(self) -> str | None:
        """Why images cannot be sent to the model now (one line), or None when they can."""
        ...

    def keep(self, image: LoadedImage) -> ImageRef:
        """Copy the image into the session (blocking: call it in a thread); raises OSError."""
        ...


@dataclass(frozen=True)
class ToolContext:
    """What every tool run may use: the workspace it is confined to, the most its output may
    take of the model's window, and where a cut output's full text is kept."""

    workspace: Path
    budget: OutputBudget = field(default_factory=OutputBudget)
    outputs: OutputKeeper | None = None
    # The budget of a result when it is the only one of its reply: what numbered pages are
    # sized by (read_archive), so that a page number means the same page from call to call.
    page_tokens: int = DEFAULT_OUTPUT_TOKENS
    # Where images read by a tool are attached (None: no session to keep them in).
    images: ImageAttacher | None = None
    # Whether a call of this tool with other arguments would be let run as freely as this one
    # (web_fetch asks before following a redirect): the agent's permission rules, which a tool
    # cannot read itself (agent/permissions/policy.py). None: nobody to ask, every variant may run.
    same_permission: Callable[[dict[str, Any]], bool] | None = None
    # The read_file results still in the live context, read-only (tools/rereads.py): a read of
    # unchanged lines the model has is a note naming them. None: every read is a real one.
    reads: EarlierReads | None = None
    # The sandbox commands run in (tools/sandbox/policy.py); None: none (as `off`).
    sandbox: Sandbox | None = None
    # Directories outside the workspace that read_file (and it alone) may read, each confined
    # like the workspace: the user's skills' own directories (agent/skills/), whose files a
    # skill names by path. Nothing else reads there.
    read_roots: tuple[Path, ...] = ()
    # Directories outside the workspace the user added (`--add-dir`, `/add-dir`, `add_dirs`:
    # agent/added_dirs.py), resolved: every file tool reads and writes there as in the
    # workspace, each path confined to the root it lies in (tools/paths.py root_of), and
    # shown as an absolute path.
    extra_roots: tuple[Path, ...] = ()
    # Whether a deny rule refuses reading this workspace-relative file (Claude Code's
    # `Read(./.env)`): grep does not search it either, so its content reaches the model by no
    # tool of pleat's (a command's output is the command's deny rules' business). None: none.
    unreadable: Callable[[str], bool] | None = None
    # The editor a front end lends (ACP's fs/*: tools/editor_files.py): write_file and
    # edit_file read and write through it, read_file reads text through it; None: the disk.
    editor: EditorFiles | None = None
    # The session's language servers (tools/lsp/): a read starts the file's, a write or an edit
    # reports its diagnostics, the lsp tool asks them. None: none (`[lsp] enabled = false`).
    language_servers: LanguageServices | None = None


@dataclass(frozen=True)
class ToolOutput:
    """What a tool run gives back to the model; `is_error` marks failures and refusals."""

    text: str
    is_error: bool = False
    # Structured extras for the UI (e.g. a diff, an exit code); never sent to the model.
    meta: dict[str, Any] = field(default_factory=dict)
    # What code needs to know of the result (exit code, cut output, files), kept on its message.
    facts: ResultFacts = field(default_factory=ResultFacts)
    # The whole output as written to the session while it arrived (run_command), the text
    # without the status lines: read back when the result is cut, then removed (output_guard).
    spooled: SpooledOutput | None = None
    # Images the tool attached (read_file on an image): the agent sends them in a user message
    # after the results of the reply, since the chat format has no image in a tool message.
    images: tuple[ImageRef, ...] = ()

    def message_meta(self) -> dict[str, Any]:
        """What the tool message made of this output keeps in its meta: the error flag and the
        facts (the UI's extras are not kept: a diff can be large)."""
        return {"is_error": self.is_error, FACTS_KEY: self.facts.to_dict()}


def function_schema(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool as the model is told of it: an OpenAI function-tool schema."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


class Tool(ABC):
    """One tool the model can call. Subclasses set the class attributes and implement run()."""

    name: str
    description: str
    parameters: dict[str, Any]
    # Read-only tools run freely; the others ask the approval callback first. A tool says so
    # itself: one that forgets is asked about (and refused in plan mode), never run unasked.
    read_only: bool = False
    # Writes or edits files in the workspace, and nothing else: what the accept-edits
    # permission mode lets run without asking.
    edits_files: bool = False
    # Runs commands, which the sandbox confines (tools/sandbox/): with the sandbox active a call
    # runs without asking, and one that asks to leave it (no_sandbox) always asks.
    sandboxable: bool = False
    # Not read-only, yet changes nothing on this machine (web_fetch: it reaches out, so it
    # asks): plan mode asks for it instead of refusing it.
    asks_in_plan_mode: bool = False
    # The argument permission rules match (`run_command(pytest *)` matches `command`), and how
    # it is read; None: only a rule naming the tool alone matches its calls.
    main_argument: str | None = None
    main_argument_kind: MainArgumentKind = "text"
    # Its calls run side by side with the reply's other concurrent calls (a sub-agent's task),
    # instead of one after another like the rest, whose order matters (an edit, then a test).
    concurrent: bool = False
    # Other names a permission rule may give the tool by: an MCP tool's server (`mcp__docs`
    # allows, or denies, every tool of the server docs).
    rule_aliases: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema sent with every model call."""
        return function_schema(self.name, self.description, self.parameters)

    def keeps_notes(self, args: Mapping[str, Any]) -> bool:
        """Whether this call, of a tool that runs unasked as a read does, keeps what it says
        (the auto memory's add): a turn that only reads (/review, where hostile text is read)
        refuses it."""
        return False

    def describe_call(self, args: dict[str, Any]) -> str:
        """A one-line human summary of a call, for logs, the headless stderr and the TUI."""
        return f"{self.name}({shown_arguments(args)})"

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """What the user approves: a diff for edits and writes, the command for the shell."""
        return self.describe_call(args)

    def writes(self, args: dict[str, Any]) -> tuple[str, ...] | None:
        """The paths (as the model gave them) a call may change, for checkpoints: none for a
        read-only tool; None when the tool cannot say (a command: anything may change)."""
        return () if self.read_only else None

    @abstractmethod
    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run with validated arguments; raise ToolError for a clear failure message."""
