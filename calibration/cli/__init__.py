"""`python -m calibration …`: score, sweep, judge, export. A thin layer; may import everything
in `calibration` and `annotation`."""
