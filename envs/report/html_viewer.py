"""The episode viewer of ``report.html``: its inline CSS and script (no network, no libraries).

The script reads the index block at load and draws the task x repeat grid; it decodes the
packed episodes (``envs.report.html_data``) on first use and renders an episode, or the replies
judged on a rule, on demand. Every piece of recorded text goes into the page through
``textContent`` / text nodes, never as markup.
"""

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1200px;line-height:1.35}
h1,h2,h3{overflow-wrap:anywhere}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
.gap{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#f3d3d3 4px,#f3d3d3 8px)}
.scroll{overflow-x:auto;max-width:100%}
.scroll tr>th:first-child{position:sticky;left:0;background:#fff;z-index:1}
.rc,.rh{cursor:pointer}.rc:hover,.rh:hover{outline:2px solid #3b6ea8}
#sg-filters{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;margin:.5em 0;font-size:14px}
#sg-filters select{max-width:14em}
.trow{display:flex;align-items:flex-start;gap:.5em;margin:2px 0}
.tname{flex:0 0 16em;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.cells{display:flex;flex-wrap:wrap;gap:2px}
.cell{width:18px;height:18px;border:1px solid #888;border-radius:2px;padding:0;cursor:pointer;font-size:9px}
.cell.pass{background:#5cb85c}.cell.fail{background:#d9534f}.cell.error{background:#f0ad4e;
background-image:repeating-linear-gradient(45deg,transparent,transparent 3px,#8a5a00 3px,#8a5a00 5px)}
.cell.sel{outline:3px solid #000}
.badge{display:inline-block;border-radius:3px;padding:0 5px;font-size:12px;margin-right:4px;border:1px solid #999}
.b-pass,.b-FOLLOWED{background:#dff0d8}.b-fail,.b-VIOLATED{background:#f2dede}.b-error,.b-NEEDS_REVIEW{background:#fcf8e3}
.b-NOT_APPLICABLE,.b-UNJUDGED{background:#eee}
.msg{border-left:4px solid #999;padding:4px 8px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.msg.user{border-color:#3b6ea8;background:#f3f7fc}.msg.agent{border-color:#5a5;background:#f5fbf5}
.msg.tool{border-color:#aaa;background:#fafafa;font-family:ui-monospace,monospace;font-size:12px}
.msg.usertool{border-color:#a5a;background:#fbf5fb;margin-left:2em}
.msg.err{border-color:#d9534f;background:#fdf3f3}
.who{font-size:12px;color:#555;font-family:system-ui,sans-serif;white-space:normal}
.verdicts{margin:2px 0 8px 1.5em;font-size:13px}
.verdict{margin:2px 0;overflow-wrap:anywhere}
.why{color:#444}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0}
.panel{border:1px solid #bbb;border-radius:4px;padding:.5em 1em;margin:1em 0}
.reply{border-top:1px solid #ddd;padding:4px 0}
a.ep{cursor:pointer;color:#1a4f8a;text-decoration:underline}
.rn{font-weight:normal;color:#444}.goal{background:#f6f6f0;border-left:4px solid #b9a;padding:4px 8px}
.cause,.flags{margin:4px 0}.cause li,.flags li,.rules li{overflow-wrap:anywhere}
.rtext{color:#444;font-size:13px}
@media (max-width:600px){body{margin:.5em}.tname{flex-basis:10em}h1{font-size:1.3em}
 .msg.usertool{margin-left:.5em}.verdicts{margin-left:.5em}}
"""

JS = r"""
(function(){
'use strict';
const IX = JSON.parse(document.getElementById('sg-index').textContent);
const CTX = JSON.parse((document.getElementById('sg-context') || {}).textContent || '{"tasks":{},"rules":{},"causes":{},"flags":{},"why":{}}');
function ruleName(id){ const r = CTX.rules[id]; return r && r.name ? id + ' ' + r.name : id; }
function ruleText(id){ const r = CTX.rules[id]; return r && r.text ? r.text : ''; }
let ALL = null;
function h(tag, attrs, ...kids){
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined || k === false) continue;
    e.appendChild(typeof k === 'object' ? k : document.createTextNode(String(k)));
  }
  return e;
}
function txt(v){ return (v === null || v === undefined) ? '' : (typeof v === 'string' ? v : JSON.stringify(v)); }
async function loadAll(){
  if (ALL) return ALL;
  const b64 = document.getElementById('sg-episodes').textContent.trim();
  const bin = atob(b64); const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  if (typeof DecompressionStream === 'undefined') throw new Error('this browser cannot decompress the embedded episodes (needs DecompressionStream)');
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  ALL = JSON.parse(await new Response(stream).text());
  return ALL;
}
const OUT = {p: 'pass', f: 'fail', e: 'error'};
const rows = IX.rows;
// -- filters and grid ------------------------------------------------------------------
const F = {};
function opts(sel, names, label){
  sel.appendChild(h('option', {value: ''}, label));
  names.map((n, i) => [n, i]).sort((a, b) => a[0].localeCompare(b[0], undefined, {numeric: true}))
    .forEach(([n, i]) => sel.appendChild(h('option', {value: i}, n)));
}
function buildFilters(){
  const box = document.getElementById('sg-filters');
  F.failed = h('input', {type: 'checkbox', id: 'f-failed'});
  box.appendChild(h('label', {}, F.failed, ' failed or errored only'));
  for (const [key, table, label] of [['task', 'tasks', 'all tasks'], ['rule', 'rules', 'any rule (not followed)'],
      ['sit', 'situations', 'any situation played'], ['term', 'terminations', 'any ending'],
      ['cause', 'causes', 'any cause'], ['flag', 'flags', 'any simulator flag']]) {
    if (!IX[table].length && (key === 'cause' || key === 'flag')) continue;
    F[key] = h('select', {id: 'f-' + key, 'aria-label': label}); opts(F[key], IX[table], label);
    box.appendChild(F[key]);
  }
  F.count = h('span', {id: 'f-count'});
  box.appendChild(F.count);
  box.appendChild(h('button', {type: 'button', onclick: () => { clearFilters(); applyFilters(); }}, 'clear'));
  for (const k of Object.keys(F)) if (F[k].addEventListener && k !== 'count') F[k].addEventListener('change', applyFilters);
}
function clearFilters(){ F.failed.checked = false; for (const k of ['task','rule','sit','term','cause','flag']) if (F[k]) F[k].value = ''; }
function matches(r){
  if (F.failed.checked && r[2] === 'p') return false;
  const v = k => F[k] && F[k].value !== '' ? Number(F[k].value) : null;
  const t = v('task'), ru = v('rule'), s = v('sit'), te = v('term'), c = v('cause'), fl = v('flag');
  if (t !== null && r[0] !== t) return false;
  if (ru !== null && !r[5].includes(ru)) return false;
  if (s !== null && !r[4].includes(s)) return false;
  if (te !== null && r[3] !== te) return false;
  if (c !== null && r[6] !== c) return false;
  if (fl !== null && !r[7].includes(fl)) return false;
  return true;
}
let CELLS = [], TROWS = {};
function buildGrid(){
  const grid = document.getElementById('sg-grid');
  const byTask = new Map();
  rows.forEach((r, i) => { if (!byTask.has(r[0])) byTask.set(r[0], []); byTask.get(r[0]).push(i); });
  const frag = document.createDocumentFragment();
  for (const [t, idx] of byTask) {
    const cells = h('div', {class: 'cells'});
    for (const i of idx) {
      const r = rows[i];
      const name = IX.tasks[r[0]] + ' #' + r[1];
      const b = h('button', {type: 'button', class: 'cell ' + OUT[r[2]], title: name + ': ' + OUT[r[2]] + ', ' + IX.terminations[r[3]],
        'aria-label': name + ' ' + OUT[r[2]], 'data-ep': i, onclick: () => showEpisode(i)});
      CELLS[i] = b; cells.appendChild(b);
    }
    const row = h('div', {class: 'trow'}, h('div', {class: 'tname', title: IX.tasks[t]}, IX.tasks[t]), cells);
    TROWS[t] = row; frag.appendChild(row);
  }
  grid.appendChild(frag);
}
function applyFilters(){
  let n = 0; const seen = new Set();
  rows.forEach((r, i) => { const ok = matches(r); CELLS[i].style.display = ok ? '' : 'none'; if (ok) { n++; seen.add(r[0]); } });
  for (const t in TROWS) TROWS[t].style.display = seen.has(Number(t)) ? '' : 'none';
  F.count.textContent = 'showing ' + n + ' of ' + rows.length + ' episodes';
}
// -- one episode --------------------------------------------------------------------------
function badge(cls, label){ return h('span', {class: 'badge b-' + cls}, label); }
function table(head, body){
  return h('div', {class: 'scroll'}, h('table', {}, h('tr', {}, head.map(x => h('th', {}, x))),
    body.map(row => h('tr', {}, row.map(c => h('td', {}, c))))));
}
function verdictLine(v){
  return h('div', {class: 'verdict'}, badge(v.verdict, v.verdict), h('b', {title: ruleText(v.rule) || null}, ruleName(v.rule)), ' ',
    h('span', {class: 'badge'}, v.source === 'none' ? 'unjudged' : v.source), v.situation ? '[' + v.situation + '] ' : '',
    h('span', {class: 'why'}, v.rationale || ''));
}
function diffBlock(g){
  if (!g.diff || !g.diff.length) return h('p', {}, g.state_match ? 'Final state matches the goal.' : 'No row diff recorded.');
  const out = [];
  for (const d of g.diff) {
    out.push(h('h4', {}, 'table ' + d.table));
    const body = [];
    for (const c of d.changed || []) for (const [col, ve] of Object.entries(c.columns || {}))
      body.push([txt(c.key), col, txt(ve.expected), txt(ve.actual)]);
    if (body.length) out.push(table(['row', 'column', 'expected', 'actual'], body));
    for (const [kind, list, says] of [['unexpected', d.unexpected, 'in the final state, not in the goal'], ['missing', d.missing, 'in the goal, not in the final state']]) {
      if (!list || !list.length) continue;
      const cols = [...new Set(list.flatMap(r => Object.keys(r)))];
      out.push(h('p', {}, list.length + ' row(s) ' + says + ':'));
      out.push(table(cols, list.map(r => cols.map(c => txt(r[c])))));
    }
  }
  return h('div', {class: 'diff'}, out);
}
function gradeBlock(e){
  const g = e.grade;
  if (!g) return h('p', {}, 'No grade (' + (e.status === 'error' ? 'the episode ended in an error' : 'not graded') + ').');
  const parts = [h('p', {}, 'reward ', h('b', {}, String(g.reward)), '; state matches goal: ' + g.state_match + '; required outputs stated: ' + g.outputs_ok)];
  parts.push(h('h4', {}, 'Row-level diff (expected vs actual)'), diffBlock(g));
  if (g.outputs && g.outputs.length) {
    parts.push(h('h4', {}, 'Required outputs'));
    parts.push(table(['output', 'kind', 'expected', 'stated', 'the agent said'], g.outputs.map(o => [o.output, o.kind || '', o.expected || '',
      o.found ? 'yes, turn ' + o.turn : 'NO', o.closest === null || o.closest === undefined ? (o.found ? '' : '(nothing of that kind)') : o.closest])));
  }
  if (g.assertions && g.assertions.length) {
    parts.push(h('h4', {}, 'Assertions'));
    parts.push(table(['type', 'description', 'result', 'evidence', 'turn'], g.assertions.map(a => [a.type, a.description || '',
      badge(a.result === 'pass' ? 'pass' : a.result === 'fail' ? 'fail' : 'error', a.result), a.evidence || '', a.turn === null ? '' : String(a.turn)])));
  }
  return h('div', {}, parts);
}
function usageBlock(e){
  const u = Object.entries(e.usage || {});
  if (!u.length) return h('p', {}, 'No LLM calls (tokens 0, cost 0).');
  return table(['role', 'calls', 'cached', 'prompt tokens', 'completion tokens', 'cost (USD)'], u.map(([role, x]) =>
    [role, String(x.calls), String(x.cached_calls || 0), String(x.prompt_tokens), String(x.completion_tokens), x.cost === null ? 'unpriced' : x.cost.toFixed(4)]));
}
async function showEpisode(i, focusTurn){
  const panel = document.getElementById('sg-episode');
  panel.replaceChildren(h('p', {}, 'loading...'));
  panel.hidden = false;
  let all;
  try { all = await loadAll(); } catch (err) { panel.replaceChildren(h('p', {}, String(err))); return; }
  const e = all[i], r = rows[i];
  document.querySelectorAll('.cell.sel').forEach(c => c.classList.remove('sel'));
  CELLS[i].classList.add('sel');
  const byTurn = {};
  for (const v of e.verdicts || []) (byTurn[v.turn] = byTurn[v.turn] || []).push(v);
  const shown = new Set();
  const tr = [];
  for (const ev of e.transcript || []) {
    if (ev.kind === 'user') {
      tr.push(h('div', {class: 'msg user'}, h('div', {class: 'who'}, 'user, turn ' + ev.turn, ev.situation ? ' \u00b7 playing ' : '',
        ev.situation ? h('b', {}, ev.situation) : '', ev.stop ? ' \u00b7 stops' : ''), ev.content));
    } else if (ev.kind === 'agent') {
      tr.push(h('div', {class: 'msg agent', id: 'sg-t' + ev.turn}, h('div', {class: 'who'}, 'agent, turn ' + ev.turn), ev.content));
      if (byTurn[ev.turn] && !shown.has(ev.turn)) { shown.add(ev.turn); tr.push(h('div', {class: 'verdicts'}, byTurn[ev.turn].map(verdictLine))); }
    } else if (ev.kind === 'tool') {
      const who = ev.side === 'user' ? "user's own tool" : 'agent tool';
      tr.push(h('div', {class: 'msg tool' + (ev.side === 'user' ? ' usertool' : '')},
        h('div', {class: 'who'}, who + ', turn ' + ev.turn, ev.ok ? '' : ' \u00b7 ', ev.ok ? '' : badge('fail', ev.error_kind || 'error')),
        h('div', {}, ev.call.name + '(' + txt(ev.call.arguments) + ')'),
        h('details', {}, h('summary', {}, 'result (' + (ev.output || '').length + ' chars)'), h('pre', {}, ev.output))));
    } else {
      tr.push(h('div', {class: 'msg err'}, h('div', {class: 'who'}, (ev.role || '?') + ' error, turn ' + ev.turn), ev.message));
    }
  }
  const rest = Object.keys(byTurn).filter(t => !shown.has(Number(t)));
  if (rest.length) tr.push(h('p', {}, 'Judged on the handoff (no reply text):'), h('div', {class: 'verdicts'}, rest.flatMap(t => byTurn[t].map(verdictLine))));
  const meta = [badge(OUT[r[2]], OUT[r[2]]), 'reward ' + e.reward + '; ended by ' + (e.termination || '?') + '; agent errors ' + e.agent_errors];
  if (e.budget) meta.push(h('div', {}, 'budget: ' + e.budget));
  if (e.status === 'error') meta.push(h('div', {}, badge('error', 'error'), (e.error_role || '?') + ':' + (e.error_kind || '?') + ' ' + (e.error || '')));
  meta.push(h('div', {class: 'who'}, 'actors ' + txt(e.actors) + '; seed ' + e.seed));
  const task = CTX.tasks[e.task_id];
  const goal = task ? h('div', {class: 'goal', id: 'sg-goal'}, h('b', {}, 'Goal: '), task.goal,
    task.request ? h('div', {class: 'who'}, 'the user opens with: ' + task.request) : null) : null;
  const c = CTX.causes[e.episode_id] || (e.cause && typeof e.cause === 'object' ? e.cause : null);
  const why = (CTX.why || {})[e.episode_id];
  const whyLine = why ? h('div', {class: 'cause', id: 'sg-why'}, h('b', {}, 'What failed: '), why) : null;
  const cause = c ? h('div', {class: 'cause', id: 'sg-cause'}, h('b', {}, 'Cause: '), h('b', {}, c.cause),
      ' (' + (c.strength || '') + ', from the ' + (c.source === 'reviewer' ? "reviewer's review" : 'rules') + ')',
      h('ul', {}, (c.evidence || []).map(x => h('li', {}, x))))
    : (e.cause ? h('div', {class: 'cause', id: 'sg-cause'}, 'Cause: ', h('b', {}, txt(e.cause))) : null);
  const fl = CTX.flags[e.episode_id] || [];
  const flags = h('div', {class: 'flags', id: 'sg-flags'}, h('b', {}, 'Simulator flags: '), fl.length ? h('ul', {}, fl.map(f =>
      h('li', {}, h('b', {}, f.flag), f.turn === null || f.turn === undefined ? '' : ', user turn ' + f.turn, f.evidence ? ': ' + f.evidence : '')))
    : (e.simulator_flags ? txt(e.simulator_flags) : 'none fired'));
  const used = [...new Set((e.verdicts || []).map(v => v.rule))].sort((a, b) => a.localeCompare(b, undefined, {numeric: true}));
  const rulesList = used.length ? h('details', {class: 'rules', id: 'sg-rules'}, h('summary', {}, 'The rules judged here (' + used.length + ')'),
    h('ul', {}, used.map(id => h('li', {}, h('b', {}, ruleName(id)), CTX.rules[id] && CTX.rules[id].category ? ' [' + CTX.rules[id].category + ']' : '',
      ruleText(id) ? h('div', {class: 'rtext'}, ruleText(id)) : null)))) : null;
  panel.replaceChildren(...[
    h('h2', {}, 'Episode ' + e.episode_id),
    goal,
    h('p', {}, meta),
    whyLine, cause, flags, rulesList,
    h('h3', {}, 'Transcript'), h('div', {class: 'transcript'}, tr),
    h('h3', {}, 'Grade'), gradeBlock(e),
    h('h3', {}, 'Tokens and cost'), usageBlock(e),
    h('p', {}, h('a', {class: 'ep', onclick: () => document.getElementById('episodes').scrollIntoView()}, 'back to the grid'))].filter(Boolean));
  const target = focusTurn !== undefined ? document.getElementById('sg-t' + focusTurn) : panel;
  (target || panel).scrollIntoView();
}
// -- the replies behind a rule ----------------------------------------------------------------
const ORDER = {VIOLATED: 0, NEEDS_REVIEW: 1, FOLLOWED: 2, UNJUDGED: 3, NOT_APPLICABLE: 4};
async function showReplies(rule, sit){
  const panel = document.getElementById('sg-replies');
  panel.hidden = false; panel.replaceChildren(h('p', {}, 'loading...'));
  let all;
  try { all = await loadAll(); } catch (err) { panel.replaceChildren(h('p', {}, String(err))); return; }
  const hits = [];
  all.forEach((e, i) => {
    for (const v of e.verdicts || []) {
      if (v.rule !== rule || (sit && v.situation !== sit)) continue;
      const reply = (e.transcript || []).find(x => x.kind === 'agent' && x.turn === v.turn);
      hits.push({i, e, v, reply: reply ? reply.content : '(no reply text: judged on the handoff)'});
    }
  });
  hits.sort((a, b) => (ORDER[a.v.verdict] - ORDER[b.v.verdict]) || (a.i - b.i) || (a.v.turn - b.v.turn));
  const counts = {};
  for (const x of hits) counts[x.v.verdict] = (counts[x.v.verdict] || 0) + 1;
  const list = h('div', {id: 'sg-reply-list'});
  let shownN = 0;
  const more = h('button', {type: 'button'}, 'show more');
  function page(){
    for (const x of hits.slice(shownN, shownN + 100)) {
      list.appendChild(h('div', {class: 'reply'},
        h('div', {}, badge(x.v.verdict, x.v.verdict), h('a', {class: 'ep', onclick: () => showEpisode(x.i, x.v.turn)}, x.e.episode_id + ' turn ' + x.v.turn),
          ' [' + (x.v.situation || '-') + '] ', h('span', {class: 'badge'}, x.v.source === 'none' ? 'unjudged' : x.v.source)),
        h('div', {class: 'msg agent'}, x.reply), h('div', {class: 'why'}, x.v.rationale || '')));
    }
    shownN = Math.min(hits.length, shownN + 100);
    more.hidden = shownN >= hits.length;
  }
  more.addEventListener('click', page);
  panel.replaceChildren(...[h('h2', {}, 'Replies judged on ' + ruleName(rule) + (sit ? ' in ' + sit : '')),
    ruleText(rule) ? h('p', {class: 'rtext'}, ruleText(rule)) : null,
    h('p', {}, hits.length + ' verdicts: ' + Object.entries(counts).map(([k, n]) => k + ' ' + n).join(', ') + '. Violations first.'),
    list, more, h('p', {}, h('a', {class: 'ep', onclick: () => document.getElementById('rules').scrollIntoView()}, 'back to the rules'))].filter(Boolean));
  page();
  panel.scrollIntoView();
}
document.querySelectorAll('[data-rule]').forEach(el => el.addEventListener('click', () => showReplies(el.dataset.rule, el.dataset.sit || null)));
buildFilters(); buildGrid(); applyFilters();
})();
"""
