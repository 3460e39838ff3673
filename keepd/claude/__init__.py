"""What Claude Code runs: the status line, the hooks and the MCP server, quick to start."""
