"""The widgets of the chat screen, one per file."""
