"""What `/sandbox` says, in both front ends: the mode, what this machine enforces, where commands
may write, the network, and the commands let out of the sandbox this session."""

from __future__ import annotations

from agent.permissions.policy import Permissions
from sessions.short_text import quoted
from tools.sandbox.modes import SANDBOX_MODES
from tools.sandbox.policy import Sandbox


def sandbox_report(sandbox: Sandbox | None, permissions: Permissions) -> str:
    """Lines of plain text (what a command or a tool could show verbatim)."""
    if sandbox is None:
        return "sandbox off: commands run with all of your rights"
    lines = [sandbox.describe()]
    if sandbox.active:
        lines.append(f"commands may change: {', '.join(sandbox.writable())}")
        lines.append(
            "network: open to every command"
            if sandbox.network
            else "network: closed (sandbox_network = true opens it; so does an allow rule "
            "naming a command, for that command)"
        )
        lines.append("in ask mode, a command in the sandbox runs without asking")
        for command in sorted(permissions.outside_allowed):
            lines.append(f"allowed outside the sandbox this session: {quoted(command)}")
    modes = ", ".join(SANDBOX_MODES)
    lines.append(f"set with --sandbox, PLEAT_SANDBOX or sandbox in config.toml ({modes})")
    return "\n".join(lines)
