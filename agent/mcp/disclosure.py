"""What a server would run, every part of it, as the user is asked to approve it (and /mcp).

A project's .mcp.json is approved by what it shows, so nothing that runs may be left out or
disguised: the command and each argument (quoted as a shell would need, so an argument holding
spaces or a `;` is seen as one), the working directory, every environment variable and header
with its value, the URL, and `${VAR}` references as written. Line breaks and tabs inside a value
are shown as `\\n` and `\\t` (a value cannot fake a line of its own), and every other control
character as its escape (agent/terminal_text.py). The variables a project server is not given
(agent/mcp/settings.py withheld()) are said in one line.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from agent.mcp.settings import WITHHELD_WHY, ServerSettings
from agent.terminal_text import visible


def shown(text: str) -> str:
    """A value on one line, every control character visible."""
    return visible(text.replace("\n", "\\n").replace("\t", "\\t"))


def withheld_line(settings: ServerSettings, environ: Mapping[str, str]) -> str | None:
    """`${A}, ${B} not taken from your environment: ...`, or None."""
    names = settings.withheld(environ)
    if not names:
        return None
    return f"{', '.join(f'${{{name}}}' for name in names)} {WITHHELD_WHY}"


def server_lines(settings: ServerSettings, environ: Mapping[str, str]) -> list[str]:
    """The server's name and what it runs (or connects to), then one indented line per
    directory, variable and header, and the withheld variables' line."""
    name = shown(settings.name)
    if settings.command is not None:
        lines = [f"{name}  runs  {shown(shlex.join([settings.command, *settings.args]))}"]
        where = "the workspace" if settings.cwd is None else shown(settings.cwd)
        lines.append(f"  cwd: {where}")
    else:
        lines = [f"{name}  connects to  {shown(settings.url or '')}"]
    lines += [f"  env {shown(key)}={shown(value)}" for key, value in settings.env]
    lines += [f"  header {shown(key)}: {shown(value)}" for key, value in settings.headers]
    withheld = withheld_line(settings, environ)
    if withheld is not None:
        lines.append(f"  {withheld}")
    return lines
