"""A real language server from the registry (python-lsp-server, a dev dependency, run confined
like commands): an edit that introduces an undefined name gets that diagnostic with its line in
its result, definition and references answer; a missing server and one that hangs each cost one
line, and the edit still succeeds. One pylsp process serves the module's in-process tests; one
headless run shows the wiring from config.toml to the edit's result."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent.slash.language_servers import lsp_report
from tests.support.lsp_registry import lsp_registry
from tests.support.pleat_process import headless_args, pleat
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.base import ToolContext
from tools.lsp.manager import LanguageServers
from tools.lsp.settings import LanguageSetting, LspSettings
from tools.sandbox.policy import Sandbox

# The in-process tests share the module fixture's event loop (its pylsp is bound to it).
ON_MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")

# The server: the `pylsp` the dev dependencies install beside this interpreter.
PYLSP = str(Path(sys.executable).with_name("pylsp"))
SOURCE = "def greet(name):\n    return 'hello ' + name\n\n\nprint(greet('you'))\n"
# A server that reads what it is sent and never answers (not even initialize).
HANGING = "import sys\nwhile sys.stdin.buffer.read(1):\n    pass\n"


def _servers(workspace: Path, command: tuple[str, ...], **waits: float) -> LanguageServers:
    settings = LspSettings(languages=(LanguageSetting("python", command),), **waits)
    return LanguageServers(workspace, settings, Sandbox("workspace-write", workspace))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pylsp_workspace(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Path, ToolContext]]:
    workspace = tmp_path_factory.mktemp("pylsp-ws")
    (workspace / "app.py").write_text(SOURCE)
    servers = _servers(workspace, (PYLSP,))
    yield workspace, ToolContext(workspace, language_servers=servers)
    await servers.close()


@ON_MODULE_LOOP
async def test_an_edit_introducing_an_undefined_name_reports_it_with_its_line(
    pylsp_workspace: tuple[Path, ToolContext],
) -> None:
    workspace, ctx = pylsp_workspace
    registry = lsp_registry()
    await registry.dispatch("read_file", {"path": "app.py"}, ctx)  # starts pylsp meanwhile
    edit = {"path": "app.py", "old_string": "+ name", "new_string": "+ nmae"}
    result = await registry.dispatch("edit_file", edit, ctx)
    assert not result.is_error
    assert result.text.splitlines() == [
        "edited app.py: replaced 1 occurrence (at line 2)",
        "pylsp reports 1 error in app.py:",
        "  line 2:23 error: undefined name 'nmae' (pyflakes)",
    ]
    fixed = {"path": "app.py", "old_string": "+ nmae", "new_string": "+ name"}
    again = await registry.dispatch("edit_file", fixed, ctx)
    assert again.text.endswith("\npylsp: no errors or warnings in app.py")
    assert (workspace / "app.py").read_text() == SOURCE
    assert "python · pylsp · running · pid " in lsp_report(ctx.language_servers)  # type: ignore[arg-type]


@ON_MODULE_LOOP
async def test_definition_and_references_answer(
    pylsp_workspace: tuple[Path, ToolContext],
) -> None:
    _workspace, ctx = pylsp_workspace
    registry = lsp_registry()
    at_call = {"path": "app.py", "line": 5, "column": 8}  # `greet` in print(greet('you'))
    definition = await registry.dispatch("lsp", {"operation": "definition", **at_call}, ctx)
    assert definition.text == "1 definition:\napp.py:1:5"
    references = await registry.dispatch("lsp", {"operation": "references", **at_call}, ctx)
    assert references.text == "2 references:\napp.py:1:5\napp.py:5:7"
    symbols = await registry.dispatch("lsp", {"operation": "symbols", "path": "app.py"}, ctx)
    assert symbols.text == "symbols in app.py:\nfunction greet (line 1)"


@ON_MODULE_LOOP
async def test_a_missing_server_costs_one_line_and_the_edit_succeeds(tmp_path: Path) -> None:
    servers = _servers(tmp_path, ("no-such-language-server",))
    ctx = ToolContext(tmp_path, language_servers=servers)
    registry = lsp_registry()
    first = await registry.dispatch("write_file", {"path": "a.py", "content": "x = 1\n"}, ctx)
    assert first.text.splitlines() == [
        "created a.py (1 lines, 6 bytes)",
        "pleat: python language server not available: no-such-language-server not found",
    ]
    second = await registry.dispatch("write_file", {"path": "a.py", "content": "x = 2\n"}, ctx)
    assert second.text == "overwrote a.py (1 lines, 6 bytes)"  # said once
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    lookup = await registry.dispatch("lsp", {"operation": "symbols", "path": "a.py"}, ctx)
    assert lookup.is_error and "no-such-language-server not found" in lookup.text


@ON_MODULE_LOOP
async def test_a_hanging_server_costs_one_line_and_the_edit_succeeds(tmp_path: Path) -> None:
    (tmp_path / "hang.py").write_text(HANGING)
    servers = _servers(tmp_path, (sys.executable, str(tmp_path / "hang.py")), start_seconds=0.5)
    ctx = ToolContext(tmp_path, language_servers=servers)
    registry = lsp_registry()
    first = await registry.dispatch("write_file", {"path": "a.py", "content": "x = 1\n"}, ctx)
    assert first.text.splitlines()[1:] == [
        f"pleat: python language server ({Path(sys.executable).name}) not available: "
        "no answer to initialize within 0.5 s"
    ]
    edit = {"path": "a.py", "old_string": "1", "new_string": "2"}
    second = await registry.dispatch("edit_file", edit, ctx)
    assert second.text == "edited a.py: replaced 1 occurrence (at line 1)"
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    assert "failed · no answer to initialize within 0.5 s" in lsp_report(servers)
    await servers.close()


@pytest.mark.slow
def test_a_headless_run_puts_the_configured_servers_diagnostics_in_the_edit_result(
    server: ScriptedServer, workspace: Path, pleat_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLEAT_LSP")
    pleat_home.mkdir(parents=True, exist_ok=True)
    (pleat_home / "config.toml").write_text(f'[lsp.python]\ncommand = ["{PYLSP}"]\n')
    (workspace / "app.py").write_text(SOURCE)
    edit = {"path": "app.py", "old_string": "print(greet", "new_string": "print(gret"}
    server.push(ToolCalls([("edit_file", edit)]), Text("done"))
    done = pleat(*headless_args(workspace, server, "-p", "break app.py"))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    tool = [m for m in server.requests[1].messages if m["role"] == "tool"][-1]
    assert "  line 5:7 error: undefined name 'gret' (pyflakes)" in str(tool["content"])
