"""The documents the suite writes (summary, comparison, judges, review, estimate) as typed
models, and their JSON Schemas generated from them. JSON exists only at the file edge."""
