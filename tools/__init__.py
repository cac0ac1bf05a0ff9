"""Workspace tools the model can call (files, search, shell) and the registry that runs them."""
