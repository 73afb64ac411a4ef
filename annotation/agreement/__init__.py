"""How far people agree and what the gold is: fact clusters (one fact however worded; the "Same fact?" questions a person settles), α per stage,
fact alignment, gold with provenance, disputes and rulings, per-annotator statistics. May import
protocol, formats, store and work."""
