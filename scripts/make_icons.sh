#!/usr/bin/env bash
# Renders keepd's icon (keepd/data/icons/keepd.svg) to the PNG sizes keepd ships, once, with
# rsvg-convert (Debian: librsvg2-bin); the PNGs are committed, so builds need no renderer.
set -euo pipefail
cd "$(dirname "$0")/../keepd/data/icons"
for size in 16 32 48 64 128 256; do
    rsvg-convert --width "$size" --height "$size" keepd.svg --output "keepd-$size.png"
done
ls -l keepd-*.png
