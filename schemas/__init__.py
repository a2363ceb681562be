"""JSON Schemas of BedsideBench cases, judge replies and the documents the package writes
(summaries, comparisons, judge comparisons, review scores, estimates); the documents' schemas
are generated from their models (`python -m bedside_bench.documents.schemas --write`)."""
