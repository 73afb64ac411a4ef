"""Model scores with valid confidence intervals: prediction-powered inference (PPI++) on MURGAT-S
and its parts per model, pairwise differences, and planning more gold. May import `annotation`,
scoring, stats, judges, sweep and config."""
