"""Screens of the TUI, one per concern."""
