"""tui package."""
