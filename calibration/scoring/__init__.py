"""MURGAT-S: the three precision modes over evaluation records, and the reference code's metric-file
semantics. May import `annotation` only."""
