"""The sandbox's modes (light to import: the configuration checks them before the first frame)."""

from __future__ import annotations

from typing import Literal, get_args

# Commands change files in the workspace (and a private temporary directory) and reach no
# network; only in that temporary directory; or anywhere, as the user.
SandboxMode = Literal["workspace-write", "read-only", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
# A test setting: with this variable set to 1 the machine is taken to have no Landlock (what a
# kernel without it looks like), so the fallback (asking before each command) can be shown.
NO_LANDLOCK_VARIABLE = "PLEAT_SANDBOX_TEST_NO_LANDLOCK"
