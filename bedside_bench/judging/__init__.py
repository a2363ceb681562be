"""The judge (protocol section 2): its user message and strict reply parsing, the grading
variants, one judge call with re-asks, repeated passes combined, and a judge that failed."""
