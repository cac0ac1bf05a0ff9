"""Language servers that misbehave (tests/support/language_servers/hostile_server.py, real
processes): one that stops reading, one that publishes for thousands of files, one that dies on
the edit. Each costs a line at most, holds no unbounded memory in pleat, and the edit succeeds."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support.lsp_registry import lsp_registry
from tools.base import ToolContext
from tools.lsp.manager import MAX_DOCUMENT_CHARS, LanguageServers
from tools.lsp.process import MAX_UNSENT_BYTES
from tools.lsp.settings import LanguageSetting, LspSettings

SERVER = Path(__file__).parents[3] / "support" / "language_servers" / "hostile_server.py"


def _servers(workspace: Path, mode: str, diagnostics_seconds: float = 3.0) -> LanguageServers:
    command = (sys.executable, str(SERVER), mode)
    languages = (LanguageSetting("python", command),)
    settings = LspSettings(diagnostics_seconds=diagnostics_seconds, languages=languages)
    return LanguageServers(workspace, settings, None)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_server_that_stops_reading_is_dropped_before_what_is_sent_piles_up(
    tmp_path: Path,
) -> None:
    servers = _servers(tmp_path, "deaf", diagnostics_seconds=0.01)
    ctx = ToolContext(tmp_path, language_servers=servers)
    registry, said = lsp_registry(), []
    line = "x = 1  # " + "y" * 990 + "\n"
    content = line * (1024 * 1024 // len(line))  # a megabyte a write
    for number in range(MAX_UNSENT_BYTES // len(content) + 2):
        write = {"path": "big.py", "content": f"n = {number}\n" + content}
        result = await registry.dispatch("write_file", write, ctx)
        assert not result.is_error and (tmp_path / "big.py").read_text().startswith(f"n = {number}")
        said += result.text.splitlines()[1:]
    unavailable = [s for s in said if "not available" in s]
    assert unavailable == [
        f"pleat: python language server ({Path(sys.executable).name}) not available: "
        "it does not read what it is sent"
    ]
    (server,) = servers._servers.values()
    assert server.pid is not None and server.state == "failed"
    await servers.close()
    assert not _alive(server.pid)


async def test_diagnostics_of_files_never_opened_are_not_kept(tmp_path: Path) -> None:
    servers = _servers(tmp_path, "many-files")
    ctx = ToolContext(tmp_path, language_servers=servers)
    result = await lsp_registry().dispatch(
        "write_file", {"path": "a.py", "content": "x = 1\n"}, ctx
    )
    assert result.text.splitlines()[1:] == [
        f"{Path(sys.executable).name} reports 1 error in a.py:",
        "  line 1:1 error: the file's own",
    ]
    (server,) = servers._servers.values()
    assert len(server.board) == 1  # not the 500 others'
    await servers.close()


async def test_a_server_that_dies_on_the_edit_is_said_at_once_not_after_the_wait(
    tmp_path: Path,
) -> None:
    servers = _servers(tmp_path, "crash-on-open", diagnostics_seconds=20)
    ctx = ToolContext(tmp_path, language_servers=servers)
    result = await lsp_registry().dispatch(
        "write_file", {"path": "a.py", "content": "x = 1\n"}, ctx
    )
    first, said = result.text.splitlines()  # the edit's line, then the server's one line
    assert first == "created a.py (1 lines, 6 bytes)"
    prefix = f"pleat: python language server ({Path(sys.executable).name}) not available: "
    assert said in (prefix + "it exited with code 3", prefix + "its process ended")
    await servers.close()


async def test_a_file_too_large_to_check_is_not_sent_and_costs_one_line(tmp_path: Path) -> None:
    servers = _servers(tmp_path, "deaf", diagnostics_seconds=0.01)
    ctx = ToolContext(tmp_path, language_servers=servers)
    registry = lsp_registry()
    content = "x = 1\n" * (MAX_DOCUMENT_CHARS // 6 + 1)
    result = await registry.dispatch("write_file", {"path": "gen.py", "content": content}, ctx)
    assert result.text.splitlines()[1:] == [
        f"pleat: gen.py is not sent to its language server ({len(content):,} characters, "
        f"over {MAX_DOCUMENT_CHARS:,})"
    ]
    asked = await registry.dispatch("lsp", {"operation": "symbols", "path": "gen.py"}, ctx)
    assert asked.is_error and "gen.py is not sent to its language server" in asked.text
    assert servers.status() == []  # nothing was started for it
    await servers.close()
