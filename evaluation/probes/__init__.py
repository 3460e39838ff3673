"""Probes measured and left out of keepd: each a command, its figures in docs/figures.md.

`python -m evaluation.probes.NAME` runs one. A probe reads the evaluation's modules (the top of
`evaluation/`, what `python -m evaluation` runs) and keepd; no probe imports another probe, and
nothing outside this folder imports a probe.
"""
