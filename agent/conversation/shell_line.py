"""A `!` line: a command the user typed, run as the model's run_command runs (the registry's path,
so the sandbox confines it and its output is bounded), refused by the deny rules as the model's
would be; its command and output join the conversation for the next request.

The user typed it, so nothing asks for approval (not the ask mode, not leaving plan mode): only a
deny rule refuses. Like Claude Code's bash mode, the command and its output reach the model as a
user message in the `<bash-input>` / `<bash-stdout>` form, sent with the next prompt.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.events import ErrorEvent
from agent.turn.loop import Agent
from sessions import messages as msg
from sessions.messages import Message

# The tool whose path a `!` line takes: the one the model runs commands with.
COMMAND_TOOL = "run_command"
# The meta key of the user message a `!` line adds: the command as typed (the transcript of a
# resumed session shows it as a command block, agent/conversation/transcript.py).
SHELL_KEY = "shell"
# The line before the command in what the model reads: who ran it, and why it is there.
CONTEXT_NOTE = "The user ran this command in the workspace themselves (pleat's `!` shell mode):"


@dataclass(frozen=True)
class ShellLineResult:
    """What a `!` line did: the output as the model reads it (bounded), whether it failed,
    whether it was refused before it ran (nothing joined the conversation then), and a journal
    problem when the record could not be written."""

    output: str
    is_error: bool = False
    refused: bool = False
    problem: ErrorEvent | None = None


def context_text(command: str, output: str) -> str:
    """The user message the model reads: the command, then its output (with the exit code)."""
    return (
        f"{CONTEXT_NOTE}\n<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"
    )


def shown_output(message: Message) -> str | None:
    """The output a `!` line's message carries (a resumed session shows it in its block), or
    None when the message is not one, or not as context_text wrote it."""
    command = message.meta.get(SHELL_KEY)
    if not isinstance(command, str):
        return None
    start, end = context_text(command, "\0").split("\0")
    text = message.content or ""
    if not (text.startswith(start) and text.endswith(end)) or len(text) < len(start + end):
        return None
    return text[len(start) : len(text) - len(end)]


async def run_shell_line(agent: Agent, command: str) -> ShellLineResult:
    """Run `command` in the workspace for the user (see the module); a cancellation (Esc) kills
    it as it kills the model's command, and nothing joins the conversation."""
    from agent.permissions.rules import denying_rule

    tool = agent.registry.get(COMMAND_TOOL)
    if tool is None:
        return ShellLineResult(f"{COMMAND_TOOL} is not available in this session", True, True)
    args = {"command": command}
    rule = denying_rule(agent.permissions.deny, tool, args, agent.context.workspace)
    if rule is not None:
        said = f'refused: denied by the rule "{rule}" (deny, in pleat\'s configuration)'
        return ShellLineResult(said, True, True)
    output = await agent.registry.dispatch(COMMAND_TOOL, args, agent.tool_context())
    message = msg.user(context_text(command, output.text), injected=True)
    message.meta.update({SHELL_KEY: command, "is_error": output.is_error})
    agent.add(message)
    return ShellLineResult(output.text, output.is_error, problem=await agent.safe_point())
