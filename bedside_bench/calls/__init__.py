"""Model calls: one call and what the provider really received, Inspect's cache for our calls,
the paid calls kept for a retry of their run, the credentials checked before any call, and what
an answer's output says of how it ended."""
