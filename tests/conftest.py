"""Test-wide settings. Hypothesis's per-example deadline is off: these properties check
behaviour, not speed (speed lives in benchmarks/), and a loaded 2-core CI box must not flake."""

from hypothesis import settings

settings.register_profile("murgat", deadline=None)
settings.load_profile("murgat")
