"""What a sweep would do and cost, before it is run (`bedside-bench sweep ... --estimate`):
`tokens` counts text as a provider would, `history` reads earlier logs, `plan` builds the
estimate, `document` is its typed form, `run` prints and keeps it."""
