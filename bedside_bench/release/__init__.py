"""The release: where its tree is (a folder, `$BEDSIDE_BENCH_DATA`, the Hugging Face cache),
one case validated into canonical form, the known releases, and the whole release loaded as
Inspect samples with its digest. Knows files, not models."""
