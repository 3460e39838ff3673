"""Measures keepd against known breaks: stitched sessions, labelled sessions, unstitched ones."""
