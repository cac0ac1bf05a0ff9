"""Exit codes of a headless run (`pleat -p`), shared by the run and its slash commands."""

# 0 answered; 1 the request failed (provider, model); 2 bad configuration or input (a command
# refused included: nothing to undo); 3 stopped at the spending cap (--max-budget-usd); 4 an
# /undo or /rewind kept files that changed since pleat wrote them (or could not restore some);
# 130 interrupted and 143 terminated (the shell's 128 + signal number for SIGINT and SIGTERM).
EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_BUDGET, EXIT_KEPT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
