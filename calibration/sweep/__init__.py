"""Every judge configuration against the people: inputs from a project, the sweep, per-stage loss,
human comparison. May import `annotation`, `calibration.scoring` and `calibration.stats`."""
