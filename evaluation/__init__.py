"""Measures keepd against known breaks: stitched sessions, labelled sessions, unstitched ones.

It lives beside the `keepd` package, not in it: only developers run it (from a clone, with the
`eval` extra: nltk, ruptures, matplotlib), so a user's install carries none of it. Run it from the
repository's root: `python -m evaluation` (figures) or `python -m evaluation.full` (the page
`docs/EVALUATION.md`). It imports keepd; keepd never imports it.
"""
