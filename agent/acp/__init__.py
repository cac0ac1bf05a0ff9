"""`pleat acp`: pleat as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains,
Neovim, Emacs, toad), on the official SDK and the same session runtime as the terminal UI."""
