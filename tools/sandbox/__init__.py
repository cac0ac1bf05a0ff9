"""The sandbox commands run in: Landlock and a network namespace, applied in the child."""
