"""The sandbox's policy: when it is active (the mode, and what the machine enforces), where a
confined command may write, its environment, and how it describes itself."""

from __future__ import annotations

import sys
from pathlib import Path

from tools.sandbox.launch import Spec
from tools.sandbox.policy import HERE, LAUNCHER_FILES, SHARED_MEMORY, Sandbox, Support

FULL = Support(abi=7, namespaces=True)


def test_active_only_where_the_kernel_enforces_the_mode(workspace: Path) -> None:
    assert Sandbox("workspace-write", workspace, support=FULL).active
    assert not Sandbox("off", workspace, support=FULL).active
    no_landlock = Sandbox("workspace-write", workspace, support=Support(0, True))
    assert not no_landlock.active and no_landlock.unenforced
    assert no_landlock.label == "workspace-write (not enforced)"
    # No namespaces but Landlock's TCP rules: TCP closed (UDP open, said in /sandbox).
    assert Sandbox("read-only", workspace, support=Support(4, False)).active
    # Neither: the network cannot be closed, so only a sandbox with it open is one.
    old = Support(3, False)
    assert not Sandbox("workspace-write", workspace, support=old).active
    assert Sandbox("workspace-write", workspace, network=True, support=old).active
    assert not Sandbox("off", workspace, support=Support(0, False)).unenforced


def test_where_a_confined_command_may_write(workspace: Path) -> None:
    box = Sandbox("workspace-write", workspace, support=FULL)
    assert box.writable() == [str(workspace.resolve()), str(box.temp), SHARED_MEMORY]
    assert box.temp.is_dir() and not box.temp.is_relative_to(workspace)
    read_only = Sandbox("read-only", workspace, support=FULL)
    assert read_only.writable() == [str(read_only.temp)]


def test_the_argv_runs_the_launcher_isolated_and_the_environment_points_at_the_temp(
    workspace: Path,
) -> None:
    box = Sandbox("workspace-write", workspace, support=FULL)
    argv = box.argv(["/bin/sh", "-c", "make"])
    # The interpreter's real file, and a private copy of the launcher no command may write.
    assert argv[:4] == [str(Path(sys.executable).resolve()), "-I", "-S", str(box.launcher)]
    copy = box.launcher.parent
    assert not copy.is_relative_to(workspace.resolve()) and str(copy) not in box.writable()
    for name in LAUNCHER_FILES:
        assert (copy / name).read_bytes() == (HERE / name).read_bytes()
    split = argv.index("--")
    assert argv[split:] == ["--", "/bin/sh", "-c", "make"]
    spec = Spec.parse(argv[4:split])
    assert (spec.network, spec.namespace, spec.pids, spec.abi) == (False, True, False, 7)
    assert spec.writable == box.writable()
    opened = box.argv(["x"], network=True)
    assert Spec.parse(opened[4 : opened.index("--")]).network is True
    env = box.environment({"PATH": "/usr/bin", "TMPDIR": "/tmp"})
    assert env == {"PATH": "/usr/bin"} | dict.fromkeys(("TMPDIR", "TMP", "TEMP"), str(box.temp))


def test_it_describes_itself_in_one_line(workspace: Path) -> None:
    assert Sandbox("workspace-write", workspace, support=FULL).describe() == (
        "sandbox workspace-write (no network); file system by Landlock (ABI 7), no Unix sockets; "
        "network closed "
        "by a network namespace and Landlock's TCP rules"
    )
    assert Sandbox("off", workspace, support=FULL).describe() == (
        "sandbox off: commands run with all of your rights"
    )
    assert (
        "only TCP closed" in Sandbox("read-only", workspace, support=Support(5, False)).describe()
    )


def test_pleats_own_files_in_the_workspace_leave_the_sandbox_unenforced(tmp_path: Path) -> None:
    """A command could rewrite what unconfined pleat runs next (its interpreter, its packages,
    its own code) when they lie in the workspace: the sandbox then says so and commands ask."""
    for workspace in (Path(sys.prefix), HERE.parents[1], Path(sys.executable).resolve().parent):
        box = Sandbox("workspace-write", workspace, support=FULL)
        assert box.exposed is not None and not box.active and box.unenforced
        assert "lie in the workspace" in box.describe()
        # Read-only writes nowhere there: still enforced.
        assert Sandbox("read-only", workspace, support=FULL).active
    assert Sandbox("workspace-write", tmp_path, support=FULL).exposed is None
