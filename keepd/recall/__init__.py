"""The recall store: the messages a cut, a prune or a compaction left out, kept searchable."""
