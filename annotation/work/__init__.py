"""Who is asked what next: the event vocabulary, labels → records, per-response sessions, queues,
stage-2 proposals. May import `annotation.protocol` and `annotation.store`."""
