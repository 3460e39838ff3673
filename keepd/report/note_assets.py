"""The note's fixed style sheet, its table-sorting script, and the CSP that allows only them."""

from __future__ import annotations

import base64
import hashlib

STYLE = """
:root { color-scheme: light dark;
  --bg: #fbfaf7; --fg: #1f2328; --muted: #66707a; --rule: #dedbd3; --card: #f2efe8;
  --line: #2f5d8a; --band: rgba(47, 93, 138, 0.16); --pick: #c4420c;
  --g3: rgba(30, 140, 80, 0.26); --g2: rgba(30, 140, 80, 0.15); --g1: rgba(120, 120, 120, 0.10);
  --bar: #2f5d8a; --trip: #b8860b; --hilite: rgba(196, 66, 12, 0.10); }
@media (prefers-color-scheme: dark) { :root {
  --bg: #16181c; --fg: #e4e6e9; --muted: #9aa3ad; --rule: #2e333a; --card: #1e2227;
  --line: #83b4e6; --band: rgba(131, 180, 230, 0.18); --pick: #ff8f57;
  --g3: rgba(70, 200, 120, 0.24); --g2: rgba(70, 200, 120, 0.13); --g1: rgba(200, 200, 200, 0.08);
  --bar: #83b4e6; --trip: #e0b040; --hilite: rgba(255, 143, 87, 0.14); } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.35rem; margin: 0 0 4px; }
h2 { font-size: 1.05rem; margin: 32px 0 8px; border-bottom: 1px solid var(--rule);
  padding-bottom: 4px; }
p { margin: 6px 0; }
.muted, .meta { color: var(--muted); }
.key { color: var(--muted); font-size: 0.9em; max-width: 60em; }
.meta { margin: 0; font-size: 0.92rem; }
.meta span + span::before { content: " · "; }
.verdict { background: var(--card); border-left: 4px solid var(--pick); padding: 12px 16px;
  margin: 18px 0 6px; border-radius: 4px; }
.verdict.none { border-left-color: var(--muted); }
.keys { font: 600 0.95rem ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
q, .quote { overflow-wrap: anywhere; }
.glyph { white-space: nowrap; }
.pause { display: inline-block; width: 0.62em; height: 0.78em; vertical-align: -0.06em;
  border-left: 0.21em solid; border-right: 0.21em solid; overflow: hidden; text-indent: 2em;
  white-space: nowrap; }
.pct { display: inline-block; min-width: 3.2em; }
figure { margin: 8px 0 0; }
figcaption { color: var(--muted); font-size: 0.88rem; }
svg.curve { width: 100%; height: auto; display: block; }
svg text { fill: var(--muted); font: 11px system-ui, sans-serif; }
svg .zlabel { fill: var(--fg); font-size: 12px; }
svg .pausebar { fill: var(--fg); }
svg .picklabel { fill: var(--pick); font-weight: 600; font-size: 12px; }
.grid { stroke: var(--rule); stroke-width: 1; }
.axis { stroke: var(--muted); stroke-width: 1; }
.band { fill: var(--band); stroke: none; }
.line { fill: none; stroke: var(--line); stroke-width: 1.6; stroke-linejoin: round; }
.zone.g3 { fill: var(--g3); } .zone.g2 { fill: var(--g2); } .zone.g1 { fill: var(--g1); }
.hit { fill: transparent; }
.stop:hover .hit { fill: var(--hilite); }
.pt { fill: var(--line); }
.pt.zoned { fill: var(--fg); }
.pt.nosc, .pt.off { fill: var(--bg); stroke: var(--line); stroke-width: 1.5; }
.pt.pick { fill: var(--pick); stroke: var(--bg); stroke-width: 1.5; }
.pickline { stroke: var(--pick); stroke-width: 1.5; stroke-dasharray: 4 3; }
.tradeline { stroke: var(--muted); stroke-width: 1; stroke-dasharray: 3 3; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--rule);
  vertical-align: top; }
th { font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.pick td { background: var(--hilite); font-weight: 600; }
tr.out td { color: var(--muted); }
th button { font: inherit; color: inherit; background: none; border: 0; padding: 0;
  cursor: pointer; }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
svg.bar { width: 120px; height: 10px; vertical-align: middle; margin-right: 6px; }
svg.bar .track { fill: var(--rule); } svg.bar .fill { fill: var(--bar); }
svg.bar .fill.trip { fill: var(--trip); }
.trip { color: var(--trip); font-weight: 600; }
pre { background: var(--card); padding: 12px 14px; border-radius: 4px; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.86rem; }
footer { margin-top: 36px; color: var(--muted); font-size: 0.85rem; }
@media print {
  :root { --bg: #fff; --fg: #000; --muted: #444; --card: #f4f4f4; --rule: #bbb; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  tr, figure, pre, .verdict { break-inside: avoid; }
  th button::after { content: none !important; }
  .noprint { display: none; }
}
"""

SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  var body = table.tBodies[0];
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    if (!th.hasAttribute("data-sort")) { return; }
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.getAttribute("data-v");
        return v === null ? cell.textContent : parseFloat(v);
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var order = x < y ? -1 : x > y ? 1 : 0;
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _digest(source: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def content_security_policy() -> str:
    """Nothing remote, no plugins, no forms; only this module's style sheet and script."""
    return (
        "default-src 'none'; "
        f"style-src '{_digest(STYLE)}'; "
        f"script-src '{_digest(SCRIPT)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"  # data: for keepd's favicon
    )
