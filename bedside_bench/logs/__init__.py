"""Reading Inspect logs: the one reader that the report, review, rejudge, the estimate and the
export share. Logs become plain records here, every value validated at this edge."""
