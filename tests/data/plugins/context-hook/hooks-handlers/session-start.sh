#!/usr/bin/env bash
# Adds the house rules to the session's context, in Claude Code's JSON answer for SessionStart.
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "House rules from the context-hook plugin: explain each change in one line."}}
JSON
