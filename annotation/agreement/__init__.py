"""How far people agree and what the gold is: α per stage, fact alignment, gold with provenance,
disputes and rulings, per-annotator statistics. May import protocol, formats, store and work."""
