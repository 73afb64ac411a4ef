"""ppi_py for the estimate tests, which hold our estimator equal to it."""

import pytest


@pytest.fixture(scope="session")
def ppi_py():
    """ppi_py, imported inside a fixture: its import silences warnings process-wide (pytest
    restores the filters after each test) and takes two seconds."""
    import ppi_py

    return ppi_py
