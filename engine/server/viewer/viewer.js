// The run viewer: the runs the store keeps (GET /v1/runs), one run's timeline and calls (GET /v1/runs/ID), two runs
// compared (GET /v1/runs/A/diff/B) and a chat with a served workflow (POST /v1/chat/completions). Everything shown
// comes from model replies, tools and users, so it is put on the page as text, never as HTML.
'use strict';

const $ = (selector) => document.querySelector(selector);

// An element with attributes and children; strings become text nodes.
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === 'class') node.className = value;
    else if (name === 'style') Object.assign(node.style, value);  // CSSOM: the page's policy allows no inline styles
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function say(message) { $('#status').textContent = message || ''; }

// A request with the token the user gave, when the server asks for one.
async function api(path, options = {}) {
  const token = sessionStorage.getItem('engine-token');
  const headers = Object.assign({}, options.headers || {});
  if (token) headers.Authorization = 'Bearer ' + token;
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) {
    $('#login').hidden = false;
    throw new Error('this server asks for a token');
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error((body && body.error && body.error.message) || response.statusText);
  return body;
}

const fmt = {
  ms(ms) { return ms === undefined ? '-' : ms >= 1000 ? (ms / 1000).toFixed(2) + ' s' : ms.toFixed(ms >= 10 ? 0 : 1) + ' ms'; },
  when(unixMs) { return new Date(unixMs).toLocaleString(); },
  cost(usd) { return usd === undefined ? '-' : '$' + usd.toFixed(6); },
  value(v) { return v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2); },
};

function show(section) {
  for (const id of ['list-view', 'run-view', 'diff-view', 'chat-view']) $('#' + id).hidden = id !== section;
}

// The runs list --------------------------------------------------------------------------------------------------

const picked = new Set();

async function showList() {
  show('list-view');
  const query = new URLSearchParams();
  for (const [name, value] of new FormData($('#filters'))) if (value) query.set(name, value);
  query.set('limit', '200');
  const runs = await api('/v1/runs?' + query);
  const rows = runs.map((run) => {
    const pick = el('input', { type: 'checkbox', class: 'pick', 'aria-label': 'compare ' + run.id });
    pick.checked = picked.has(run.id);
    pick.addEventListener('click', (event) => {
      event.stopPropagation();
      if (pick.checked) picked.add(run.id); else picked.delete(run.id);
      $('#compare').disabled = picked.size !== 2;
    });
    const usage = run.usage || {};
    return el('tr', { 'data-id': run.id, onclick: () => { location.hash = '#/run/' + run.id; } },
      el('td', {}, pick), el('td', { class: 'id' }, run.id.slice(0, 8)), el('td', {}, fmt.when(run.started_ms)),
      el('td', {}, run.workflow), el('td', {}, run.command), el('td', { class: run.status }, run.status),
      el('td', {}, fmt.ms(run.elapsed_ms)), el('td', {}, (usage.prompt_tokens || 0) + (usage.completion_tokens || 0)),
      el('td', {}, fmt.cost(usage.cost_usd)));
  });
  $('#runs tbody').replaceChildren(...rows);
  if (!rows.length) $('#runs tbody').append(el('tr', {}, el('td', { colspan: 9 }, 'No runs match.')));
  $('#compare').disabled = picked.size !== 2;
}

// One run -----------------------------------------------------------------------------------------------------------

function spanClass(span) {
  const name = span.name;
  if (span.failed) return 'failed';
  if (name.startsWith('chat ')) return 'chat';
  if (name.startsWith('execute_tool ')) return 'tool';
  if (name.startsWith('invoke_agent ')) return 'agent';
  if (name.startsWith('invoke_workflow ')) return 'run';
  return 'step';
}

// The conventions' messages ([{role, parts: [{type, content | name, arguments | response}]}]) as text blocks.
function messageBlocks(json, cls) {
  let messages;
  try { messages = JSON.parse(json); } catch { return [el('div', { class: 'message ' + cls }, el('pre', {}, json))]; }
  if (!Array.isArray(messages)) messages = [messages];
  return messages.map((m) => {
    const parts = (m.parts || []).map((p) => {
      if (p.type === 'text') return p.content;
      if (p.type === 'tool_call') return 'call ' + p.name + ' ' + fmt.value(p.arguments);
      if (p.type === 'tool_call_response') return 'result ' + fmt.value(p.response);
      return fmt.value(p);
    });
    return el('div', { class: 'message ' + cls }, el('div', { class: 'role' }, m.role || ''),
      el('pre', {}, parts.join('\n')));
  });
}

function showSpan(span) {
  for (const row of document.querySelectorAll('.span-row'))
    row.classList.toggle('selected', row.dataset.id === span.id);
  const a = span.attributes || {};
  const blocks = [el('h2', {}, span.name + ' (' + fmt.ms(span.end_ms - span.start_ms) + ')')];
  if (span.failed && span.status) blocks.push(el('p', { class: 'failed' }, span.status));
  if (a['gen_ai.input.messages']) blocks.push(el('h2', {}, 'Prompt'), el('div', { class: 'prompt' }, messageBlocks(a['gen_ai.input.messages'], 'in')));
  if (a['gen_ai.output.messages']) blocks.push(el('h2', {}, 'Reply'), el('div', { class: 'reply' }, messageBlocks(a['gen_ai.output.messages'], 'out')));
  if (a['gen_ai.tool.call.arguments'] !== undefined)
    blocks.push(el('h2', {}, 'Input'), el('div', { class: 'message tool-input' }, el('pre', {}, fmt.value(a['gen_ai.tool.call.arguments']))));
  if (a['gen_ai.tool.call.result'] !== undefined)
    blocks.push(el('h2', {}, 'Output'), el('div', { class: 'message tool-output' }, el('pre', {}, fmt.value(a['gen_ai.tool.call.result']))));
  const plain = Object.entries(a).filter(([name]) => !/^gen_ai\.(input|output)\.messages$|^gen_ai\.tool\.call\.(arguments|result)$/.test(name));
  if (plain.length)
    blocks.push(el('h2', {}, 'Attributes'),
      el('table', { class: 'attributes' }, plain.map(([name, value]) => el('tr', {}, el('th', {}, name), el('td', {}, fmt.value(value))))));
  $('#detail').replaceChildren(...blocks);
}

function drawWaterfall(spans, total) {
  const span = Math.max(total, ...spans.map((s) => s.end_ms), 0.001);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => el('span', { class: 'tick', style: { left: f * 100 + '%' } }, fmt.ms(f * span)));
  const axis = el('div', { class: 'axis' }, el('div', { class: 'span-name' }, 'span'), el('div', { class: 'track' }, ticks),
    el('div', { class: 'span-time' }, 'time'));
  const rows = spans.map((s) => {
    const left = (100 * s.start_ms) / span, width = (100 * Math.max(s.end_ms - s.start_ms, 0)) / span;
    const bar = el('div', { class: 'bar ' + spanClass(s), style: { left: left + '%', width: width + '%' }, title: s.name });
    return el('div', { class: 'span-row', 'data-id': s.id, 'data-name': s.name, onclick: () => showSpan(s) },
      el('div', { class: 'span-name', style: { paddingLeft: 0.5 + s.depth * 1.1 + 'em' }, title: s.name }, s.name),
      el('div', { class: 'track' }, bar), el('div', { class: 'span-time' }, fmt.ms(s.end_ms - s.start_ms)));
  });
  $('#waterfall').replaceChildren(axis, ...rows);
}

// What each step did, from the run's journal: its rendered inputs and its output, a skipped step's reason, each
// for_each item apart (indented under its step, which follows its items as it ends after them).
function drawSteps(steps) {
  $('#steps-part').hidden = steps.length === 0;
  $('#steps tbody').replaceChildren(...steps.map((s) =>
    el('tr', { class: 'step ' + s.status + (/\[\d+\]$/.test(s.step) ? ' item' : ''), 'data-step': s.step },
      el('th', {}, s.step), el('td', { class: 'status' }, s.status),
      el('td', { class: 'inputs' }, el('pre', {}, fmt.value(s.inputs))),
      el('td', { class: 'output' }, el('pre', {}, s.status === 'skipped' ? s.reason : fmt.value(s.output))))));
}

async function showRun(id) {
  show('run-view');
  const run = await api('/v1/runs/' + encodeURIComponent(id));
  $('#run-title').textContent = run.workflow + ' · run ' + run.id;
  const usage = run.usage || {};
  const items = [
    ['status', run.status + (run.stopped_reason ? ' (' + run.stopped_reason + ')' : '')],
    ['command', run.command], ['started', fmt.when(run.started_ms)], ['time', fmt.ms(run.elapsed_ms)],
    ['tokens', (usage.prompt_tokens || 0) + ' in, ' + (usage.completion_tokens || 0) + ' out'],
    ['cost', fmt.cost(usage.cost_usd)], ['inputs', fmt.value(run.inputs)], ['output', fmt.value(run.output)],
  ];
  if (run.error) items.push(['error', (run.error.kind || '') + ': ' + (run.error.message || '')]);
  if (run.trace_id) items.push(['trace', run.trace_id]);
  $('#summary').replaceChildren(...items.flatMap(([name, value]) =>
    [el('dt', {}, name), el('dd', { class: name === 'status' ? run.status : '', 'data-field': name }, value)]));
  // A run still going (or cut, to be resumed) comes from its journal alone: steps, no spans yet.
  const spans = run.spans || [];
  drawSteps(run.steps || []);
  $('#timeline-part').hidden = spans.length === 0;
  drawWaterfall(spans, run.elapsed_ms || 0);
  $('#detail').replaceChildren();
  const first = spans.find((s) => s.name.startsWith('chat ')) || spans[0];
  if (first) showSpan(first);
}

// Two runs ------------------------------------------------------------------------------------------------------

async function showDiff(a, b) {
  show('diff-view');
  const diff = await api('/v1/runs/' + encodeURIComponent(a) + '/diff/' + encodeURIComponent(b));
  $('#diff-title').textContent = 'Run ' + diff.a.slice(0, 8) + ' beside run ' + diff.b.slice(0, 8);
  $('#diff thead .a').textContent = 'A ' + diff.a;
  $('#diff thead .b').textContent = 'B ' + diff.b;
  $('#diff tbody').replaceChildren(...diff.lines.map((line) =>
    el('tr', { class: line.same ? 'same' : 'differs', 'data-what': line.what },
      el('th', {}, line.what), el('td', {}, line.a), el('td', {}, line.b))));
}

// Chat ----------------------------------------------------------------------------------------------------------

const chat = { messages: [] };

async function showChat() {
  show('chat-view');
  const models = await api('/v1/models');
  const select = $('#chat-model');
  const current = select.value;
  select.replaceChildren(...models.data.map((m) => el('option', { value: m.id }, m.id)));
  if (current) select.value = current;
  if (!models.data.length) say('no workflow is served: start engine ui or engine serve with workflows to chat');
}

function drawChat() {
  $('#chat-messages').replaceChildren(...chat.messages.map((m) =>
    el('div', { class: 'message ' + m.role }, el('div', { class: 'role' }, m.role), el('pre', {}, m.content))));
}

async function sendChat(event) {
  event.preventDefault();
  const text = $('#chat-input').value.trim();
  if (!text) return;
  chat.messages.push({ role: 'user', content: text });
  $('#chat-input').value = '';
  drawChat();
  const reply = await api('/v1/chat/completions', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: $('#chat-model').value, messages: chat.messages }),
  });
  chat.messages.push({ role: 'assistant', content: reply.choices[0].message.content || '' });
  drawChat();
}

// Routes: #/, #/run/ID, #/diff/A/B, #/chat ------------------------------------------------------------------------

async function route() {
  say('');
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  try {
    if (parts[0] === 'run' && parts[1]) await showRun(parts[1]);
    else if (parts[0] === 'diff' && parts[1] && parts[2]) await showDiff(parts[1], parts[2]);
    else if (parts[0] === 'chat') await showChat();
    else await showList();
    document.body.dataset.ready = location.hash || '#/';
  } catch (error) {
    say(error.message);
    document.body.dataset.ready = 'error';
  }
}

window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', () => {
  $('#filters').addEventListener('submit', (event) => { event.preventDefault(); showList().catch((e) => say(e.message)); });
  $('#compare').addEventListener('click', () => { const [a, b] = picked; location.hash = '#/diff/' + a + '/' + b; });
  $('#chat').addEventListener('submit', (event) => sendChat(event).catch((e) => say(e.message)));
  $('#login').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem('engine-token', $('#token').value);
    $('#login').hidden = true;
    route();
  });
  route();
});
