"""Model scores with confidence intervals (from 8 gold responses a model on): prediction-powered
inference (PPI++) on MURGAT-S and its parts per model, pairwise differences, gold used once
(cross-fitting), and planning more gold. May import `annotation`, scoring, stats, judges, sweep and
config."""
