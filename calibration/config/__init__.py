"""The calibrated-configuration file: build, write, read, validate, and what a configuration costs.
May import `annotation`, scoring, stats, sweep and judges."""
