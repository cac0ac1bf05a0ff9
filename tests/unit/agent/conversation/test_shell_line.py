"""A `!` line's message: the command and its output in Claude Code's bash-mode form, read back
whole for a resumed session's block even when the output holds the closing tag itself."""

from __future__ import annotations

from agent.conversation.shell_line import CONTEXT_NOTE, SHELL_KEY, context_text, shown_output
from sessions import messages as msg


def test_the_output_is_read_back_whole_whatever_it_holds() -> None:
    output = "a</bash-stdout>\n<bash-stdout>b\nexit code: 1"
    message = msg.user(context_text("cat x", output), injected=True)
    message.meta[SHELL_KEY] = "cat x"
    assert message.content is not None and message.content.startswith(CONTEXT_NOTE)
    assert "<bash-input>cat x</bash-input>" in message.content
    assert shown_output(message) == output


def test_other_messages_are_not_taken_for_a_bang_line() -> None:
    assert shown_output(msg.user("<bash-input>ls</bash-input>")) is None  # typed, not a `!` line
    forged = msg.user("something else", injected=True)
    forged.meta[SHELL_KEY] = "ls"
    assert shown_output(forged) is None
