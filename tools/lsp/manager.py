"""The session's language servers: each started the first time the model reads or edits a file of
its language, asked for diagnostics after every write and edit and for the lsp tool's answers,
and stopped with the session. A server that is missing, crashes or hangs costs one line."""

from __future__ import annotations

import asyncio
import atexit
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.errors import ToolError
from tools.lsp.answers import hover_text, locations, symbols_text
from tools.lsp.client import CLOSE_SECONDS, ServerConnection, ServerUnavailable
from tools.lsp.diagnostics import flat, report
from tools.lsp.languages import WELL_KNOWN, Language, ServerCommand, language_of, server_command
from tools.lsp.port import Question
from tools.lsp.positions import line_of, to_lsp_character
from tools.lsp.settings import LspSettings
from tools.sandbox.policy import Sandbox

# Seconds the lsp tool waits for an answer: a first references search makes jedi or pyright
# read the project (seconds on a large one); past 15 s the model is better served by grep.
ANSWER_SECONDS = 15.0
# The server capability (ServerCapabilities' attribute) that says it answers each question: ruff's
# server, for one, lints and formats but answers no definitions.
PROVIDERS = {
    "definition": "definition_provider",
    "references": "references_provider",
    "hover": "hover_provider",
    "symbols": "document_symbol_provider",
}
# Seconds the race between a diagnostics wait and the server's end is given past the wait's own
# bound (the wait ends itself in time; this only keeps the race from cutting it first).
DIAGNOSTICS_SLACK_SECONDS = 1.0
# Characters of a document sent to a server: a hand-written source file is far smaller; a bigger
# one is generated or data (a bundle, a lockfile), slow for a server to parse on every edit and
# of no use to check, so it is not sent (said in one line).
MAX_DOCUMENT_CHARS = 2 * 1024 * 1024
# Characters of the reason quoted in a server's one line: the error, or its stderr's last line.
MAX_WHY_CHARS = 200


@dataclass(frozen=True)
class ServerStatus:
    """One row of /lsp: the languages, the server (its program), its state and why."""

    languages: tuple[str, ...]
    server: str
    state: str  # a server's State, or "missing"
    detail: str = ""


class LanguageServers:
    """The servers of one session, by command (languages sharing a server share its process)."""

    def __init__(self, workspace: Path, settings: LspSettings, sandbox: Sandbox | None) -> None:
        self.workspace = workspace.resolve()  # as the file tools' paths are (rootUri, cwd)
        self.settings = settings
        self.sandbox = sandbox
        self._commands: dict[str, ServerCommand | None] = {}  # each language's, looked up once
        self._servers: dict[tuple[str, ...], ServerConnection] = {}
        self._starts: dict[tuple[str, ...], asyncio.Task[None]] = {}
        self._said: set[str] = set()  # languages whose unavailability was said
        self._exit_armed = False

    def _language(self, path: Path) -> Language | None:
        return language_of(path, self.settings) if self.settings.enabled else None

    def _command(self, language: str) -> ServerCommand | None:
        if language not in self._commands:
            self._commands[language] = server_command(language, self.settings)
        return self._commands[language]

    def offered(self) -> bool:
        """Whether the session has language servers to offer: one configured in config.toml
        (a missing one is then said in one line), or a well-known one found on PATH (looked
        up once, as at a file's first read). Without any, the lsp tool is not offered: its
        schema would ride in every request for nothing."""
        if not self.settings.enabled:
            return False
        if any(item.enabled and item.command for item in self.settings.languages):
            return True
        return any(
            (command := self._command(language)) is not None and command.argv
            for language in WELL_KNOWN
        )

    def _server(self, language: str) -> ServerConnection | None:
        """The server of `language`, started (in the background) if it was not; None when the
        language has no server (turned off, or none found)."""
        command = self._command(language)
        if command is None or not command.argv:
            return None
        server = self._servers.get(command.argv)
        if server is None:
            if not self._servers and not self._exit_armed:  # killed at exit, if not before
                atexit.register(self.stop_all)
                self._exit_armed = True
            server = ServerConnection(command, self.workspace, self.sandbox)
            self._servers[command.argv] = server
            self._starts[command.argv] = asyncio.create_task(self._start(server))
        server.languages.add(language)
        return server

    async def _start(self, server: ServerConnection) -> None:
        """Start `server`; a failure is kept on it (its state and why), never raised."""
        try:
            await server.start(self.settings.start_seconds)
        except ServerUnavailable:
            pass
        except Exception as error:  # a bug of the server's or the library's: said the same way
            server.state, server.why = "failed", f"{type(error).__name__}: {error}"
            server.kill()

    async def _ready(self, language: str) -> ServerConnection:
        """The running server of `language`, waiting for its start. Raises ServerUnavailable."""
        server = self._server(language)
        if server is None:
            command = self._command(language)
            raise ServerUnavailable(command.missing if command else "turned off")
        start = self._starts[server.command.argv]
        await asyncio.wait({start})  # one start, however many wait (and none cancels it)
        if server.state != "running" or server.ended.is_set():
            raise ServerUnavailable(server.why or "it is not running")
        return server

    def _unavailable(self, language: str, why: str) -> str:
        """The one line saying `language`'s server cannot be used (the first time), or ""."""
        if language in self._said:
            return ""
        self._said.add(language)
        command = self._command(language)
        named = f" ({command.name})" if command is not None and command.name else ""
        server = self._servers.get(command.argv) if command is not None else None
        said = server.stderr.last() if server is not None else ""
        more = f" ({flat(said, MAX_WHY_CHARS)})" if said and said not in why else ""
        reason = flat(why, MAX_WHY_CHARS) + more
        return f"pleat: {language} language server{named} not available: {reason}"

    def noticed(self, path: Path) -> None:
        if (language := self._language(path)) is not None:
            self._server(language.name)

    async def after_change(self, path: Path, rel: str, text: str) -> str:
        language = self._language(path)
        if language is None or self._command(language.name) is None:
            return ""
        if len(text) > MAX_DOCUMENT_CHARS:
            return f"pleat: {rel} is not sent to its language server ({_too_large(text)})"
        try:
            server = await self._ready(language.name)
            uri, version, before = server.sync(path, text, language.language_id)
            wait = self.settings.diagnostics_seconds
            published = await server.ask(  # a server that dies meanwhile is said at once
                lambda: server.board.wait(uri, before, version, wait),
                wait + DIAGNOSTICS_SLACK_SECONDS,
                "diagnostics",
            )
        except ServerUnavailable as error:
            return self._unavailable(language.name, str(error))
        name = server.command.name
        if published is None:
            return f"{name}: no diagnostics of {rel} within {wait:g} s"
        return report(name, rel, published.items, text, server.encoding)

    async def answer(
        self, question: Question, path: Path, rel: str, text: str, line: int, column: int
    ) -> str:
        language = self._language(path)
        if language is None:
            why = "language servers are off" if not self.settings.enabled else "no language"
            raise ToolError(f"no language server for {rel} ({why} for its file type)")
        if len(text) > MAX_DOCUMENT_CHARS:
            raise ToolError(f"{rel} is not sent to its language server ({_too_large(text)})")
        try:
            server = await self._ready(language.name)
            provider = getattr(server.capabilities, PROVIDERS[question], None)
            if not provider:
                raise ToolError(f"{server.command.name} does not answer {question} ({rel})")
            uri, _version, _before = server.sync(path, text, language.language_id)
            found = await server.ask(
                lambda: self._request(server, question, uri, text, line, column),
                ANSWER_SECONDS,
                question,
            )
        except ServerUnavailable as error:
            command = self._command(language.name)
            named = f" ({command.name})" if command is not None and command.name else ""
            why = flat(str(error), MAX_WHY_CHARS)
            raise ToolError(f"{language.name} language server{named}: {why}") from None
        if question == "hover":
            return hover_text(found)
        if question == "symbols":
            return symbols_text(found, rel)
        return locations(
            self.workspace, found, "definitions" if question == "definition" else question
        )

    async def _request(
        self,
        server: ServerConnection,
        question: Question,
        uri: str,
        text: str,
        line: int,
        column: int,
    ) -> Any:
        """Send `question` about `uri` at `line`, `column` (1-based, in characters)."""
        from lsprotocol import types

        document = types.TextDocumentIdentifier(uri=uri)
        if question == "symbols":
            return await server.client.text_document_document_symbol_async(
                types.DocumentSymbolParams(text_document=document)
            )
        character = to_lsp_character(line_of(text, line - 1), column, server.encoding)
        position = types.Position(line=max(line - 1, 0), character=character)
        client = server.client
        if question == "definition":
            params = types.DefinitionParams(text_document=document, position=position)
            return await client.text_document_definition_async(params)
        if question == "references":
            context = types.ReferenceContext(include_declaration=True)
            references = types.ReferenceParams(
                text_document=document, position=position, context=context
            )
            return await client.text_document_references_async(references)
        hover = types.HoverParams(text_document=document, position=position)
        return await client.text_document_hover_async(hover)

    def status(self) -> list[ServerStatus]:
        """What /lsp shows: every server started, then every language whose server is missing."""
        rows = [
            ServerStatus(tuple(sorted(s.languages)), s.command.name, s.state, _detail(s))
            for s in self._servers.values()
        ]
        for language, command in sorted(self._commands.items()):
            if command is not None and not command.argv:
                rows.append(ServerStatus((language,), "", "missing", command.missing))
        return rows

    def stop_all(self) -> None:
        """Kill every server (their process groups): the session ends or is left. Safe from
        any thread, and at exit (atexit: what a close left running)."""
        servers, self._servers, self._starts = list(self._servers.values()), {}, {}
        self._commands, self._said = {}, set()
        for server in servers:
            server.stop()

    async def close(self) -> None:
        """Stop every server and wait for their processes (bounded): the session ends."""
        servers, starts = list(self._servers.values()), list(self._starts.values())
        self.stop_all()
        await asyncio.gather(*(server.closed() for server in servers))
        if starts:
            await asyncio.wait(starts, timeout=CLOSE_SECONDS)


def _too_large(text: str) -> str:
    return f"{len(text):,} characters, over {MAX_DOCUMENT_CHARS:,}"


def _detail(server: ServerConnection) -> str:
    """Why a server failed or stopped, else its pid; and the messages it sent that could not
    be read."""
    said = server.why or (f"pid {server.pid}" if server.pid is not None else "")
    if server.unreadable:
        why = flat(server.unreadable_why, MAX_WHY_CHARS)
        said += f"; {server.unreadable} message(s) could not be read (the last {why})"
    return said
