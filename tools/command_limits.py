"""How long a shell command may run (light to import: the configuration checks against it)."""

# Seconds a command may run by default: long enough for a typical test suite or build step.
DEFAULT_TIMEOUT_SECONDS = 120
# Upper bound a model may ask for: ten minutes covers slow full builds; the session is
# blocked meanwhile, so longer jobs belong in the background with output sent to a file.
MAX_TIMEOUT_SECONDS = 600
