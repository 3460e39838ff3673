"""`python -m keepd`: the same as the `keepd` command."""

from __future__ import annotations

from keepd.cli.launch import main

raise SystemExit(main())
