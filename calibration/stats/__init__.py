"""Statistics with no domain in them: correlations, bootstrap, tests, selection, label metrics.
Imports nothing of the project (numpy and scipy only)."""
