"""The sandbox's policy: when it is active (the mode, and what the machine enforces), where a
confined command may write, its environment, and how it describes itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tools.sandbox.policy import LAUNCHER, SHARED_MEMORY, Sandbox, Support

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
    assert read_only.writable() == [str(read_only.temp), SHARED_MEMORY]


def test_the_argv_runs_the_launcher_isolated_and_the_environment_points_at_the_temp(
    workspace: Path,
) -> None:
    box = Sandbox("workspace-write", workspace, support=FULL)
    argv = box.argv(["/bin/sh", "-c", "make"])
    assert argv[:4] == [sys.executable, "-I", "-S", str(LAUNCHER)]
    assert argv[5:] == ["--", "/bin/sh", "-c", "make"]
    spec = json.loads(argv[4])
    assert spec["network"] is False and spec["namespace"] is True and spec["abi"] == 7
    assert json.loads(box.argv(["x"], network=True)[4])["network"] is True
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
