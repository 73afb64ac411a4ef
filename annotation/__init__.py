"""MURGAT annotation: protocol units, citations, sentences, readers, store, media."""

__version__ = "0.1.0"
