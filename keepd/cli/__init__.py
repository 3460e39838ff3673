"""The `keepd` command line: one module per command group, a fast path for what Claude Code runs."""
