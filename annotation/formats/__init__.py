"""Every reader and writer of the files researchers exchange (generation, metric, record files, CSV),
with located errors. May import `annotation.protocol` only."""
