"""Confinement under attack: symlinks swapped in after the check; no command without approval."""

# Elsewhere: traversal, absolute paths and symlinks leading out are
# tests/unit/tools/test_tools_paths.py; the reader tool's confinement to its session's archive is
# tests/unit/tools/test_tools_archive_reader.py (test_path_like_chunks_are_refused,
# test_there_is_no_path_argument).

from __future__ import annotations

import ast
import ctypes
import dataclasses
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tools.file_sources
import tools.git_process
import tools.list_dir
import tools.read_file
import tools.search
import tools.visible_files
from agent.assemble import build_agent
from agent.config import Config
from agent.permissions.policy import ApprovalRequest, Decision
from sessions.store import Session
from tests.support.constants import TEST_API_KEY, TEST_MODEL
from tests.support.scripted_server import ScriptedServer, Text, ToolCalls
from tools.base import ToolContext, ToolOutput
from tools.git_snapshots import GitSnapshotError, GitSnapshots
from tools.registry import ToolRegistry, default_registry

# The content of the files outside the workspace: it must never appear in a tool's output.
SECRET = "OUTSIDE SECRET"
# A file name that exists only outside: it must never be listed.
OUTSIDE_ONLY = "outside-only.txt"
# The tools package on disk: spawns with a frame from here count as started by a tool.
TOOLS_DIR = Path(tools.read_file.__file__).parent


@dataclasses.dataclass
class Layout:
    """A workspace with a file and a subdirectory, and a directory outside it."""

    workspace: Path
    outside: Path

    def snapshot_outside(self) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(self.outside.iterdir())}


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "sub").mkdir(parents=True)
    outside.mkdir()
    (workspace / "a.txt").write_text("inside a\n")
    (workspace / "sub" / "a.txt").write_text("inside sub\n")
    (outside / "a.txt").write_text(f"{SECRET}\n")
    (outside / OUTSIDE_ONLY).write_text(f"{SECRET}\n")
    return Layout(workspace, outside)


def swap_file(layout: Layout) -> None:
    """a.txt becomes a symlink to the outside file."""
    link = layout.workspace / "a.txt.tmp"
    link.symlink_to(layout.outside / "a.txt")
    os.replace(link, layout.workspace / "a.txt")


def swap_parent(layout: Layout) -> None:
    """sub/ becomes a symlink to the outside directory."""
    os.rename(layout.workspace / "sub", layout.workspace / "sub.real")
    (layout.workspace / "sub").symlink_to(layout.outside, target_is_directory=True)


def after_first_call(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, swap: Callable[[], None]
) -> None:
    """Make `module.name` run the swap right after its first call returns: between the
    check and the use, deterministically."""
    real = getattr(module, name)
    done: list[bool] = []

    def hooked(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if not done:
            done.append(True)
            swap()
        return result

    monkeypatch.setattr(module, name, hooked)


async def call(
    tool_name: str, args: dict[str, Any], workspace: Path, *, added: bool = False
) -> ToolOutput:
    """The tool called on `workspace`, or (`added`) on it as a directory the user added beside
    another workspace (tools/base.py extra_roots), its paths then given absolute."""
    if not added:
        return await default_registry().dispatch(tool_name, args, ToolContext(workspace))
    ctx, absolute = added_context(workspace, args)
    return await default_registry().dispatch(tool_name, absolute, ctx)


def added_context(workspace: Path, args: dict[str, Any]) -> tuple[ToolContext, dict[str, Any]]:
    """A context whose workspace is elsewhere and `workspace` an added directory, and `args`
    with the path made absolute in it."""
    elsewhere = workspace.parent / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    root = workspace.resolve()
    return ToolContext(elsewhere, extra_roots=(root,)), {**args, "path": str(root / args["path"])}


# (tool, arguments, module whose path check gets the hook, which swap): write_file and edit_file
# check their paths in tools/file_sources.py
SWAPS = [
    ("read_file", {"path": "a.txt"}, tools.read_file, swap_file),
    ("read_file", {"path": "sub/a.txt"}, tools.read_file, swap_parent),
    ("list_dir", {"path": "sub"}, tools.list_dir, swap_parent),
    ("edit_file", {"path": "a.txt", "old_string": "SECRET", "new_string": "x"}, tools.file_sources,
     swap_file),
    ("edit_file", {"path": "sub/a.txt", "old_string": "SECRET", "new_string": "x"},
     tools.file_sources, swap_parent),
    ("write_file", {"path": "a.txt", "content": "pwned"}, tools.file_sources, swap_file),
    ("write_file", {"path": "sub/a.txt", "content": "pwned"}, tools.file_sources, swap_parent),
    ("write_file", {"path": "sub/new/deep.txt", "content": "pwned"}, tools.file_sources,
     swap_parent),
]  # fmt: skip


@pytest.mark.parametrize("added", [False, True], ids=["workspace", "added directory"])
@pytest.mark.parametrize(("tool", "args", "module", "swap"), SWAPS)
async def test_a_symlink_swapped_in_after_the_check_is_refused(
    layout: Layout,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    args: dict[str, Any],
    module: Any,
    swap: Callable[[Layout], None],
    added: bool,
) -> None:
    before = layout.snapshot_outside()
    after_first_call(monkeypatch, module, "resolve_in_roots", lambda: swap(layout))
    output = await call(tool, args, layout.workspace, added=added)
    assert output.is_error, output.text
    assert "symbolic link" in output.text or "outside the workspace" in output.text
    assert SECRET not in output.text
    assert layout.snapshot_outside() == before, "something was written outside"


@pytest.mark.parametrize("swap", [swap_file, swap_parent])
async def test_grep_never_reads_a_file_swapped_out_after_the_listing(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, swap: Callable[[Layout], None]
) -> None:
    after_first_call(monkeypatch, tools.search, "visible_files", lambda: swap(layout))
    output = await call("grep", {"pattern": "SECRET|inside"}, layout.workspace)
    assert SECRET not in output.text


async def test_glob_never_walks_into_a_directory_swapped_out_during_the_walk(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The walk lists the root first; sub/ becomes a link leading out before it is listed.
    after_first_call(
        monkeypatch, tools.visible_files, "_list_directory", lambda: swap_parent(layout)
    )
    output = await call("glob", {"pattern": "**/*"}, layout.workspace)
    assert OUTSIDE_ONLY not in output.text and "a.txt" in output.text


# -- a race: another process flips the symlinks while the tools run --------------------------

# Flips at most: a bound on the flipping thread should the tool loop hang (a few seconds).
MAX_FLIPS = 200_000
# Rounds of every file tool against the flipping paths: 400 calls, about a second.
RACE_ROUNDS = 50
# renameat2's flag that swaps two names atomically (linux/fs.h), and "relative to the cwd".
RENAME_EXCHANGE = 2
AT_FDCWD = -100


def exchanger() -> Callable[[Path, Path], None] | None:
    """An atomic swap of two names (Linux renameat2), or None where it is unavailable."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return None

    def exchange(a: Path, b: Path) -> None:
        if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")

    return exchange


@pytest.fixture
def flipping(layout: Layout) -> Iterator[list[int]]:
    """A thread swapping sub/ and a.txt with symlinks leading out, as fast as it can."""
    exchange = exchanger()
    ws = layout.workspace
    (ws / "sub.link").symlink_to(layout.outside, target_is_directory=True)
    (ws / "a.link").symlink_to(layout.outside / "a.txt")
    try:
        assert exchange is not None
        exchange(ws / "a.txt", ws / "a.link")
        exchange(ws / "a.txt", ws / "a.link")
    except (AssertionError, OSError):
        pytest.skip("no atomic rename exchange on this platform or filesystem")
    stop, flips = threading.Event(), [0]

    def flip() -> None:
        while not stop.is_set() and flips[0] < MAX_FLIPS:
            exchange(ws / "sub", ws / "sub.link")
            exchange(ws / "a.txt", ws / "a.link")
            flips[0] += 1

    thread = threading.Thread(target=flip, daemon=True)
    thread.start()
    try:
        yield flips
    finally:
        stop.set()
        thread.join()


@pytest.mark.slow  # a 400-call race
async def test_tools_racing_a_symlink_flipper_never_leave_the_workspace(
    layout: Layout, flipping: list[int]
) -> None:
    before = layout.snapshot_outside()
    registry, ctx = default_registry(), ToolContext(layout.workspace)
    outputs: list[str] = []
    for round_number in range(RACE_ROUNDS):
        calls = [
            ("read_file", {"path": "a.txt"}),
            ("read_file", {"path": "sub/a.txt"}),
            ("list_dir", {"path": "sub"}),
            ("grep", {"pattern": "SECRET|inside"}),
            ("glob", {"pattern": "**/*.txt"}),
            ("write_file", {"path": f"sub/new-{round_number}.txt", "content": "mine"}),
            ("write_file", {"path": "a.txt", "content": "inside a\n"}),
            ("edit_file", {"path": "sub/a.txt", "old_string": "sub", "new_string": "sub"}),
        ]
        for name, args in calls:
            outputs.append((await registry.dispatch(name, args, ctx)).text)
    assert flipping[0] > 0
    assert not [text for text in outputs if SECRET in text or OUTSIDE_ONLY in text]
    assert layout.snapshot_outside() == before, "something was written outside"


# -- run_command stays behind approval, whatever the other tools are asked ------------------

# Every process a tool started in this test process while RECORDING is set: (event, argv).
SPAWNED: list[tuple[str, Any]] = []
RECORDING = threading.Event()
SPAWN_EVENTS = frozenset(
    {"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork",
     "os.forkpty", "pty.spawn"}
)  # fmt: skip


def _started_by_a_tool() -> bool:
    """Whether a frame of a tools/ module is on the stack (libraries the agent itself uses may
    start processes of their own: platform.processor() runs `uname -p`)."""
    frame = sys._getframe(2)
    while frame is not None:
        if Path(frame.f_code.co_filename).parent == TOOLS_DIR:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if RECORDING.is_set() and event in SPAWN_EVENTS and _started_by_a_tool():
        SPAWNED.append((event, args[1] if event == "subprocess.Popen" else args))


sys.addaudithook(_audit)  # audit hooks cannot be removed: it records only while RECORDING


def crafted_calls(marker: Path) -> list[ToolCalls]:
    """A model that plants a script, asks to run it (refused), then tries every other tool."""
    run = "sh evil.sh"
    fsmonitor = f'[core]\n\tfsmonitor = "{run}; echo"\n'
    return [
        ToolCalls([("write_file", {"path": "evil.sh", "content": f"touch {marker}\n"})]),
        ToolCalls([("write_file", {"path": ".git/config", "content": fsmonitor})]),
        ToolCalls([("run_command", {"command": run})]),
        ToolCalls(
            [
                ("glob", {"pattern": "**/*"}),
                ("glob", {"pattern": f"$({run})", "path": "."}),
                ("grep", {"pattern": f"$({run})", "path": "evil.sh", "glob": f"`{run}`"}),
                ("grep", {"pattern": "touch", "path": f"evil.sh; {run}"}),
                ("read_file", {"path": f"evil.sh; {run}"}),
                ("read_file", {"path": f"|{run}"}),
                ("list_dir", {"path": f"`{run}`"}),
                ("edit_file", {"path": "evil.sh", "old_string": "touch", "new_string": "touch "}),
                ("read_archive", {"action": "search", "query": f"$({run})"}),
                ("run_command", f'{{"command": "{run}", "timeout": 1}}'),
                ("shell", {"command": run}),
            ]
        ),
        Text("done"),
    ]


def git_init(directory: Path) -> None:
    """A git repository (a plain function: async tests keep blocking calls out)."""
    subprocess.run(["git", "init", "-q", str(directory)], check=True)


@pytest.mark.slow
async def test_no_tool_but_an_approved_run_command_starts_a_process(
    server: ScriptedServer, workspace: Path
) -> None:
    git_init(workspace)  # glob and grep list files with git here
    marker = workspace.parent / "PWNED"
    asked: list[str] = []

    async def refuse_commands(request: ApprovalRequest) -> Decision:
        asked.append(request.tool)
        return Decision(request.tool != "run_command", "commands are not allowed")

    server.push(*crafted_calls(marker))
    # Without the sandbox, where a command asks (a sandboxed one runs: tests/e2e/test_sandbox.py).
    config = Config(model=TEST_MODEL, api_base=server.base_url, api_key=TEST_API_KEY, sandbox="off")
    session = Session.create(workspace, model=TEST_MODEL)
    agent = build_agent(config, workspace, refuse_commands, session=session)
    SPAWNED.clear()
    RECORDING.set()
    try:
        events = [e async for e in agent.run_turn("set things up")]
    finally:
        RECORDING.clear()
        session.close()
    assert events[-1].__class__.__name__ == "TurnDone"
    assert asked.count("run_command") == 2 and "write_file" in asked
    assert (workspace / "evil.sh").exists() and not marker.exists(), "the script ran"
    for event, argv in SPAWNED:  # only the file listing's git, with hooks disabled
        assert event == "subprocess.Popen", (event, argv)
        safety = ["git", *tools.git_process.GIT_SAFETY_CONFIG]
        assert list(argv[: len(safety)]) == safety, argv
        assert argv[len(safety)] in ("ls-files", "check-ignore"), argv


# Tool modules allowed to start processes, and what with: the shell tool (behind approval),
# and git with a fixed argv, no shell (tools/git_process.py runs it: the file listing's
# read-only `git ls-files` / `git check-ignore`, the checkpoints' snapshots).
SPAWNING_MODULES = {
    "shell.py": "asyncio.create_subprocess_exec of /bin/sh -c (through the sandbox's launcher)",
    "git_process.py": "git",
    "visible_files.py": "git",  # imports subprocess for the result's type only
}
# Names whose use means starting a process.
SPAWN_NAMES = frozenset(
    {"subprocess", "pty", "pexpect", "multiprocessing", "system", "popen", "fork", "forkpty",
     "posix_spawn", "posix_spawnp", "create_subprocess_exec", "create_subprocess_shell",
     "startfile", "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe",
     "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe"}
)  # fmt: skip


def spawning_names(source: str) -> set[str]:
    """Process-starting modules imported and functions referenced in a module's source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names} & SPAWN_NAMES
        elif isinstance(node, ast.ImportFrom):
            found |= (
                {(node.module or "").split(".")[0]} | {a.name for a in node.names}
            ) & SPAWN_NAMES
        elif isinstance(node, ast.Attribute) and node.attr in SPAWN_NAMES:
            found.add(node.attr)
    return found


def test_only_the_allow_listed_tool_modules_can_start_processes() -> None:
    modules = sorted(TOOLS_DIR.glob("*.py"))
    assert {"shell.py", "git_process.py", "read_file.py"} <= {m.name for m in modules}
    for module in modules:
        names = spawning_names(module.read_text())
        if module.name not in SPAWNING_MODULES:
            assert not names, f"tools/{module.name} can start processes: {sorted(names)}"
    shell = (TOOLS_DIR / "shell.py").read_text()
    assert "create_subprocess_exec" in spawning_names(shell)
    # git_process: one subprocess.Popen (killable when a search stops), argv a list starting
    # with "git", never shell=True; visible_files starts nothing itself.
    assert "Popen" not in (TOOLS_DIR / "visible_files.py").read_text()
    tree = ast.parse((TOOLS_DIR / "git_process.py").read_text())
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "subprocess"
        and n.func.attr in {"Popen", "run", "call", "check_call", "check_output"}
    ]
    assert len(calls) == 1 and calls[0].func.attr == "Popen"  # type: ignore[attr-defined]
    argv = calls[0].args[0]
    assert isinstance(argv, ast.List) and ast.literal_eval(argv.elts[0]) == "git"
    assert not [k for k in calls[0].keywords if k.arg in ("shell", "executable")]


def test_the_tools_registry_has_no_other_way_to_run_commands() -> None:
    """Every registered tool but run_command is read-only, a file write, or web_fetch (which
    reads a page off the network and writes nothing here): none runs code."""
    registry: ToolRegistry = default_registry()
    not_read_only = {name for name in registry.names() if not registry.get(name).read_only}  # type: ignore[union-attr]
    assert not_read_only == {"edit_file", "write_file", "run_command", "web_fetch"}
    assert registry.get("web_fetch").writes({"url": "https://x.org/"}) == ()  # type: ignore[union-attr]


def test_the_git_listing_runs_no_configured_command(layout: Layout) -> None:
    """core.fsmonitor names a command `git ls-files` runs: a .git/config from a write_file (or
    a downloaded directory) ran it through glob and grep, with no approval (found here)."""
    workspace = layout.workspace
    git_init(workspace)
    marker = layout.outside / "PWNED"
    with (workspace / ".git" / "config").open("a") as config:
        config.write(f'[core]\n\tfsmonitor = "touch {marker}; echo"\n')
    root = workspace.resolve()
    names = tools.visible_files.visible_files(root, root)
    assert "a.txt" in names and not marker.exists()


def test_pleats_own_git_fetches_nothing_a_workspace_config_names(layout: Layout) -> None:
    """A command confined to the workspace may rewrite .git/config: made a partial clone whose
    missing objects are fetched over ssh, with core.sshCommand naming any program, the
    checkpoint's next snapshot (pleat's git, outside the sandbox) ran that program with the
    user's rights (found by the sandbox's review). No transport is allowed to pleat's git."""
    workspace = layout.workspace
    git_init(workspace)
    marker = layout.outside / "PWNED"
    scratch = layout.outside / "scratch"
    scratch.mkdir()
    snapshots = GitSnapshots(workspace, "refs/pleat/checkpoints/test", scratch)
    first = snapshots.take().commit
    assert first is not None
    fetch = f"sh -c 'touch {marker}; exit 1' ssh"
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", "ssh://example.invalid/repo"),
        ("remote.origin.promisor", "true"),
        ("core.sshCommand", fetch),
    ):
        subprocess.run(["git", "config", key, value], cwd=workspace, check=True)
    (workspace / ".git" / "objects" / first[:2] / first[2:]).unlink()  # the parent to fetch
    (workspace / "a.txt").write_text("changed\n")
    with pytest.raises(GitSnapshotError):  # the parent cannot be had: no snapshot, no fetch
        snapshots.take()
    root = workspace.resolve()
    assert "a.txt" in tools.visible_files.visible_files(root, root)
    assert not marker.exists()
