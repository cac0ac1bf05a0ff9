"""One running language server, spoken to through pygls's client with lsprotocol's types: started
and initialized within a bound, the workspace's documents kept in sync, diagnostics kept as they
arrive, requests answered within a bound or not at all. pygls is imported when a server starts."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from tools.lsp.diagnostics import DiagnosticsBoard
from tools.lsp.languages import ServerCommand
from tools.lsp.positions import OFFERED_ENCODINGS
from tools.lsp.process import BoundedReader, BoundedWriter, StderrTail, kill_group, spawn
from tools.sandbox.policy import Sandbox

if TYPE_CHECKING:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

# A server's life as /lsp shows it.
State = Literal["starting", "running", "failed", "stopped"]
# The client's name and version as the server is told them (initialize's clientInfo).
CLIENT_NAME, CLIENT_VERSION = "pleat", "1"
Answer = TypeVar("Answer")
# Seconds a closing server's process and reading tasks get to end after it is killed: a killed
# process ends at once; this only bounds the wait when the machine is very busy.
CLOSE_SECONDS = 2.0


class ServerUnavailable(Exception):
    """The server cannot be used (not started, crashed, hung); the message says why, one line."""


def _quiet_pygls() -> None:
    """pygls logs a warning for every message it has no handler for: kept out of the terminal
    (logging's last-resort handler would print it over the TUI)."""
    logger = logging.getLogger("pygls")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


class ServerConnection:
    """A server's process, its pygls client, the documents it has open and what it published."""

    def __init__(self, command: ServerCommand, workspace: Path, sandbox: Sandbox | None) -> None:
        self.command = command
        self.workspace = workspace
        self.sandbox = sandbox
        self.languages: set[str] = {command.language}
        self.state: State = "starting"
        self.why = ""  # why it failed or stopped
        self.stderr = StderrTail()
        self.board = DiagnosticsBoard()
        self.encoding = "utf-16"  # the position encoding the server chose
        self.capabilities: types.ServerCapabilities | None = None
        self.ended = asyncio.Event()  # its process ended, or its output could not be read
        self.pid: int | None = None
        self.unreadable = 0  # messages of the server's that could not be read, and the last why
        self.unreadable_why = ""
        self._process: asyncio.subprocess.Process | None = None
        self._client: LanguageClient | None = None
        self._open: dict[str, tuple[int, bytes]] = {}  # uri: version, digest of the text sent
        self._tasks: list[asyncio.Task[Any]] = []

    async def start(self, seconds: float) -> None:
        """Start the server and initialize it within `seconds`. Raises ServerUnavailable."""
        try:
            self._process = await spawn(self.command.argv, self.workspace, self.sandbox)
        except OSError as error:
            why = f"cannot start {self.command.argv[0]}: {error.strerror or error}"
            raise self._failed(why) from None
        self.pid = self._process.pid
        from pygls.io_ import run_async
        from pygls.lsp.client import LanguageClient

        _quiet_pygls()
        client = LanguageClient(CLIENT_NAME, CLIENT_VERSION)
        self._client = client
        self._answer_server(client)
        process = self._process
        assert process.stdin is not None and process.stdout is not None and process.stderr
        client.protocol.set_writer(BoundedWriter(process.stdin, self._stalled))
        reading = run_async(
            threading.Event(),
            BoundedReader(process.stdout),
            client.protocol,
            error_handler=self._unreadable,
        )
        self._tasks = [
            asyncio.create_task(self._until_end(reading)),
            asyncio.create_task(self.stderr.drain(process.stderr)),
            asyncio.create_task(self._until_end(process.wait())),
        ]
        from lsprotocol import types

        params = types.InitializeParams(
            capabilities=_capabilities(),
            process_id=None,  # not pleat's: a server watching it would outlive nothing useful
            client_info=types.ClientInfo(name=CLIENT_NAME, version=CLIENT_VERSION),
            root_uri=self.workspace.as_uri(),
            root_path=str(self.workspace),
            workspace_folders=[
                types.WorkspaceFolder(uri=self.workspace.as_uri(), name=self.workspace.name)
            ],
        )
        try:
            result = await self.ask(lambda: client.initialize_async(params), seconds, "initialize")
        except ServerUnavailable as error:
            if self.state != "starting":  # stopped meanwhile, or failed already (it ended)
                raise ServerUnavailable(self.why) from None
            raise self._failed(str(error)) from None
        self.capabilities = result.capabilities
        encoding = result.capabilities.position_encoding
        self.encoding = str(getattr(encoding, "value", encoding) or "utf-16")
        client.initialized(types.InitializedParams())
        self.state = "running"

    async def _until_end(self, work: Awaitable[Any]) -> None:
        """Run `work` (reading the server's output, waiting for its process), then mark the
        server ended: its output closed, it exited, or it sent what could not be read."""
        reason = "its process ended"
        try:
            await work
        except Exception as error:  # a message over the bound, a broken stream
            reason = f"its output could not be read: {error}"
        if not self.ended.is_set():
            code = self._process.returncode if self._process else None
            if code is not None:
                reason = f"it exited with code {code}"
            if self.state != "stopped":
                self._failed(reason)
            self.ended.set()

    def _stalled(self) -> None:
        """The server left too much of what was sent unread: it is stopped, not waited for."""
        self._failed("it does not read what it is sent")

    def _unreadable(self, error: Exception, _source: type[Exception]) -> None:
        """A message of the server's that pygls could not take (said by /lsp; a request it
        answered so is waited for in vain, within its bound)."""
        from cattrs.errors import BaseValidationError

        self.unreadable += 1
        if isinstance(error.__cause__, BaseValidationError):
            self.unreadable_why = f"did not fit lsprotocol's types: {error.__cause__}"
        else:
            self.unreadable_why = f"{type(error).__name__}: {error}"

    def _answer_server(self, client: LanguageClient) -> None:
        """What the server may ask or tell: its diagnostics are kept; its questions get plain
        answers (no settings of pleat's, no edits applied: a server never writes a file)."""
        from lsprotocol import types

        def published(params: types.PublishDiagnosticsParams) -> None:
            if params.uri in self._open:  # another file's (a project's thousands) is no use
                self.board.publish(params.uri, params.version, params.diagnostics)

        def configuration(params: types.ConfigurationParams) -> list[None]:
            return [None for _ in params.items]

        def refused_edit(_params: Any) -> types.ApplyWorkspaceEditResult:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="read-only client")

        def folders(_params: Any) -> list[types.WorkspaceFolder]:
            return [types.WorkspaceFolder(uri=self.workspace.as_uri(), name=self.workspace.name)]

        def nothing(_params: Any) -> None:
            return None

        handlers: dict[str, Callable[[Any], Any]] = {
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published,
            types.WORKSPACE_CONFIGURATION: configuration,
            types.WORKSPACE_APPLY_EDIT: refused_edit,
            types.WORKSPACE_WORKSPACE_FOLDERS: folders,
        }
        for method in (
            types.CLIENT_REGISTER_CAPABILITY,
            types.CLIENT_UNREGISTER_CAPABILITY,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
            types.WINDOW_SHOW_MESSAGE_REQUEST,
            types.WINDOW_LOG_MESSAGE,
            types.WINDOW_SHOW_MESSAGE,
            types.PROGRESS,
            types.TELEMETRY_EVENT,
            types.WORKSPACE_DIAGNOSTIC_REFRESH,
            types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
            types.WORKSPACE_INLAY_HINT_REFRESH,
            types.WORKSPACE_CODE_LENS_REFRESH,
        ):
            handlers[method] = nothing
        for method, handler in handlers.items():
            client.feature(method)(handler)

    async def ask(
        self, request: Callable[[], Awaitable[Answer]], seconds: float, what: str
    ) -> Answer:
        """The answer to `request` within `seconds`. Raises ServerUnavailable when the server
        ended meanwhile, answered an error, or gave no answer in time (for initialize, that
        is the server failing: it is stopped)."""
        if not self.alive:
            raise ServerUnavailable(self.why or "it is not running")
        answer = asyncio.ensure_future(request())
        ended = asyncio.create_task(self.ended.wait())
        try:
            done, _ = await asyncio.wait(
                {answer, ended}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            ended.cancel()
        if answer in done:
            try:
                return answer.result()
            except Exception as error:
                raise ServerUnavailable(f"{what} failed: {error}") from None
        answer.cancel()
        if ended in done or self.ended.is_set():
            raise ServerUnavailable(self.why or "it ended")
        raise ServerUnavailable(f"no answer to {what} within {seconds:g} s")

    def sync(self, path: Path, text: str, language_id: str) -> tuple[str, int, int]:
        """Tell the server `path`'s text now (opened the first time, changed after; nothing when
        it has this very text). Returns its URI, the version sent and the count of diagnostics
        published before, which a wait for this version's goes past (-1 when nothing was sent:
        any publication of this version answers)."""
        from lsprotocol import types

        if self._client is None or not self.alive:
            raise ServerUnavailable(self.why or "it is not running")
        uri = path.as_uri()
        digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).digest()
        before = self.board.count
        known = self._open.get(uri)
        if known is not None and known[1] == digest:
            return uri, known[0], -1
        if known is None:
            item = types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            self._client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
            version = 1
        else:
            version = known[0] + 1
            change = types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
            self._client.text_document_did_change(change)
            if self._wants_save():
                identifier = types.TextDocumentIdentifier(uri=uri)
                saved = types.DidSaveTextDocumentParams(text_document=identifier)
                self._client.text_document_did_save(saved)
        self._open[uri] = (version, digest)
        if not self.alive:  # it stopped reading (BoundedWriter), or ended meanwhile
            raise ServerUnavailable(self.why or "it ended")
        return uri, version, before

    def _wants_save(self) -> bool:
        """Whether the server asked to be told of saves (some check only then)."""
        sync = self.capabilities.text_document_sync if self.capabilities else None
        return bool(getattr(sync, "save", None))

    @property
    def client(self) -> LanguageClient:
        if self._client is None or not self.alive:
            raise ServerUnavailable(self.why or "it is not running")
        return self._client

    @property
    def alive(self) -> bool:
        """Whether the server may still be spoken to (starting or running, its process up)."""
        return self.state in ("starting", "running") and not self.ended.is_set()

    def _failed(self, why: str) -> ServerUnavailable:
        """Mark the server failed (`why`) and kill it; the exception to raise."""
        self.state, self.why = "failed", why
        self.kill()
        self.ended.set()
        return ServerUnavailable(why)

    def stop(self, why: str = "stopped with the session") -> None:
        """Kill the server's process group; it answers nothing from now on. Safe from any
        thread (the session may be closed from one): its reading task sees the end."""
        if self.state in ("starting", "running"):
            self.state, self.why = "stopped", why
        self.kill()

    def kill(self) -> None:
        if self._process is not None:
            kill_group(self._process)

    async def closed(self) -> None:
        """Stop the server and wait (at most CLOSE_SECONDS) for its process and its tasks to
        end, so nothing of it is left for the event loop's end to trip over."""
        self.stop()
        if self._process is not None and self._process.stdin is not None:
            self._process.stdin.close()
        tasks = [task for task in self._tasks if not task.done()]
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=CLOSE_SECONDS)
            for task in pending:
                task.cancel()
        self.ended.set()


def _capabilities() -> types.ClientCapabilities:
    """What pleat's client does: documents synced whole, diagnostics pushed (with versions),
    and the four questions the lsp tool asks."""
    from lsprotocol import types

    text = types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        definition=types.DefinitionClientCapabilities(link_support=True),
        references=types.ReferenceClientCapabilities(),
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.PlainText, types.MarkupKind.Markdown]
        ),
        document_symbol=types.DocumentSymbolClientCapabilities(
            hierarchical_document_symbol_support=True
        ),
    )
    general = types.GeneralClientCapabilities(position_encodings=list(OFFERED_ENCODINGS))
    workspace = types.WorkspaceClientCapabilities(configuration=True, workspace_folders=True)
    return types.ClientCapabilities(workspace=workspace, text_document=text, general=general)
