"""From judge decisions to numbers: case scores (protocol section 3), bootstrap statistics
(section 4) and agreement as pure functions, and the Inspect scorer and metrics around them."""
