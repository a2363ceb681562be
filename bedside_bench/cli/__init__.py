"""The `bedside-bench` command: its dispatcher and the subcommands that are not a workflow's
own (`data`, `review`)."""
