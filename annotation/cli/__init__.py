"""`python -m annotation …`: import, export, demo, agreement, gold, flags. A thin layer over
`annotation.project` and the subpackages; may import every other part of `annotation`."""
