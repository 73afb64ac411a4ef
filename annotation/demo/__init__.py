"""The demo project: synthetic videos, template responses, simulated annotators and judges.
May import every other part of `annotation`."""
