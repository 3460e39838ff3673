"""Making the cut: writing a session's own compact boundary to summarize, prune or clear it."""
