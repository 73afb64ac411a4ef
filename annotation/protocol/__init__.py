"""The protocol's units: citations, sentences, records, derivation rules, identifiers, errors.
Pure and free of I/O; imports nothing else of `annotation` (every other subpackage stands on it)."""
