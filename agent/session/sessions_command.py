"""`pleat sessions`: the saved sessions of a workspace (or of all), newest first."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def list_sessions_command(argv: list[str]) -> int:
    """`pleat sessions [--all]`: this workspace's sessions (all with --all), newest first."""
    parser = argparse.ArgumentParser(prog="pleat sessions", description="list saved sessions")
    parser.add_argument("--all", action="store_true", help="sessions of every workspace")
    parser.add_argument("--cwd", type=Path, help="workspace directory (default: the current one)")
    args = parser.parse_args(argv)
    from sessions.index_listing import listed_sessions
    from sessions.store import format_sessions

    workspace = None if args.all else (args.cwd or Path.cwd()).expanduser().resolve()
    found, notice = listed_sessions(workspace)
    if notice:
        print(f"pleat: {notice}", file=sys.stderr)
    print(format_sessions(found))
    return 0
