"""JSON Schemas of BedsideBench cases, judge replies and run summaries."""
