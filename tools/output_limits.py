"""The bounds of a tool's output budget (light to import: the configuration checks against them)."""

# The budget when no model window is known (a tool run outside an agent, e.g. in a test):
# compaction's default tool_output_max_tokens, so the same figure governs everywhere.
DEFAULT_OUTPUT_TOKENS = 25_000
# The smallest budget ever given: a tool needs room for a few lines and its note on how to go on.
MIN_OUTPUT_TOKENS = 200
