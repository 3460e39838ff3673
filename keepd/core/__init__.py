"""The pure core: bytes to entries, entries to a branch, a branch to a graded curve."""
