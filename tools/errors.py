"""The one error a tool raises: a failure the model reads as the call's result (light to import:
path and URL checks raise it before any tool runs, in permission rules)."""

from __future__ import annotations


class ToolError(Exception):
    """A failure the model should read as the tool's result (one clear line), never a crash."""
