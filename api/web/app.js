// droidlab's dashboard: a single page over the REST API (/api/v1) and its event stream.
// Plain JS, no build step. Pages are hash routes (#/devices, #/runs, #/runs/ID, #/trend?package=,
// #/schedules, #/builds); live updates come from GET /api/v1/events, read with fetch() so that the API
// token travels in the Authorization header (EventSource cannot set headers, and a token in a URL
// ends up in logs and history). DOM is built with h(), never from HTML strings: device text may
// hold anything.
'use strict';

const TOKEN_KEY = 'droidlab.token';
const SLOW_MS = 700;        // looper stats: a message this slow is janky
const VERY_SLOW_MS = 5000;  // ... this slow is an ANR in the making
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2',
                '#7f7f7f', '#bcbd22', '#17becf'];

// What the browser test (tests/browser/) and a curious operator can look at.
const state = {
  charts: {},          // name → Chart of the current page
  events: 0,           // events received on the stream
  progress: new Map(), // run id → latest progress from the stream
  page: null,          // {name, cleanup}
  series: [],          // the trend page's series, as GET /series answered them
};
window.droidlab = state;

// ---- DOM helpers
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const $ = (sel, root = document) => root.querySelector(sel);
const main = () => $('#main');

function fmtTime(ms) {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
         `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
const fmtNum = (v, digits = 0) => (v === null || v === undefined ? '—' : Number(v).toFixed(digits));
const statusBadge = (status) => h('span', {class: `status ${status}`}, status);

function progressText(p) {
  if (!p) return '';
  return `${p.phase} ${p.iterations_done}/${p.iterations}` +
         (p.valid_launches !== undefined ? ` (${p.valid_launches} valid)` : '');
}

// Progress of running runs the stream has not told about yet (the page opened mid-run).
async function fetchProgress(runs) {
  const missing = runs.filter((r) => r.status === 'running' && !state.progress.has(r.id));
  await Promise.all(missing.map(async (r) => {
    const detail = await api(`/api/v1/runs/${r.id}`);
    if (detail.progress) state.progress.set(r.id, detail.progress);
  }));
}

function showError(message) {
  const box = $('#error');
  box.textContent = message;
  box.hidden = !message;
}

// Calls a function at most once per `ms`, with the latest arguments (event bursts → one fetch).
function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

// ---- The API
class Unauthorized extends Error {}

function authHeaders() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? {Authorization: `Bearer ${token}`} : {};
}

function askForToken() {
  const form = $('#token-form');
  form.hidden = false;
  $('#token-input').focus();
}

async function api(path, options = {}) {
  const init = {...options, headers: {...authHeaders(), ...(options.headers || {})}};
  if (options.body !== undefined && typeof options.body !== 'string' && !(options.body instanceof Blob) &&
      !(options.body instanceof FormData)) {
    init.body = JSON.stringify(options.body);
    init.headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    askForToken();
    throw new Unauthorized('this daemon needs its API token');
  }
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const message = body && body.error ? body.error.message : response.statusText;
    const error = new Error(`${init.method || 'GET'} ${path}: ${response.status} ${message}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

// A run's rows (launches, looper-stats, proc-samples) come a page at a time, at most 10,000 a
// response: follows next_cursor to the last page and answers {[key]: every row}, in order.
async function apiRows(path, key) {
  const rows = [];
  let cursor = null;
  do {
    const page = await api(cursor === null ? path : `${path}?cursor=${encodeURIComponent(cursor)}`);
    rows.push(...page[key]);
    cursor = page.next_cursor ?? null;
  } while (cursor !== null);
  return {[key]: rows};
}

// ---- The event stream: GET /api/v1/events, "event: run|device|lagged\ndata: {json}\n\n".
const listeners = new Set();  // fn(event, data)
function onEvent(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function setLive(on, text) {
  const badge = $('#live');
  badge.className = `live ${on ? 'on' : 'off'}`;
  badge.textContent = text;
}

async function streamEvents() {
  let backoff = 1000;
  for (;;) {
    try {
      const response = await fetch('/api/v1/events', {headers: authHeaders(), cache: 'no-store'});
      if (response.status === 401) {
        setLive(false, 'no token');
        askForToken();
        await new Promise((resolve) => window.addEventListener('droidlab-token', resolve, {once: true}));
        continue;
      }
      if (!response.ok || !response.body) throw new Error(`events: ${response.status}`);
      setLive(true, 'live');
      backoff = 1000;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, {stream: true});
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          dispatchFrame(frame);
        }
      }
    } catch (e) {
      console.warn('event stream', e);
    }
    setLive(false, 'reconnecting');
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, 10000);
  }
}

function dispatchFrame(frame) {
  let event = 'message';
  const data = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;  // a comment or keepalive
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return;
  let parsed;
  try {
    parsed = JSON.parse(data.join('\n'));
  } catch (e) {
    return;
  }
  state.events += 1;
  if (event === 'run' && parsed.progress) state.progress.set(parsed.id, parsed.progress);
  if (event === 'lagged') {
    // Events were dropped: every page refetches what it shows.
    for (const fn of listeners) fn('refresh', parsed);
    return;
  }
  for (const fn of listeners) fn(event, parsed);
}

// ---- Charts (Chart.js 3, embedded from Debian's libjs-chart.js)
function chart(name, canvas, config) {
  if (state.charts[name]) state.charts[name].destroy();
  config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false},
                                 config.options || {});
  state.charts[name] = new Chart(canvas, config);
  return state.charts[name];
}
function chartBox(name, title) {
  return h('section', {class: 'chart'}, h('h3', {}, title),
           h('div', {class: 'canvas-box'}, h('canvas', {id: `chart-${name}`})));
}
function updateChart(name, data) {
  const c = state.charts[name];
  if (!c) return;
  c.data = data;
  c.update('none');
}

// ---- Pages
const pages = {};

// Open regressions (GET /alerts?state=open): the slowdowns found in the history and not yet
// resolved — by a fix the history saw, or by an operator here. Empty, it says so in one line.
const isSlowdown = (a) => a.kind === 'regression' || (a.delta ?? 0) > 0;
function openRegressionsPanel() {
  const box = h('section', {id: 'open-regressions'});
  const load = async () => {
    const open = (await api('/api/v1/alerts?state=open&limit=1000')).alerts.filter(isSlowdown);
    if (open.length === 0) {
      box.replaceChildren(h('p', {class: 'hint'}, 'No open regressions.'));
      return;
    }
    const pct = (v) => (v === null || v === undefined ? '—' : `${v > 0 ? '+' : ''}${v.toFixed(1)} %`);
    box.replaceChildren(h('h2', {}, `Open regressions (${open.length})`), h('table', {},
      h('tr', {}, ['what', 'package', 'model', 'mode', 'metric', 'Δ', 'CI of Δ', 'since run', 'versionCode',
                   'explained by', 'raised', ''].map((t) => h('th', {}, t))),
      ...open.map((a) => h('tr', {'data-alert': a.id},
        h('td', {}, a.kind.replace('_', ' ')),
        h('td', {}, h('a', {href: `#/trend?package=${encodeURIComponent(a.package)}&metric=${encodeURIComponent(a.metric)}`}, a.package)),
        h('td', {}, a.model || '—'), h('td', {}, a.mode), h('td', {}, a.metric),
        h('td', {class: 'delta'}, pct(a.delta_pct)),
        h('td', {}, a.ci_low === null ? '—' : `${pct(a.ci_low)} … ${pct(a.ci_high)}`),
        h('td', {}, a.run_id ? h('a', {href: `#/runs/${a.run_id}`}, `#${a.run_id}`) : '—'),
        h('td', {}, a.version_code ?? (a.build_id ? `#${a.build_id}` : '—')),
        h('td', {}, a.explained_by.length ? a.explained_by.join(', ') : '—'),
        h('td', {}, fmtTime(a.created_at)),
        h('td', {}, h('button', {type: 'button', title: 'POST /api/v1/alerts/ID/resolve', onclick: async () => {
          await api(`/api/v1/alerts/${a.id}/resolve`, {method: 'POST'}).catch(report);
          load().catch(report);
        }}, 'Resolve'))))));
  };
  return {box, load};
}

pages.devices = (root) => {
  const regressions = openRegressionsPanel();
  root.append(regressions.box);
  const table = h('table', {id: 'devices'},
    h('thead', {}, h('tr', {}, ['serial', 'state', 'model', 'manufacturer', 'SDK', 'release', 'ABI',
                                'host', 'labels', 'running now', 'last seen'].map((t) => h('th', {}, t)))),
    h('tbody'));
  root.append(h('h2', {}, 'Devices'), table);
  const load = async () => {
    const [devices, running] = await Promise.all([
      api('/api/v1/devices'), api('/api/v1/runs?status=running&limit=1000')]);
    const now = new Map();
    for (const run of running.runs) now.set(run.serial, run);
    await fetchProgress(running.runs);
    const rows = devices.devices.map((d) => {
      const run = now.get(d.serial);
      return h('tr', {'data-serial': d.serial},
        h('td', {}, h('a', {href: `#/devices/${encodeURIComponent(d.serial)}`}, d.serial)),
        h('td', {}, statusBadge(d.state), d.quarantine ? [' ', h('span', {class: 'badge quarantined',
                     title: d.quarantine.reason}, 'quarantined')] : []), h('td', {}, d.model ?? '—'),
        h('td', {}, d.manufacturer ?? '—'), h('td', {}, d.sdk ?? '—'), h('td', {}, d.release ?? '—'),
        h('td', {}, d.abi ?? '—'), h('td', {}, d.host ?? '—'),
        h('td', {class: 'labels'}, (d.labels ?? []).length ? d.labels.join(', ') : '—'),
        h('td', {}, run ? h('a', {href: `#/runs/${run.id}`},
                            `#${run.id} ${run.package} ${progressText(state.progress.get(run.id))}`)
                        : '—'),
        h('td', {}, fmtTime(d.last_seen)));
    });
    table.tBodies[0].replaceChildren(...rows);
    if (rows.length === 0) {
      table.tBodies[0].append(h('tr', {}, h('td', {colspan: 9}, 'no device has been seen yet')));
    }
  };
  const reload = debounce(() => load().catch(report), 200);
  // Alerts are raised after a run's end is stored, a moment after its event: read them a
  // second later, and every 30 s for those resolved elsewhere.
  const reloadRegressions = debounce(() => regressions.load().catch(report), 1000);
  const poll = setInterval(reloadRegressions, 30000);
  const off = onEvent((event) => {
    if (event === 'device' || event === 'run' || event === 'refresh') reload();
    if (event === 'run' || event === 'refresh') reloadRegressions();
  });
  load().catch(report);
  regressions.load().catch(report);
  return () => { off(); clearInterval(poll); };
};

// One device: its facts, its health (issue 17 §3: the last checks, the recovery ladder's steps,
// a quarantine and its release) and what droidlab installed on it (per package, the last build a
// run recorded there: installed, or found already installed).
pages.device = (root, params, serial) => {
  const facts = h('p', {class: 'device-facts'});
  const quarantine = h('div', {id: 'quarantine'});
  const checks = h('table', {id: 'health-checks'});
  const events = h('table', {id: 'device-events'});
  const table = h('table', {id: 'installed-builds'});
  root.append(h('h2', {}, `Device ${serial}`), facts, quarantine,
              h('h3', {}, 'Health'), checks, h('h3', {}, 'What happened to it'), events,
              h('h3', {}, 'Installed by droidlab'), table);
  const release = async () => {
    await api(`/api/v1/devices/${encodeURIComponent(serial)}/release`, {method: 'POST'}).catch(report);
    load().catch(report);
  };
  const loadHealth = async () => {
    const health = await api(`/api/v1/devices/${encodeURIComponent(serial)}/health?limit=10`);
    const q = health.quarantine;
    quarantine.replaceChildren(...(q ? [h('p', {class: 'quarantined'},
      h('strong', {}, 'Quarantined'), ` since ${fmtTime(q.since)}: ${q.reason} `,
      h('button', {type: 'button', id: 'release', title: 'POST /api/v1/devices/SERIAL/release',
                   onclick: release}, 'Release'))] : []));
    const celsius = (t) => (t === null ? '—' : `${(t / 10).toFixed(1)} °C`);
    checks.replaceChildren(
      h('tr', {}, ['when', 'answered', 'battery', 'temperature', 'thermal', 'adb commands',
                   'adb errors', 'adb ms'].map((t) => h('th', {}, t))),
      ...health.samples.map((c) => h('tr', {},
        h('td', {}, fmtTime(c.at)), h('td', {}, c.answered ? 'yes' : 'no'),
        h('td', {}, c.battery_level === null ? '—' : `${c.battery_level} %`),
        h('td', {}, celsius(c.battery_temp_tenths_c)), h('td', {}, c.thermal_status ?? '—'),
        h('td', {}, c.adb_commands), h('td', {}, c.adb_errors), h('td', {}, c.adb_ms))));
    if (health.samples.length === 0) {
      checks.append(h('tr', {}, h('td', {colspan: 8}, 'not checked yet')));
    }
    events.replaceChildren(
      h('tr', {}, ['when', 'what', 'detail', 'host'].map((t) => h('th', {}, t))),
      ...health.events.map((e) => h('tr', {'data-kind': e.kind},
        h('td', {}, fmtTime(e.at)), h('td', {}, e.kind), h('td', {}, e.detail), h('td', {}, e.host))));
    if (health.events.length === 0) {
      events.append(h('tr', {}, h('td', {colspan: 4}, 'nothing: it has answered every check')));
    }
  };
  const load = async () => {
    const d = await api(`/api/v1/devices/${encodeURIComponent(serial)}`);
    facts.replaceChildren(statusBadge(d.state),
      ` ${d.manufacturer ?? ''} ${d.model ?? '—'}, Android ${d.release ?? '?'} (SDK ${d.sdk ?? '?'}), `,
      h('a', {href: `#/runs?serial=${encodeURIComponent(serial)}`}, 'its runs'));
    await loadHealth();
    table.replaceChildren(
      h('tr', {}, ['package', 'build', 'versionCode', 'sha256', 'how', 'when', 'run'].map((t) => h('th', {}, t))),
      ...d.installed_builds.map((b) => h('tr', {'data-package': b.package},
        h('td', {}, b.package), h('td', {}, `#${b.build_id}`), h('td', {}, b.version_code ?? '—'),
        h('td', {}, h('code', {title: b.sha256 ?? ''}, (b.sha256 ?? '').slice(0, 12))),
        h('td', {}, b.install_method ?? '—'), h('td', {}, fmtTime(b.at)),
        h('td', {}, h('a', {href: `#/runs/${b.run_id}`}, `#${b.run_id}`)))));
    if (d.installed_builds.length === 0) {
      table.append(h('tr', {}, h('td', {colspan: 7}, 'droidlab has installed no build here')));
    }
  };
  const reload = debounce(() => load().catch(report), 200);
  const off = onEvent((event) => {
    if (event === 'device' || event === 'run' || event === 'refresh') reload();
  });
  // Checks come every minute and raise no event: read them again every 15 s.
  const poll = setInterval(() => loadHealth().catch(report), 15000);
  load().catch(report);
  return () => { off(); clearInterval(poll); };
};

pages.runs = (root, params) => {
  const filters = {serial: params.get('serial') || '', package: params.get('package') || '',
                   status: params.get('status') || ''};
  const input = (name) => h('input', {name, value: filters[name], placeholder: name});
  const status = h('select', {name: 'status'},
    ['', 'queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted'].map(
      (s) => h('option', {value: s, selected: s === filters.status}, s || 'any status')));
  const form = h('form', {class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
    location.hash = `#/runs${q.toString() ? '?' + q : ''}`;
  }}, input('serial'), input('package'), status, h('button', {type: 'submit'}, 'Filter'));

  const newRun = h('form', {class: 'new-run', onsubmit: async (e) => {
    e.preventDefault();
    const f = new FormData(newRun);
    const body = {serial: f.get('serial'), package: f.get('package'), mode: f.get('mode'),
                  iterations: Number(f.get('iterations'))};
    if (f.get('activity')) body.activity = f.get('activity');
    try {
      const run = await api('/api/v1/runs', {method: 'POST', body});
      showError('');
      location.hash = `#/runs/${run.id}`;
    } catch (err) {
      report(err);
    }
  }}, h('strong', {}, 'New run '),
    h('input', {name: 'serial', placeholder: 'serial', required: true}),
    h('input', {name: 'package', placeholder: 'package', required: true}),
    h('input', {name: 'activity', placeholder: 'activity (optional)'}),
    h('select', {name: 'mode'}, ['cold', 'warm', 'hot'].map((m) => h('option', {value: m}, m))),
    h('input', {name: 'iterations', type: 'number', min: 1, value: 10, class: 'narrow'}),
    h('button', {type: 'submit'}, 'Start'));

  const table = h('table', {id: 'runs'},
    h('thead', {}, h('tr', {}, ['run', 'status', 'progress', 'device', 'model', 'package', 'mode',
                                'iterations', 'created', 'finished'].map((t) => h('th', {}, t)))),
    h('tbody'));
  const more = h('button', {hidden: true}, 'Older runs');
  root.append(h('h2', {}, 'Runs'), form, newRun, table, more);

  let cursor = null;
  const query = () => {
    const q = new URLSearchParams({limit: '50'});
    for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
    return q;
  };
  const row = (run) => h('tr', {'data-run-id': run.id},
    h('td', {}, h('a', {href: `#/runs/${run.id}`}, `#${run.id}`)),
    h('td', {class: 'status-cell'}, statusBadge(run.status)),
    h('td', {class: 'progress-cell'},
      run.status === 'running' || run.status === 'queued' ? progressText(state.progress.get(run.id)) : ''),
    h('td', {}, run.serial), h('td', {}, run.device_model ?? '—'),
    h('td', {}, h('a', {href: `#/trend?package=${encodeURIComponent(run.package)}`}, run.package)),
    h('td', {}, run.mode), h('td', {}, run.iterations), h('td', {}, fmtTime(run.created_at)),
    h('td', {}, fmtTime(run.finished_at)));
  const load = async (append) => {
    const q = query();
    if (append && cursor) q.set('cursor', cursor);
    const page = await api(`/api/v1/runs?${q}`);
    await fetchProgress(page.runs);
    const rows = page.runs.map(row);
    if (append) table.tBodies[0].append(...rows);
    else table.tBodies[0].replaceChildren(...rows);
    cursor = page.next_cursor;
    more.hidden = !cursor;
  };
  more.addEventListener('click', () => load(true).catch(report));
  const reload = debounce(() => load(false).catch(report), 200);
  const off = onEvent((event, data) => {
    if (event === 'refresh') return reload();
    if (event !== 'run') return;
    const tr = table.querySelector(`tr[data-run-id="${data.id}"]`);
    if (!tr) return reload();  // a new run: the list decides whether it matches the filters
    if (filters.status && data.status !== filters.status) return reload();
    tr.querySelector('.status-cell').replaceChildren(statusBadge(data.status));
    const active = data.status === 'running' || data.status === 'queued';
    tr.querySelector('.progress-cell').textContent = active ? progressText(data.progress) : '';
    if (!active) reload();  // finished_at
  });
  load(false).catch(report);
  return off;
};

// Histogram bins over values: [{label, count}].
// The conditions a run measured under (its preflight, orchestrator/run/compilation.h): the
// compilation state reached, what was asked and what the phone had before, and the warnings.
function conditions(preflight) {
  if (!preflight || typeof preflight !== 'object') return [];
  const out = [];
  const c = preflight.compilation;
  if (c) {
    const notes = [`asked ${c.requested}`];
    if (c.before && c.before !== c.reached) notes.push(`was ${c.before}`);
    if (c.changed_during_run) notes.push(`became ${c.after} during the run`);
    out.push(h('p', {class: 'conditions', id: 'compilation'},
      `compilation ${c.reached ?? 'unknown'} (${notes.join(', ')})`));
  }
  const b = preflight.build;
  if (b) {
    out.push(h('p', {class: 'conditions', id: 'build'},
      `build ${b.id} (versionCode ${b.version_code}, sha256 ${String(b.sha256).slice(0, 12)}) installed over ${b.install_method} in ${b.install_ms} ms`));
  }
  for (const w of preflight.warnings || []) out.push(h('p', {class: 'warning'}, w));
  return out;
}

// A side-by-side run (issue 14 §4): each build's launches and the verdict of one against the
// other (GET /api/v1/runs/{id}/compare), with the conditions it was judged in.
function sideBySide(run, compare) {
  const sbs = run.side_by_side;
  if (!sbs) return [];
  const row = (name, arm) => {
    const d = arm.summary?.displayed_ms;
    return h('tr', {}, h('td', {}, name), h('td', {}, `build ${arm.build_id}`),
      h('td', {}, `${arm.launches.valid}`), h('td', {}, fmtNum(d?.median, 1)),
      h('td', {}, fmtNum(d?.p90, 1)), h('td', {}, fmtNum(d?.stddev, 1)));
  };
  const out = [h('table', {class: 'summary', id: 'side-by-side'},
    h('tr', {}, ['side by side', 'build', 'valid launches', 'median', 'p90', 'stddev'].map((t) => h('th', {}, t))),
    row('baseline', sbs.baseline), row('candidate', sbs.candidate))];
  if (compare) {
    const pct = compare.delta_percent === null ? '' : ` (${compare.delta_percent > 0 ? '+' : ''}${fmtNum(compare.delta_percent, 1)} %)`;
    const c = compare.comparable?.compilation;
    out.push(h('p', {id: 'side-by-side-verdict'}, h('span', {class: `verdict ${compare.verdict}`}, compare.verdict),
      ` build ${sbs.candidate.build_id} against build ${sbs.baseline.build_id}: median ${fmtNum(compare.baseline_median_ms, 1)} → ${fmtNum(compare.candidate_median_ms, 1)} ms${pct}`,
      c ? ` · compilation ${c.baseline === c.candidate ? c.baseline : `${c.baseline} / ${c.candidate}`}` : ''));
    if (compare.reason) out.push(h('p', {class: 'hint'}, compare.reason));
  }
  return out;
}

function histogram(values) {
  if (values.length === 0) return {labels: [], counts: []};
  const min = Math.min(...values);
  const max = Math.max(...values);
  const bins = Math.max(1, Math.min(20, Math.ceil(Math.sqrt(values.length))));
  const width = Math.max(1, Math.ceil((max - min + 1) / bins));
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor((v - min) / width))] += 1;
  const labels = counts.map((_, i) => `${min + i * width}–${min + (i + 1) * width - 1}`);
  return {labels, counts};
}

function looperTable(id, rows, key, title) {
  const sorted = [...rows].sort((a, b) => (b[key] ?? 0) - (a[key] ?? 0)).slice(0, 25);
  const ms = (us) => (us === undefined || us === null ? '—' : (us / 1000).toFixed(1));
  return h('section', {class: 'looper'}, h('h3', {}, title),
    h('table', {id},
      h('thead', {}, h('tr', {}, ['handler', 'message', 'thread', 'count', 'CPU total ms',
                                  'CPU max ms', 'latency max ms', 'delay max ms'].map((t) => h('th', {}, t)))),
      h('tbody', {}, sorted.map((r) => {
        const max = (r.max_latency_micros ?? 0) / 1000;
        const slow = max > VERY_SLOW_MS ? 'very-slow' : max > SLOW_MS ? 'slow' : null;
        return h('tr', {class: slow, title: slow ? `max latency over ${slow === 'slow' ? '700 ms' : '5 s'}` : null},
          h('td', {}, r.handler_class ?? '—'), h('td', {}, r.message_name ?? '—'),
          h('td', {}, r.thread_name ?? '—'), h('td', {}, r.message_count ?? '—'),
          h('td', {}, ms(r.total_cpu_micros)), h('td', {}, ms(r.max_cpu_micros)),
          h('td', {}, ms(r.max_latency_micros), slow ? h('span', {class: 'mark'}, slow === 'slow' ? ' ⚠' : ' ⛔') : null),
          h('td', {}, r.max_delay_millis ?? '—'));
      }))));
}

// A run's frames (GET /runs/ID/frames): every counted frame's time (FrameCompleted −
// IntendedVsync of a row with Flags 0, the frames droidlab's figures are over), iteration after
// iteration, with the refresh period as a line; and per iteration hwui's and droidlab's figures.
function frameTimes(iterations) {
  const points = [];
  for (const it of iterations) {
    const col = (name) => it.columns.indexOf(name);
    const [flags, intended, completed] = [col('Flags'), col('IntendedVsync'), col('FrameCompleted')];
    if (flags < 0 || intended < 0 || completed < 0) continue;
    for (const row of it.rows) {
      if (row[flags] !== 0 || row[completed] <= row[intended]) continue;
      points.push({x: points.length + 1, y: (row[completed] - row[intended]) / 1e6, iteration: it.iteration});
    }
  }
  // One phone, one display: the first iteration's period stands for the run's.
  const period = iterations.length ? iterations[0].refresh_period_ms : 1000 / 60;
  const line = points.length ? [{x: 1, y: period}, {x: points.length, y: period}] : [];
  return {datasets: [
    {label: 'frame time (ms)', data: points, borderColor: COLORS[0], backgroundColor: COLORS[0],
     showLine: false, pointRadius: 2},
    {label: `refresh period ${period.toFixed(1)} ms`, data: line, borderColor: COLORS[3],
     backgroundColor: COLORS[3], pointRadius: 0, borderDash: [6, 4], showLine: true, refresh: true},
  ]};
}

function framesTable(iterations) {
  if (!iterations.length) return h('p', {class: 'hint'}, 'no frames (the phone answered no dumpsys gfxinfo)');
  const pct = (p) => (p === null || p === undefined ? '—' : fmtNum(p, 1));
  return h('table', {id: 'frames'},
    h('tr', {}, ['iteration', 'frames (hwui)', 'janky (hwui)', 'counted', 'p50', 'p90', 'p99',
                 '> 16.7 ms', '> 33 ms', 'Matrix dropped', 'PerfDog jank'].map((t) => h('th', {}, t))),
    ...iterations.map((it) => h('tr', {'data-iteration': it.iteration},
      h('td', {}, it.iteration), h('td', {}, it.total_frames ?? '—'), h('td', {}, it.janky_frames ?? '—'),
      h('td', {}, it.counted), h('td', {}, pct(it.percentiles_ms['50'])), h('td', {}, pct(it.percentiles_ms['90'])),
      h('td', {}, pct(it.percentiles_ms['99'])), h('td', {}, it.over_16_7ms), h('td', {}, it.over_33ms),
      h('td', {}, it.matrix.dropped_frames), h('td', {}, `${it.jank} (${it.big_jank} big)`))));
}

// GET /runs/{id}/faults: an ANR or crash makes its iteration invalid; a slow message does not.
function faultsTable(faults) {
  if (!faults.length) return h('p', {class: 'hint'}, 'no fault and no slow message of the app');
  return h('table', {id: 'faults'},
    h('tr', {}, ['iteration', 'kind', 'pid', 'took', 'reason', 'trace'].map((t) => h('th', {}, t))),
    ...faults.map((f) => h('tr', {'data-kind': f.kind, class: f.kind.startsWith('slow') ? 'slow' : 'very-slow'},
      h('td', {}, f.iteration), h('td', {}, f.kind), h('td', {}, f.pid ?? '—'),
      h('td', {}, f.duration_ms === null || f.duration_ms === undefined ? '—' : `${f.duration_ms} ms`),
      h('td', {}, f.reason || f.process_name), h('td', {}, (f.stack || []).slice(0, 3).join(' ⏎ ')))));
}

// GET /runs/{id}/memory: each iteration's dumpsys meminfo, and the leak check over them.
function memoryTable(memory) {
  if (!memory.iterations.length) return h('p', {class: 'hint'}, 'no memory (the phone answered no dumpsys meminfo)');
  const kb = (v) => (v === null || v === undefined ? '—' : `${v}`);
  const leak = memory.leak_suspected;
  return h('div', {},
    leak ? h('p', {class: 'error', id: 'leak'},
      `suspected leak: ${leak.metric} grew from ${leak.from} to ${leak.to} (${fmtNum(leak.slope_per_iteration, 2)} per iteration)`)
      : h('p', {class: 'hint', id: 'leak'}, `leak check: ${memory.leak_check ?? '—'}`),
    h('table', {id: 'memory'},
      h('tr', {}, ['iteration', 'pid', 'total PSS KiB', 'Java heap', 'native heap', 'graphics', 'activities',
                   'views', 'ViewRootImpl'].map((t) => h('th', {}, t))),
      ...memory.iterations.map((m) => h('tr', {'data-iteration': m.iteration},
        h('td', {}, m.iteration), h('td', {}, m.pid), h('td', {}, kb(m.total_pss_kb)), h('td', {}, kb(m.java_heap_kb)),
        h('td', {}, kb(m.native_heap_kb)), h('td', {}, kb(m.graphics_kb)), h('td', {}, kb(m.objects.activities)),
        h('td', {}, kb(m.objects.views)), h('td', {}, kb(m.objects.view_root_impl))))));
}

pages.run = (root, params, id) => {
  const head = h('div', {class: 'run-head'});
  const looper = h('div', {class: 'looper-box'});
  const frames = h('div', {class: 'frames-box'});
  const faults = h('div', {class: 'faults-box'});
  const memory = h('div', {class: 'memory-box'});
  root.append(h('h2', {}, `Run #${id}`), head,
    h('div', {class: 'charts'},
      chartBox('launches', 'Launch time per iteration (ms)'),
      chartBox('distribution', 'Distribution of displayed_ms'),
      chartBox('phases', 'Phases: intent → fork → displayed (ms)'),
      chartBox('process', 'The app process: CPU % and RSS over the run'),
      chartBox('frames', 'Frame time, every counted frame of every iteration (ms)')),
    frames, faults, memory, looper);

  const launchData = (launches) => {
    const it = launches.map((l) => l.iteration);
    return {
      labels: it,
      datasets: [
        {label: 'displayed_ms', data: launches.map((l) => l.displayed_ms), borderColor: COLORS[0],
         backgroundColor: COLORS[0],
         // A warm-up is drawn hollow (triangle), an invalid launch as a cross: neither counts.
         pointStyle: launches.map((l) => (l.warmup ? 'triangle' : l.valid ? 'circle' : 'crossRot')),
         pointRadius: launches.map((l) => (l.warmup ? 5 : l.valid ? 3 : 7))},
        {label: 'fully_drawn_ms', data: launches.map((l) => l.fully_drawn_ms), borderColor: COLORS[1],
         backgroundColor: COLORS[1], hidden: launches.every((l) => l.fully_drawn_ms === null)},
        {label: 'total_time_ms (am start -W)', data: launches.map((l) => l.total_time_ms),
         borderColor: COLORS[2], backgroundColor: COLORS[2]},
      ],
    };
  };
  const distributionData = (launches) => {
    const hist = histogram(launches.filter((l) => l.valid && !l.warmup && l.displayed_ms !== null)
                               .map((l) => l.displayed_ms));
    return {labels: hist.labels, datasets: [{label: 'valid launches', data: hist.counts, backgroundColor: COLORS[0]}]};
  };
  const phaseData = (launches) => ({
    labels: launches.map((l) => l.iteration),
    datasets: [
      {label: 'intent → fork', data: launches.map((l) => l.intent_to_fork_ms), backgroundColor: COLORS[4]},
      {label: 'fork → displayed', data: launches.map((l) => l.fork_to_displayed_ms), backgroundColor: COLORS[2]},
    ],
  });
  const processData = (samples) => {
    const t0 = samples.length ? samples[0].t_ms : 0;
    return {datasets: [
      {label: 'CPU %', data: samples.map((s) => ({x: (s.t_ms - t0) / 1000, y: s.cpu_pct})),
       borderColor: COLORS[3], backgroundColor: COLORS[3], yAxisID: 'cpu', pointRadius: 1},
      {label: 'RSS MiB', data: samples.map((s) => ({x: (s.t_ms - t0) / 1000, y: s.rss_kb / 1024})),
       borderColor: COLORS[0], backgroundColor: COLORS[0], yAxisID: 'rss', pointRadius: 1},
    ]};
  };

  chart('launches', $('#chart-launches', root), {type: 'line', data: launchData([]),
    options: {scales: {x: {title: {display: true, text: 'iteration'}}, y: {beginAtZero: true}}}});
  chart('distribution', $('#chart-distribution', root), {type: 'bar', data: distributionData([]),
    options: {scales: {x: {title: {display: true, text: 'ms'}}, y: {beginAtZero: true, ticks: {precision: 0}}}}});
  chart('phases', $('#chart-phases', root), {type: 'bar', data: phaseData([]),
    options: {scales: {x: {stacked: true, title: {display: true, text: 'iteration'}}, y: {stacked: true}}}});
  chart('frames', $('#chart-frames', root), {type: 'scatter', data: frameTimes([]),
    options: {scales: {x: {type: 'linear', title: {display: true, text: 'frame'}},
                       y: {beginAtZero: true, title: {display: true, text: 'ms'}}}}});
  chart('process', $('#chart-process', root), {type: 'line', data: processData([]),
    options: {scales: {x: {type: 'linear', title: {display: true, text: 's since the first sample'}},
                       cpu: {type: 'linear', position: 'left', beginAtZero: true, title: {display: true, text: 'CPU %'}},
                       rss: {type: 'linear', position: 'right', beginAtZero: true, grid: {drawOnChartArea: false},
                             title: {display: true, text: 'RSS MiB'}}}}});

  let onlyApp = true;
  const load = async () => {
    const [run, launches, looperStats, samples, frameRows, faultRows, memoryRows] = await Promise.all([
      api(`/api/v1/runs/${id}`), apiRows(`/api/v1/runs/${id}/launches`, 'launches'),
      apiRows(`/api/v1/runs/${id}/looper-stats`, 'entries'),
      apiRows(`/api/v1/runs/${id}/proc-samples`, 'samples'),
      api(`/api/v1/runs/${id}/frames`), api(`/api/v1/runs/${id}/faults`), api(`/api/v1/runs/${id}/memory`)]);
    const s = run.summary && run.summary.displayed_ms;
    const compare = run.side_by_side && run.status === 'succeeded'
      ? await api(`/api/v1/runs/${id}/compare`).catch(() => null) : null;
    const progress = run.progress || state.progress.get(run.id);
    const active = run.status === 'queued' || run.status === 'running';
    head.replaceChildren(...[
      h('p', {}, statusBadge(run.status), ' ', progressText(active ? progress : null), ' ',
        h('a', {href: `#/trend?package=${encodeURIComponent(run.package)}`}, run.package),
        ` ${run.activity ?? ''} · ${run.mode} · ${run.iterations} iterations on ${run.serial} (${run.device_model ?? 'unknown model'})`,
        active ? h('button', {class: 'cancel', onclick: () => api(`/api/v1/runs/${id}`, {method: 'DELETE'}).catch(report)}, 'Cancel') : null),
      h('p', {class: 'times'}, `created ${fmtTime(run.created_at)} · started ${fmtTime(run.started_at)} · finished ${fmtTime(run.finished_at)}`),
      run.error ? h('p', {class: 'error'}, run.error) : null,
      ...conditions(run.preflight),
      ...sideBySide(run, compare),
      s ? h('table', {class: 'summary', id: 'summary'},
        h('tr', {}, ['valid launches', 'min', 'median', 'mean', 'p90', 'max', 'stddev', 'median 95% CI'].map((t) => h('th', {}, t))),
        h('tr', {}, h('td', {}, `${s.count} / ${run.launches.recorded}`), h('td', {}, fmtNum(s.min)),
          h('td', {}, fmtNum(s.median, 1)), h('td', {}, fmtNum(s.mean, 1)), h('td', {}, fmtNum(s.p90, 1)),
          h('td', {}, fmtNum(s.max)), h('td', {}, fmtNum(s.stddev, 1)),
          h('td', {}, s.median_ci ? `${fmtNum(s.median_ci.lower, 1)}–${fmtNum(s.median_ci.upper, 1)}` : '—')))
        : h('p', {}, 'no valid launch yet'),
      jankSummary(run.summary)].filter(Boolean));
    updateChart('launches', launchData(launches.launches));
    updateChart('distribution', distributionData(launches.launches));
    updateChart('phases', phaseData(launches.launches));
    updateChart('process', processData(samples.samples));
    updateChart('frames', frameTimes(frameRows.iterations));
    frames.replaceChildren(h('h3', {}, 'Frames per iteration (dumpsys gfxinfo framestats)'),
      framesTable(frameRows.iterations));
    faults.replaceChildren(h('h3', {}, 'Faults and slow messages per iteration (logcat)'),
      faultsTable(faultRows.faults));
    memory.replaceChildren(h('h3', {}, 'Memory per iteration (dumpsys meminfo at its end)'),
      memoryTable(memoryRows));
    const appRows = looperStats.entries.filter((r) => r.package === run.package);
    const rows = onlyApp && appRows.length ? appRows : looperStats.entries;
    const toggle = h('label', {}, h('input', {type: 'checkbox', checked: onlyApp, onchange: (e) => {
      onlyApp = e.target.checked;
      reload();
    }}), ` only ${run.package}'s rows (${appRows.length} of ${looperStats.entries.length})`);
    looper.replaceChildren(h('h3', {}, 'Looper stats (system_server, the run\'s window)'), toggle,
      h('p', {class: 'hint'}, h('span', {class: 'slow legend'}, 'max latency > 700 ms'), ' ',
        h('span', {class: 'very-slow legend'}, 'max latency > 5 s')),
      h('div', {class: 'looper-tables'},
        looperTable('looper-by-cpu', rows, 'total_cpu_micros', 'By CPU'),
        looperTable('looper-by-latency', rows, 'max_latency_micros', 'By max latency')));
  };
  const reload = debounce(() => load().catch(report), 300);
  const off = onEvent((event, data) => {
    if (event === 'refresh' || (event === 'run' && String(data.id) === String(id))) reload();
  });
  load().catch(report);
  return off;
};

// A colour with alpha, for a series' CI band.
function translucent(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const SERIES_METRICS = ['displayed_ms', 'fully_drawn_ms', 'total_time_ms', 'frame_p90_ms', 'frame_p99_ms', 'janky_pct', 'pss_kb'];

// The run's jank figures (GET /runs/{id} summary): each over the counted iterations' own figure.
const JANK_METRICS = [['frame_p90_ms', 'frame time p90, ms'], ['frame_p99_ms', 'frame time p99, ms'],
                      ['janky_pct', 'janky frames (hwui), %'], ['pss_kb', 'total PSS at its end, KiB']];
function jankSummary(summary) {
  const rows = JANK_METRICS.filter(([key]) => summary?.[key]);
  if (!rows.length) return null;
  return h('table', {class: 'summary', id: 'jank-summary'},
    h('tr', {}, ['per iteration', 'iterations', 'median', 'p90', 'max', 'median 95% CI'].map((t) => h('th', {}, t))),
    ...rows.map(([key, label]) => {
      const s = summary[key];
      return h('tr', {'data-metric': key}, h('td', {}, label), h('td', {}, `${s.count}`),
        h('td', {}, fmtNum(s.median, 1)), h('td', {}, fmtNum(s.p90, 1)), h('td', {}, fmtNum(s.max, 1)),
        h('td', {}, s.median_ci ? `${fmtNum(s.median_ci.lower, 1)}–${fmtNum(s.median_ci.upper, 1)}` : '—'));
    }));
}

// The series of a package (GET /packages/PKG/series lists them; one GET /series each): per device
// model and mode, each run's median with its CI as a band, and the change points the daemon
// found as marks with what explains them.
pages.trend = (root, params) => {
  const pkg = params.get('package') || '';
  const metric = SERIES_METRICS.includes(params.get('metric')) ? params.get('metric') : 'displayed_ms';
  const form = h('form', {class: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const data = new FormData(form);
    location.hash = `#/trend?package=${encodeURIComponent(data.get('package'))}` +
                    `&metric=${encodeURIComponent(data.get('metric'))}`;
  }}, h('input', {name: 'package', value: pkg, placeholder: 'package', required: true}),
    h('select', {name: 'metric'}, SERIES_METRICS.map((m) => h('option', {value: m, selected: m === metric}, m))),
    h('button', {type: 'submit'}, 'Show'));
  const table = h('table', {id: 'trend'});
  const changes = h('table', {id: 'trend-changes'});
  root.append(h('h2', {}, 'Trends'), form);
  if (!pkg) {
    root.append(h('p', {}, 'A package\'s runs as series, one per device model and launch mode: each run\'s ' +
                         'median with its confidence interval, and the change points found in them ' +
                         '(GET /api/v1/series).'));
    return null;
  }
  root.append(chartBox('trend', `${pkg}: median ${metric} per run, 95 % CI band`),
              h('h3', {}, 'Change points'), changes, h('h3', {}, 'Runs'), table);
  chart('trend', $('#chart-trend', root), {type: 'line', data: {datasets: []},
    options: {parsing: false, scales: {x: {type: 'linear', ticks: {callback(v) { return this.max - this.min < 3600e3 ? fmtTime(v).slice(11) : fmtTime(v).slice(5, 16); }}},
                                       y: {beginAtZero: true, title: {display: true, text: 'ms'}}},
              plugins: {legend: {labels: {filter: (item, data) => !data.datasets[item.datasetIndex].band}},
                        tooltip: {filter: (item) => !item.dataset.band,
                                  callbacks: {label: (c) => (c.raw.hot !== undefined
                                    ? `#${c.raw.id}: ${c.raw.hot} of ${c.raw.count} launches measured too hot, left out of the history`
                                    : c.raw.change
                                    ? `change at #${c.raw.id}: ${fmtNum(c.raw.change.delta_pct, 1)} %` +
                                      (c.raw.change.explained_by?.length ? ` (${c.raw.change.explained_by.join(', ')})` : '')
                                    : `#${c.raw.id} ${c.raw.y} ms [${fmtNum(c.raw.ci_low, 1)}, ${fmtNum(c.raw.ci_high, 1)}]`)}}}}});
  const load = async () => {
    const index = await api(`/api/v1/packages/${encodeURIComponent(pkg)}/series`);
    const keys = index.series.filter((k) => k.metric === metric);
    // One request per series.
    const series = await Promise.all(keys.map((k) => api(
      `/api/v1/series?package=${encodeURIComponent(pkg)}&model=${encodeURIComponent(k.model ?? '')}` +
      `&mode=${encodeURIComponent(k.mode)}&metric=${encodeURIComponent(metric)}`)));
    state.series = series;
    const datasets = [];
    series.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      const label = `${s.model ?? 'unknown model'} · ${s.mode}`;
      const at = (p, y) => ({x: p.t, y, id: p.run_id, ci_low: p.ci_low, ci_high: p.ci_high});
      const withCi = s.points.filter((p) => p.ci_low !== null && p.ci_high !== null);
      // The band: the CI's lower edge, then its upper edge filled down to it.
      datasets.push({label: `${label} CI low`, band: true, data: withCi.map((p) => at(p, p.ci_low)),
                     borderWidth: 0, pointRadius: 0, fill: false});
      datasets.push({label: `${label} CI`, band: true, data: withCi.map((p) => at(p, p.ci_high)),
                     borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: translucent(color, 0.2)});
      datasets.push({label, series: i, data: s.points.map((p) => at(p, p.median)),
                     borderColor: color, backgroundColor: color, pointRadius: 3});
      // Nights measured too hot (out_of_range): still drawn, crossed out, since the history's
      // change points and verdicts leave them out.
      const hot = s.points.filter((p) => p.out_of_range);
      if (hot.length) {
        datasets.push({label: `${label} measured too hot`, series: i, type: 'scatter', hot: true,
                       data: hot.map((p) => ({...at(p, p.median), hot: p.hot_launches, count: p.count})),
                       pointStyle: 'crossRot', pointRadius: 8, borderWidth: 2, borderColor: '#ff7f0e'});
      }
      if (s.change_points.length) {
        datasets.push({label: `${label} change points`, series: i, type: 'scatter',
                       data: s.change_points.map((c) => ({x: c.t, y: c.after, id: c.run_id, change: c})),
                       pointStyle: 'triangle', pointRadius: 9, borderColor: '#d62728', backgroundColor: '#d62728'});
      }
    });
    updateChart('trend', {datasets});
    const allChanges = series.flatMap((s) => s.change_points.map((c) => ({s, c})));
    changes.replaceChildren(
      h('tr', {}, ['run', 'model · mode', 'when', 'before', 'after', 'Δ %', 'p', 'explained by'].map((t) => h('th', {}, t))),
      ...(allChanges.length ? allChanges.map(({s, c}) => h('tr', {class: 'change-point'},
        h('td', {}, h('a', {href: `#/runs/${c.run_id}`}, `#${c.run_id}`)),
        h('td', {}, `${s.model ?? 'unknown model'} · ${s.mode}`), h('td', {}, fmtTime(c.t)),
        h('td', {}, fmtNum(c.before, 1)), h('td', {}, fmtNum(c.after, 1)), h('td', {}, fmtNum(c.delta_pct, 1)),
        h('td', {}, c.p === null || c.p === undefined ? '—' : Number(c.p).toPrecision(2)),
        h('td', {}, (c.explained_by || []).join(', ') || 'the app')))
        : [h('tr', {}, h('td', {colspan: 8}, 'none found'))]));
    // The newest runs first, across the series.
    const rows = series.flatMap((s) => s.points.map((p) => ({s, p}))).sort((a, b) => b.p.t - a.p.t).slice(0, 100);
    table.replaceChildren(
      h('tr', {}, ['run', 'model · mode', 'created', 'median ms', '95 % CI', 'p90', 'launches', 'too hot', 'versionCode', 'compilation', 'fingerprint']
        .map((t) => h('th', {}, t))),
      ...rows.map(({s, p}) => h('tr', p.out_of_range
        ? {class: 'out-of-range', title: 'more than a quarter of its launches were measured too hot: left out of the change points and verdicts'}
        : {},
        h('td', {}, h('a', {href: `#/runs/${p.run_id}`}, `#${p.run_id}`)),
        h('td', {}, `${s.model ?? 'unknown model'} · ${s.mode}`), h('td', {}, fmtTime(p.t)),
        h('td', {}, fmtNum(p.median, 1)),
        h('td', {}, p.ci_low === null ? '—' : `${fmtNum(p.ci_low, 1)} – ${fmtNum(p.ci_high, 1)}`),
        h('td', {}, fmtNum(p.p90, 1)), h('td', {}, p.count), h('td', {class: 'hot'}, p.hot_launches ?? '—'),
        h('td', {}, p.version_code ?? '—'),
        h('td', {}, p.compilation ?? '—'), h('td', {class: 'fingerprint'}, p.fingerprint ?? '—'))));
  };
  const reload = debounce(() => load().catch(report), 1000);
  const off = onEvent((event, data) => {
    if (event === 'refresh' || (event === 'run' && data.status === 'succeeded')) reload();
  });
  load().catch(report);
  return off;
};

pages.schedules = (root) => {
  const table = h('table', {id: 'schedules'});
  const form = h('form', {class: 'new-run', onsubmit: async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const body = {cron: f.get('cron'), timezone: f.get('timezone') || 'UTC',
                  run: {serial: f.get('serial'), package: f.get('package'), mode: f.get('mode'),
                        iterations: Number(f.get('iterations'))}};
    try {
      await api('/api/v1/schedules', {method: 'POST', body});
      showError('');
      form.reset();
      load().catch(report);
    } catch (err) {
      report(err);
    }
  }}, h('strong', {}, 'New schedule '),
    h('input', {name: 'cron', placeholder: 'cron: 0 2 * * *', required: true}),
    h('input', {name: 'timezone', placeholder: 'timezone (UTC)'}),
    h('input', {name: 'serial', placeholder: 'serial', required: true}),
    h('input', {name: 'package', placeholder: 'package', required: true}),
    h('select', {name: 'mode'}, ['cold', 'warm', 'hot'].map((m) => h('option', {value: m}, m))),
    h('input', {name: 'iterations', type: 'number', min: 1, value: 20, class: 'narrow'}),
    h('button', {type: 'submit'}, 'Add'));
  root.append(h('h2', {}, 'Schedules'), form, table);
  const load = async () => {
    const body = await api('/api/v1/schedules');
    table.replaceChildren(
      h('tr', {}, ['id', 'cron', 'timezone', 'run', 'enabled', 'last fired', 'created', ''].map((t) => h('th', {}, t))),
      ...body.schedules.map((s) => h('tr', {},
        h('td', {}, s.id), h('td', {}, h('code', {}, s.cron)), h('td', {}, s.timezone),
        h('td', {}, `${s.run.package} ${s.run.mode} ×${s.run.iterations} on ${s.run.serial}`),
        h('td', {}, s.enabled ? 'yes' : 'no'), h('td', {}, fmtTime(s.last_fired_at)), h('td', {}, fmtTime(s.created_at)),
        h('td', {}, h('button', {onclick: async () => {
          await api(`/api/v1/schedules/${s.id}`, {method: 'DELETE'}).catch(report);
          load().catch(report);
        }}, 'Delete')))));
  };
  load().catch(report);
  return null;
};

// The builds under test (POST /api/v1/builds): upload an APK (sent as the body, streamed by the
// browser) or an app's files at once (a base APK, its splits, a .dm: sent as multipart/form-data),
// list with their files, delete.
pages.builds = (root) => {
  const table = h('table', {id: 'builds'});
  const input = h('input', {type: 'file', name: 'apk', accept: '.apk,.dm', multiple: true, required: true});
  const form = h('form', {class: 'new-run', id: 'build-upload', onsubmit: async (e) => {
    e.preventDefault();
    const file = input.files[0];
    if (!file) return;
    try {
      if (input.files.length > 1) {
        const parts = new FormData();
        for (const f of input.files) parts.append('file', f, f.name);
        await api('/api/v1/builds', {method: 'POST', body: parts});
      } else {
        await api('/api/v1/builds', {method: 'POST', body: file, headers: {
          'Content-Type': 'application/vnd.android.package-archive',
          'X-File-Name': file.name.replace(/[^\x20-\x7e]/g, '_')}});
      }
      showError('');
      form.reset();
      load().catch(report);
    } catch (err) {
      report(err);
    }
  }}, h('strong', {}, 'Upload an APK '), input, h('button', {type: 'submit'}, 'Upload'));
  root.append(h('h2', {}, 'Builds'), form, table);
  const load = async () => {
    const body = await api('/api/v1/builds');
    table.replaceChildren(
      h('tr', {}, ['id', 'package', 'version', 'versionCode', 'SDK', 'files', 'size', 'sha256', 'signature', 'added', ''].map((t) => h('th', {}, t))),
      ...body.builds.map((b) => h('tr', {'data-build-id': b.id},
        h('td', {}, b.id), h('td', {}, b.package), h('td', {}, b.version_name ?? ''),
        h('td', {}, b.version_code), h('td', {}, `${b.min_sdk ?? '?'}–${b.target_sdk ?? '?'}`),
        h('td', {title: (b.files ?? []).map((f) => f.name).join(', ')},
          (b.files ?? []).map((f) => (f.kind === 'split' ? f.split : f.kind)).join(', ')),
        h('td', {}, b.size >= 1e6 ? `${(b.size / 1e6).toFixed(1)} MB` : `${(b.size / 1e3).toFixed(1)} kB`), h('td', {}, h('code', {title: b.sha256}, b.sha256.slice(0, 12))),
        h('td', {}, b.signature ? h('code', {}, b.signature) : 'unsigned'),
        h('td', {}, fmtTime(b.created_at)),
        h('td', {}, h('button', {onclick: async () => {
          await api(`/api/v1/builds/${b.id}`, {method: 'DELETE'}).catch(report);
          load().catch(report);
        }}, 'Delete')))));
  };
  load().catch(report);
  return null;
};

function report(err) {
  if (err instanceof Unauthorized) return;
  console.error(err);
  showError(err.message);
}

// ---- Routing
function route() {
  const hash = location.hash.replace(/^#/, '') || '/devices';
  const [path, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean);
  let name = parts[0] || 'devices';
  let arg = null;
  if (name === 'runs' && parts[1]) {
    name = 'run';
    arg = parts[1];
  } else if (name === 'devices' && parts[1]) {
    name = 'device';
    arg = decodeURIComponent(parts[1]);
  }
  if (!pages[name]) name = 'devices';
  if (state.page && state.page.cleanup) state.page.cleanup();
  for (const c of Object.values(state.charts)) c.destroy();
  state.charts = {};
  showError('');
  const root = h('div', {class: `page page-${name}`});
  main().replaceChildren(root);
  document.querySelectorAll('nav a').forEach((a) => {
    const nav = {run: 'runs', device: 'devices'};
    a.classList.toggle('active', a.dataset.page === (nav[name] ?? name));
  });
  state.page = {name, cleanup: pages[name](root, params, arg)};
}

document.addEventListener('DOMContentLoaded', () => {
  $('#token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token-input').value);
    $('#token-form').hidden = true;
    window.dispatchEvent(new Event('droidlab-token'));
    route();
  });
  window.addEventListener('hashchange', route);
  route();
  streamEvents();
});
