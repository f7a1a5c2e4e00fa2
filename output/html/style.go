package html

// style is the page's style sheet: readable on screen, and on paper with
// whole table rows and plots that fit the page width.
const style = `:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #111;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 12px 16px 48px; }
h1 { font-size: 1.6em; margin: 0.4em 0; }
h2 { font-size: 1.3em; margin: 1.2em 0 0.4em; border-bottom: 2px solid #ccc; }
h3 { font-size: 1.1em; margin: 1em 0 0.4em; }
ul { margin: 0.4em 0; padding-left: 1.4em; }
ul.headline { list-style: none; padding: 0.6em 1em; background: #f4f6f8; border-left: 4px solid #4a6fa5; }
ul.headline li:first-child { font-weight: bold; }
ul.conclusion { list-style: none; padding: 0.6em 1em; background: #eef5ee; border-left: 4px solid #3c8d4f; font-size: 1.05em; }
ul.conclusion li:first-child { font-weight: bold; font-size: 1.1em; }
ul.warnings li { color: #8a4b00; }
p.note { margin: 0.2em 0 0.8em; color: #444; font-size: 0.92em; }
p.causal { font-style: italic; }
div.t { overflow-x: auto; margin: 1.2em 0 0.3em; }
table.t { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
table.t caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: 0.3em;
  width: max-content; max-width: calc(100vw - 64px); }
table.t th, table.t td { padding: 2px 6px; border-bottom: 1px solid #e2e2e2; text-align: left; vertical-align: top; white-space: nowrap; }
table.t th { background: #eef1f4; border-bottom: 1px solid #bbb; }
table.t .num { text-align: right; }
table.t td.long { white-space: normal; overflow-wrap: anywhere; min-width: 24em; }
table.t tbody tr:nth-child(even) { background: #fafafa; }
div.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 12px 24px; }
figure { margin: 0.5em 0; min-width: 0; }
figure.wide { grid-column: 1 / -1; }
svg.plot { display: block; width: 100%; height: auto; }
@media print {
  @page { margin: 12mm; }
  body { font-size: 9pt; }
  main { max-width: none; padding: 0; }
  div.t { overflow: visible; }
  table.t { font-size: 7.5pt; }
  table.t th, table.t td { white-space: normal; padding: 1px 4px; }
  table.t caption { max-width: none; }
  thead { display: table-header-group; }
  tr, figure, svg.plot, ul.headline, ul.conclusion { break-inside: avoid; page-break-inside: avoid; }
  h2, h3, caption { break-after: avoid; page-break-after: avoid; }
  div.figures { display: block; }
  svg.plot { max-width: 100% !important; }
}
`
