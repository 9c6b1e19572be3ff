/**
 * The console's one stylesheet, served as a file (the pages' Content-Security-Policy allows no
 * inline style). Colours keep text at a contrast of at least 4.5:1; below 640 px tables turn into
 * stacked cards so nothing is wider than a phone.
 */
export const CONSOLE_STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --link: #0a5cc2; --focus: #0969da; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip-link { position: absolute; left: .5rem; top: -3rem; background: #fff; padding: .5rem .75rem; border-radius: 6px; z-index: 10; }
.skip-link:focus { top: .5rem; }

.top { background: #24292f; color: #fff; }
.top-inner { max-width: 80rem; margin: 0 auto; padding: .5rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; }
.brand { font-weight: 700; color: #fff; text-decoration: none; margin-right: auto; }
.workspace { color: #d0d7de; font-size: .9rem; overflow-wrap: anywhere; }
.top form { margin: 0; }
.top button { background: transparent; color: #fff; border: 1px solid #8c959f; }
.top button:hover { background: #32383f; }
.main-nav { background: #fff; border-bottom: 1px solid var(--line); }
.main-nav ul { max-width: 80rem; margin: 0 auto; padding: 0 .5rem; list-style: none; display: flex; flex-wrap: wrap; }
.main-nav a { display: block; padding: .6rem .6rem; color: var(--fg); text-decoration: none; border-bottom: 3px solid transparent; }
.main-nav a:hover { border-bottom-color: var(--line); }
.main-nav a[aria-current="page"] { border-bottom-color: #fd8c73; font-weight: 600; }
.main-nav .new-job { color: var(--link); font-weight: 600; }

main { max-width: 80rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 .75rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
p { margin: .5rem 0; }
.muted, .rel { color: var(--muted); }
.rel { font-size: .9em; white-space: nowrap; }
.page-head { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; }
.page-head .end { margin-left: auto; }
.head-actions { display: flex; flex-wrap: wrap; gap: .5rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 1rem; margin: 0 0 1rem; }
.card > h2:first-child { margin-top: 0; }

.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .5rem 0; }
.actions form { margin: 0; }
button, .button { display: inline-flex; align-items: center; justify-content: center; min-height: 2.25rem; padding: .35rem .85rem; font: inherit; font-weight: 600; border-radius: 6px; border: 1px solid var(--line); background: #f6f8fa; color: var(--fg); cursor: pointer; text-decoration: none; }
button, .button { white-space: nowrap; overflow-wrap: normal; }
table.list td.actions-cell .actions { margin: 0; }
button:hover, .button:hover { background: #eaeef2; }
button:disabled { cursor: default; color: #6e7781; background: #f6f8fa; }
.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
.primary:hover { background: #1a7f37; }
.danger { color: #a40e26; }
.danger:hover { background: #a40e26; border-color: #a40e26; color: #fff; }
.small { min-height: 1.9rem; padding: .15rem .6rem; font-size: .9rem; }

.notice { background: #dafbe1; border: 1px solid #4ac26b; color: #0f5323; border-radius: 6px; padding: .6rem .8rem; margin: 0 0 1rem; }
.note { background: #ddf4ff; border: 1px solid #54aeff; color: #0a3069; border-radius: 6px; padding: .6rem .8rem; margin: 0 0 1rem; }
.note p { margin: .3rem 0 0; }
.alert { background: #ffebe9; border: 1px solid #ff8182; color: #82071e; border-radius: 6px; padding: .6rem .8rem; margin: 0 0 1rem; }
.alert ul { margin: .25rem 0 0; padding-left: 1.25rem; }
.alert a { color: #82071e; }

.chips { display: flex; flex-wrap: wrap; gap: .25rem; list-style: none; margin: .25rem 0 0; padding: 0; }
.chip { display: inline-block; padding: 0 .5rem; border: 1px solid #8c959f; border-radius: 999px; font-size: .8rem; color: #24292f; background: #f6f8fa; text-decoration: none; }
.chip:hover, .chip:focus { background: #eaeef2; text-decoration: underline; }
.tag-actions { align-items: center; margin: 0 0 1rem; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px; font-size: .85rem; font-weight: 600; background: #eaeef2; color: #424a53; white-space: nowrap; }
.s-succeeded, .s-active, .s-up, .s-sent, .s-approved, .s-success { background: #dafbe1; color: #116329; }
.s-failed, .s-down, .s-rejected, .s-expired, .s-fail { background: #ffebe9; color: #a40e26; }
.s-running, .s-processing, .s-start { background: #ddf4ff; color: #0550ae; }
.s-waiting, .s-paused, .s-pending { background: #fff8c5; color: #6c4400; }
.s-completed, .s-draft, .s-new, .s-queued { background: #eaeef2; color: #424a53; }

.strip { display: inline-flex; gap: 2px; vertical-align: middle; }
.strip span { width: 7px; height: 18px; border-radius: 2px; background: #d0d7de; }
.strip .o-succeeded { background: #2da44e; }
.strip .o-failed { background: #cf222e; }
.strip .o-running, .strip .o-queued { background: #54aeff; }
.strip .o-waiting { background: #d4a72c; }
ul.windows { list-style: none; display: flex; gap: .75rem; margin: 0 0 .75rem; padding: 0; }
ul.windows a[aria-current] { font-weight: 700; color: var(--fg); text-decoration: none; border-bottom: 2px solid var(--focus); }
figure.stats { margin: .5rem 0; min-width: 0; }
.stats-body { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1.5rem; }
@media (min-width: 60rem) { .stats-body { grid-template-columns: minmax(16rem, 1fr) minmax(0, 2fr); } }
svg.stats-chart { display: block; width: 100%; height: 8rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
svg.stats-chart .axis { stroke: #8c959f; stroke-width: 1; }
svg.stats-chart .p50 { stroke: #0969da; stroke-width: 2; fill: none; }
svg.stats-chart .p95 { stroke: #8250df; stroke-width: 2; stroke-dasharray: 4 3; fill: none; }
svg.stats-chart .ok { fill: #2da44e; }
svg.stats-chart .bad { fill: #cf222e; }
ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0 0 .35rem; padding: 0; font-size: .88rem; color: var(--muted); }
ul.legend .key { display: inline-block; width: 1rem; height: .6rem; margin-right: .35rem; border-radius: 2px; vertical-align: middle; }
ul.legend .key.p50 { background: #0969da; height: 3px; }
ul.legend .key.p95 { height: 0; border-top: 3px dashed #8250df; }
ul.legend .key.ok { background: #2da44e; }
ul.legend .key.bad { background: #cf222e; }
.axis-ends { display: flex; justify-content: space-between; font-size: .85rem; color: var(--muted); margin-top: .2rem; }
details.stats-figures { margin-top: .5rem; }

ol.fire-strip { list-style: none; margin: .5rem 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: .35rem; }
ol.fire-strip li { display: flex; flex-direction: column; min-width: 8.5rem; padding: .3rem .5rem; border-radius: 6px; border-left: 5px solid #8c959f; background: #f6f8fa; font-size: .85rem; }
ol.fire-strip li > a, ol.fire-strip li > span:first-child { font-weight: 600; }
ol.fire-strip .fire-time, ol.fire-strip .fire-note { color: var(--muted); }
ol.fire-strip .f-fired { border-left-color: #2da44e; }
ol.fire-strip .f-late { border-left-color: #d4a72c; }
ol.fire-strip .f-caught_up { border-left-color: #0969da; }
ol.fire-strip .f-missed { border-left-color: #cf222e; background: #ffebe9; }
ol.fire-strip .f-skipped { border-left-color: #6e7781; }
ol.fire-strip .f-pending { border-left-color: #54aeff; }

table.list { width: 100%; margin: 0 0 1rem; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; }
table.list th, table.list td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid #eaeef2; vertical-align: top; overflow-wrap: break-word; }
table.list td a, table.list td code, table.list td .mono { overflow-wrap: anywhere; }
table.list th { font-size: .85rem; color: var(--muted); font-weight: 600; background: #f6f8fa; }
table.list tr:last-child td { border-bottom: 0; }
table.list td.actions-cell { white-space: nowrap; }
.empty { background: #fff; border: 1px dashed var(--line); border-radius: 8px; padding: 1.25rem; color: var(--muted); }

dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ol.fires { margin: .25rem 0 0; padding-left: 1.5rem; }
ol.steps { margin: 0; padding-left: 1.25rem; }
ol.steps > li { margin: 0 0 1.25rem; }
ul.plain { list-style: none; margin: 0 0 .75rem; padding: 0; }
pre.preview { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: .75rem; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; overflow-y: auto; margin: .25rem 0; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 1rem; border-left: 3px solid var(--line); }
ol.timeline > li { position: relative; margin: 0 0 .75rem; padding-left: .5rem; }
ol.timeline > li::before { content: ""; position: absolute; left: -1.45rem; top: .4rem; width: .75rem; height: .75rem; border-radius: 50%; background: #8c959f; border: 2px solid #fff; }
ol.timeline > li.ok::before { background: #2da44e; }
ol.timeline > li.bad::before { background: #cf222e; }

form.stacked { max-width: 48rem; }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: .5rem 1rem 1rem; margin: 0 0 1rem; background: #fff; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.field { margin: .75rem 0 0; }
.field label, .label { display: block; font-weight: 600; margin-bottom: .2rem; }
.hint { display: block; color: var(--muted); font-size: .88rem; margin-top: .15rem; }
.field-error { display: block; color: #a40e26; font-size: .9rem; font-weight: 600; margin-top: .2rem; }
input[type=text], input[type=url], input[type=number], input[type=password], input[type=search], select, textarea {
  width: 100%; max-width: 100%; font: inherit; padding: .4rem .55rem; border: 1px solid #8c959f; border-radius: 6px; background: #fff; color: var(--fg); }
textarea { min-height: 5rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88rem; }
textarea.tall { min-height: 12rem; }
ol.step-list { list-style: none; margin: .75rem 0 0; padding: 0; }
fieldset.step { background: #f6f8fa; margin: 0 0 .75rem; }
fieldset.step legend { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 0 .5rem; }
.step-actions { margin: .25rem 0 0; }
details.more, details.steps-json { margin: .75rem 0 0; }
details > summary { cursor: pointer; font-weight: 600; color: var(--link); }
.back { margin: 0 0 .25rem; }
.request-line { overflow-wrap: anywhere; margin: .25rem 0; }
p.label { font-weight: 600; margin: .5rem 0 0; }
[aria-invalid="true"] { border-color: #cf222e; box-shadow: 0 0 0 1px #cf222e; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 0 1rem; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin: 0 0 1rem; }
.filters .field { margin: 0; flex: 1 1 10rem; }
.filters .field.narrow { flex: 1 1 9rem; }
.inline-form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: 0; }
.inline-form .field { margin: 0; flex: 1 1 12rem; }
.copy-row { display: flex; gap: .5rem; align-items: center; }
.copy-row input { flex: 1 1 auto; min-width: 0; }
fieldset.checks { margin-top: .75rem; }
.check { display: flex; gap: .5rem; align-items: center; margin: .35rem 0; }
.check input { width: 1.1rem; height: 1.1rem; flex: none; }
.pager { display: flex; gap: 1rem; align-items: center; margin: 1rem 0; }
.test-result { margin-top: .35rem; }
.center-card { max-width: 26rem; margin: 3rem auto; }

@media (max-width: 640px) {
  main { padding: .75rem; }
  h1 { font-size: 1.3rem; }
  table.list, table.list tbody, table.list tr, table.list td { display: block; width: 100%; }
  table.list { border: 0; background: transparent; }
  table.list thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.list tr { background: #fff; border: 1px solid var(--line); border-radius: 8px; margin: 0 0 .75rem; padding: .35rem .25rem; }
  table.list td { border: 0; padding: .25rem .6rem .25rem 8.5rem; position: relative; min-height: 1.9rem; overflow-wrap: anywhere; }
  table.list td::before { content: attr(data-label); position: absolute; left: .6rem; top: .3rem; width: 7.5rem; color: var(--muted); font-size: .85rem; font-weight: 600; }
  table.list td.actions-cell { white-space: normal; }
  table.list td:empty { display: none; }
  .card { padding: .75rem; }
  dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: .5rem; }
  .center-card { margin: 1.5rem auto; }
  .workspace-label { display: none; }
}
`;
