"""MURGAT calibration: scoring, judges, sweeps, the calibrated-configuration file."""
