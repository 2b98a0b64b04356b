// The dashboard in headless Chromium, against a real lab on this machine:
//   the real adb server (Debian's adb) on a private port, two droidlab-devsim devices connected to
//   it with `adb connect`, and the real daemon (`droidlab serve --listen 127.0.0.1:0`) on a fresh
//   database. Then, in Debian's Chromium driven over CDP by playwright-core:
//   1. the devices page lists both devsim devices (model, SDK), and the open regressions (none on a
//      fresh lab; one given by the alerts answer, shown and resolved from the page);
//   2. a run POSTed to the API appears on the runs page and reaches `succeeded` live, through the
//      event stream, with no reload (a marker set in the page before the POST survives);
//   3. its run page draws its charts (the frames of every iteration among them, with the refresh
//      period as a line): every launch is a data point, and the launch chart's canvas
//      holds pixels of the line's colour; the looper-stats tables have rows, sorted, and slow
//      ones (> 700 ms, > 5 s) marked;
//   4. the trend page draws the package's series from GET /series, one request per series (the
//      median per run, its CI as a band), redrawn live when a second run succeeds, and a change
//      point as a mark with its explanation (the series answer given one: two runs are too few
//      for a real one), and a night measured too hot crossed out and shaded (likewise given);
//      a schedule added by its form;
//      an APK uploaded on the builds page, a run that installs it, and the device's page showing it;
//   5. with DROIDLAB_TOKEN set, the page asks for the token, then lists devices and goes live;
//   and no console error (a CSP violation is one) and no uncaught page error.
// Screenshots go to $DROIDLAB_BROWSER_ARTIFACTS (printed). Exit 0 pass, 1 fail, 77 skip.
//
//   node dashboard_test.cjs   (env: DROIDLAB_BINARY, DROIDLAB_DEVSIM, DROIDLAB_ADB,
//                              DROIDLAB_CHROMIUM, DROIDLAB_NODE_MODULES, DROIDLAB_BROWSER_ARTIFACTS)
'use strict';

const {spawn, execFileSync} = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`dashboard_test: ${name} is not set`);
    process.exit(2);
  }
  return value;
};
const droidlab = env('DROIDLAB_BINARY');
const devsim = env('DROIDLAB_DEVSIM');
const adb = env('DROIDLAB_ADB');
const chromiumPath = env('DROIDLAB_CHROMIUM');
const artifacts = env('DROIDLAB_BROWSER_ARTIFACTS');
const {chromium} = require(path.join(env('DROIDLAB_NODE_MODULES'), 'playwright-core'));

const started = Date.now();
const log = (...args) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...args);
const children = [];
let adbPort = 0;
let tmp = null;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

function runAdb(...args) {
  return execFileSync(adb, ['-P', String(adbPort), ...args], {encoding: 'utf8', timeout: 15000});
}

// Starts a child; resolves with it and the first `count` stdout lines matching `pattern`.
function startChild(name, argv, pattern, count, timeoutMs, extraEnv = {}) {
  const child = spawn(argv[0], argv.slice(1), {stdio: ['ignore', 'pipe', 'pipe'],
                                               env: {...process.env, ...extraEnv}});
  children.push(child);
  const stderr = [];
  child.stderr.on('data', (d) => stderr.push(d.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`${name}: ${e.message}`)));
    const found = [];
    const timer = setTimeout(() => reject(new Error(`${name}: no ${pattern} line in ${timeoutMs} ms; stderr: ${stderr.join('')}`)), timeoutMs);
    readline.createInterface({input: child.stdout}).on('line', (line) => {
      const match = line.match(pattern);
      if (!match || found.length >= count) return;
      found.push(match);
      if (found.length === count) {
        clearTimeout(timer);
        resolve({child, lines: found});
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) early: ${stderr.join('')}`));
    });
  });
}

async function waitFor(what, fn, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

async function main() {
  for (const [what, file] of [['chromium', chromiumPath], ['adb', adb]]) {
    if (!fs.existsSync(file)) {
      console.log(`dashboard_test: SKIP: ${what} is not installed (${file})`);
      return 77;
    }
  }
  for (const file of [droidlab, devsim]) check(fs.existsSync(file), `${file} is built`);
  fs.rmSync(artifacts, {recursive: true, force: true});  // no stale failure.png from an earlier run
  fs.mkdirSync(artifacts, {recursive: true});
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'droidlab-browser-'));

  adbPort = await freePort();
  runAdb('start-server');
  log(`adb server on port ${adbPort}`);

  const sim = await startChild('devsim', [devsim, '--port', '0', '--count', '2', '--fast'],
                               /listening on (\S+) serial=(\S+) model=(.*) sdk=(\d+)/, 2, 10000);
  const devices = sim.lines.map((m) => ({address: m[1], serial: m[2], model: m[3], sdk: m[4]}));
  for (const d of devices) runAdb('connect', d.address);
  log('devsim devices:', devices.map((d) => d.address).join(', '));

  const daemon = await startChild('droidlab serve',
    [droidlab, 'serve', '--listen', '127.0.0.1:0', '--db', path.join(tmp, 'droidlab.db'),
     '--adb-server', `tcp:127.0.0.1:${adbPort}`, '--adb-path', adb, '--log-level', 'warn',
     '--host-name', 'browser-lab'],
    /http:\/\/127\.0\.0\.1:(\d+)/, 1, 10000);
  const base = `http://127.0.0.1:${daemon.lines[0][1]}`;
  log(`daemon at ${base}`);
  const api = async (method, p, body) => {
    const response = await fetch(base + p, {method, body: body && JSON.stringify(body),
                                            headers: body ? {'Content-Type': 'application/json'} : {}});
    return {status: response.status, body: await response.json()};
  };
  await waitFor('the devices registered with their properties', async () => {
    const {body} = await api('GET', '/api/v1/devices');
    return devices.every((d) => body.devices.some((x) => x.serial === d.address && x.state === 'device' && x.model));
  }, 20000);

  const browser = await chromium.launch({executablePath: chromiumPath, headless: true,
                                         args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']});
  log(`chromium ${browser.version()}`);
  const problems = [];
  try {
    const page = await browser.newPage({viewport: {width: 1400, height: 1000}});
    page.on('console', (m) => {
      // GET /runs/{id}/compare answers 404 for a package's first run: expected, shown as "first run".
      if (m.type() !== 'error' || /\/compare$/.test(m.location().url)) return;
      problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

    // 1. Devices, each with the host that holds it (--host-name) and its labels (issue 17 §2).
    const labelled = await api('PUT', `/api/v1/devices/${encodeURIComponent(devices[0].address)}/labels`,
                               {labels: ['nightly', 'pixel']});
    check(labelled.status === 200, `labels set through the API: ${JSON.stringify(labelled.body)}`);
    // The daemon registered its host at start-up, alive, holding both phones.
    const hosts = (await api('GET', '/api/v1/hosts')).body.hosts;
    check(hosts.length === 1 && hosts[0].name === 'browser-lab' && hosts[0].alive &&
          hosts[0].devices === devices.length,
          `the daemon's host is registered with its phones: ${JSON.stringify(hosts)}`);
    await page.goto(`${base}/#/devices`);
    for (const d of devices) {
      const row = page.locator(`#devices tr[data-serial="${d.address}"]`);
      await row.waitFor({timeout: 10000});
      const text = await row.innerText();
      check(text.includes(d.model) && text.includes(d.sdk) && text.includes('device') &&
            text.includes('browser-lab'),
            `the devices page row of ${d.address} shows its state, model, SDK and host: ${text}`);
    }
    const labelsText = await page.locator(
        `#devices tr[data-serial="${devices[0].address}"] td.labels`).innerText();
    check(labelsText === 'nightly, pixel', `the first device's labels are shown: ${labelsText}`);
    // The front page's open regressions (issue 15 §4): none on a fresh lab (the real answer).
    const noneOpen = await page.locator('#open-regressions').textContent();
    check(noneOpen === 'No open regressions.', `a fresh lab has no open regressions: ${noneOpen}`);
    await page.screenshot({path: path.join(artifacts, 'devices.png'), fullPage: true});
    log('devices page lists both devices');

    // With one open: the alerts answer is given one regression (raising a real one takes a
    // nightly history: tests/e2e/client_e2e_test.cpp; resolving over real HTTP:
    // tests/api/alerts_api_test.cpp). What is tested here is the page: the row, its numbers and
    // links, and that Resolve posts for that alert and empties the panel.
    let resolvedIds = [];
    const regression = {id: 7, kind: 'regression', state: 'open', package: 'com.example.app',
      model: devices[0].model, mode: 'cold', metric: 'displayed_ms', delta: 100, delta_pct: 12.5,
      ci_low: 8.1, ci_high: 16.9, run_id: 3, build_id: 2, version_code: 43, explained_by: ['build'],
      created_at: Date.now(), resolved_at: null, deliveries: []};
    const speedUp = {...regression, id: 8, kind: 'change_point', delta: -50, delta_pct: -6};
    await page.route('**/api/v1/alerts?state=open*', (route) => route.fulfill({json: {
      alerts: resolvedIds.includes(7) ? [] : [regression, speedUp], next_cursor: null}}));
    await page.route('**/api/v1/alerts/*/resolve', (route) => {
      resolvedIds.push(Number(route.request().url().split('/').slice(-2)[0]));
      route.fulfill({json: {id: 7, state: 'resolved', resolved_at: Date.now()}});
    });
    await page.reload();
    const openRow = page.locator('#open-regressions tr[data-alert="7"]');
    await openRow.waitFor({timeout: 10000});
    const openText = await openRow.textContent();
    check(openText.includes('com.example.app') && openText.includes('+12.5 %') &&
          openText.includes('+8.1 % … +16.9 %') && openText.includes('#3') && openText.includes('build'),
          `the open regression's row: ${openText}`);
    check(await page.locator('#open-regressions tr[data-alert="8"]').count() === 0,
          'a change point that made the app faster is not a regression');
    check(await openRow.locator(`a[href="#/trend?package=com.example.app&metric=displayed_ms"]`).count() === 1,
          'the row links to its trend');
    await page.screenshot({path: path.join(artifacts, 'open-regressions.png'), fullPage: true});
    await openRow.locator('button').click();
    await page.locator('#open-regressions p.hint').waitFor({timeout: 10000});
    check(JSON.stringify(resolvedIds) === '[7]', `Resolve posted for its alert: ${JSON.stringify(resolvedIds)}`);
    await page.unroute('**/api/v1/alerts?state=open*');
    await page.unroute('**/api/v1/alerts/*/resolve');

    // 2. Runs, live. The stream must be connected before the POST for the test to mean anything.
    await page.click('nav a[data-page="runs"]');
    await page.locator('#runs').waitFor();
    await page.locator('#live.on').waitFor({timeout: 10000});
    // A marker a reload would lose, and every status/progress text the run's row shows.
    await page.evaluate(() => {
      window.__notReloaded = true;
      window.__seen = new Set();
      new MutationObserver(() => {
        for (const cell of document.querySelectorAll('#runs tr[data-run-id] td:nth-child(-n+3)')) {
          window.__seen.add(cell.textContent);
        }
      }).observe(document.getElementById('runs'), {subtree: true, childList: true, characterData: true});
    });
    const iterations = 5;
    const created = await api('POST', '/api/v1/runs', {
      serial: devices[0].address, package: 'com.example.app', mode: 'cold', iterations,
      looper_stats: {sampling_interval: 1}, proc_sample_interval_ms: 50});
    check(created.status === 201, `POST /api/v1/runs: 201, got ${created.status} ${JSON.stringify(created.body)}`);
    const id = created.body.id;
    log(`run ${id} queued`);
    const row = page.locator(`#runs tr[data-run-id="${id}"]`);
    await row.waitFor({timeout: 10000});
    await page.locator(`#runs tr[data-run-id="${id}"] .status.succeeded`).waitFor({timeout: 45000});
    check(await page.evaluate(() => window.__notReloaded === true), 'the runs page was not reloaded');
    check(await page.evaluate(() => window.droidlab.events > 0), 'events came through the stream');
    const seen = await page.evaluate(() => [...window.__seen]);
    check(seen.includes('running') && seen.some((t) => /^launching \d+\/5/.test(t)),
          `the row showed the run running, with its progress, before it succeeded: ${JSON.stringify(seen)}`);
    await page.screenshot({path: path.join(artifacts, 'runs.png'), fullPage: true});
    log(`run ${id} appeared and succeeded on the runs page, live`);

    // A second run of the same package, for the trend page's comparison (runs while we look).
    const second = await api('POST', '/api/v1/runs', {
      serial: devices[0].address, package: 'com.example.app', mode: 'cold', iterations});
    check(second.status === 201, `the second POST: 201, got ${second.status}`);
    // ... which the devices page shows as what the device runs now, with its progress.
    const devicesPage = await browser.newPage();
    devicesPage.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await devicesPage.goto(`${base}/#/devices`);
    await devicesPage.locator(`#devices tr[data-serial="${devices[0].address}"] a[href="#/runs/${second.body.id}"]`)
      .waitFor({timeout: 10000});
    await devicesPage.close();
    log(`the devices page shows run ${second.body.id} running on ${devices[0].address}`);

    // 3. The run page: the compilation state the run measured under (issue 14 §2), and charts.
    await row.locator('a').first().click();
    const compilation = await page.locator('#compilation').textContent({timeout: 10000});
    check(compilation === 'compilation speed-profile (asked speed-profile)',
      `the run page names the compilation state: ${compilation}`);
    await page.waitForFunction((n) => {
      const c = window.droidlab.charts.launches;
      return c && c.data.datasets[0].data.filter((v) => v !== null).length === n;
    }, iterations, {timeout: 10000});
    const drawn = await page.evaluate(() => {
      const count = (name, rgb) => {
        const canvas = document.getElementById(`chart-${name}`);
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] > 0 && Math.abs(data[i] - rgb[0]) < 30 && Math.abs(data[i + 1] - rgb[1]) < 30 &&
              Math.abs(data[i + 2] - rgb[2]) < 30) n += 1;
        }
        return n;
      };
      const charts = window.droidlab.charts;
      return {
        launchPixels: count('launches', [0x1f, 0x77, 0xb4]),
        phasePixels: count('phases', [0x2c, 0xa0, 0x2c]),
        distribution: charts.distribution.data.datasets[0].data.reduce((a, b) => a + b, 0),
        phases: charts.phases.data.datasets[1].data.filter((v) => v !== null).length,
        samples: charts.process.data.datasets[0].data.length,
        looperRows: document.querySelectorAll('#looper-by-cpu tbody tr').length,
      };
    });
    log('run page:', JSON.stringify(drawn));
    check(drawn.launchPixels > 50, `the launch chart's line is drawn (${drawn.launchPixels} pixels of its colour)`);
    check(drawn.distribution === iterations, `the histogram counts every launch (${drawn.distribution})`);
    check(drawn.phases === iterations && drawn.phasePixels > 50, 'the phase bars are drawn');
    check(drawn.samples > 0, 'the process chart has samples');
    check(drawn.looperRows > 0, 'the looper-stats table has rows');
    // Frames (issue 16 §2): devsim's app renders 30 frames a launch, the first a new window's
    // layout (Flags 1, not counted): 29 counted frames per iteration, each 8 ms, drawn as points
    // with the 60 Hz refresh period as a line; a row per iteration in the table.
    await page.waitForFunction((n) => {
      const c = window.droidlab.charts.frames;
      return c && c.data.datasets[0].data.length === n;
    }, iterations * 29, {timeout: 10000});
    const frames = await page.evaluate(() => {
      const sets = window.droidlab.charts.frames.data.datasets;
      return {times: [...new Set(sets[0].data.map((p) => p.y))], refresh: sets[1].data.map((p) => p.y),
              rows: document.querySelectorAll('#frames tr[data-iteration]').length,
              first: document.querySelector('#frames tr[data-iteration]')?.textContent};
    });
    check(JSON.stringify(frames.times) === '[8]', `every frame took devsim's 8 ms: ${JSON.stringify(frames.times)}`);
    check(frames.refresh.length === 2 && Math.abs(frames.refresh[0] - 16.67) < 0.01,
          `the refresh period is a line at 16.7 ms: ${JSON.stringify(frames.refresh)}`);
    check(frames.rows === iterations, `the frames table has a row per iteration (${frames.rows})`);
    // The jank figures in the run's summary: every iteration's frames took 8 ms.
    const jank = await page.evaluate(() => [...document.querySelectorAll('#jank-summary tr[data-metric]')]
      .map((tr) => `${tr.dataset.metric}:${tr.cells[1].textContent}:${tr.cells[2].textContent}`));
    check(jank.includes(`frame_p90_ms:${iterations}:8.0`) && jank.includes(`frame_p99_ms:${iterations}:8.0`),
          `the jank summary has each iteration's 8 ms frames: ${JSON.stringify(jank)}`);
    // Memory per iteration (dumpsys meminfo at each iteration's end): a row each; devsim's app
    // does not crash here, so the faults table says there is none.
    const tables = await page.evaluate(() => ({
      memoryRows: document.querySelectorAll('#memory tr[data-iteration]').length,
      pss: document.querySelector('#memory tr[data-iteration] td:nth-child(3)')?.textContent,
      faults: document.querySelector('.faults-box')?.textContent}));
    check(tables.memoryRows === iterations && /^\d+$/.test(tables.pss ?? ''),
          `the memory table has a row per iteration with its PSS: ${JSON.stringify(tables)}`);
    check((tables.faults ?? '').includes('no fault'), `no fault listed: ${JSON.stringify(tables)}`);
    await page.screenshot({path: path.join(artifacts, 'run.png'), fullPage: true});
    // devsim's looper messages are all fast: the marking of slow ones, on rows of our own.
    const marks = await page.evaluate(() => {
      const rows = [
        {handler_class: 'Fast', total_cpu_micros: 5000, max_latency_micros: 100000},
        {handler_class: 'Janky', total_cpu_micros: 1000, max_latency_micros: 800000},
        {handler_class: 'Anr', total_cpu_micros: 9000, max_latency_micros: 6000000},
      ];
      const byLatency = looperTable('t1', rows, 'max_latency_micros', 'by latency');
      const byCpu = looperTable('t2', rows, 'total_cpu_micros', 'by CPU');
      const read = (table) => [...table.querySelectorAll('tbody tr')].map(
        (tr) => `${tr.cells[0].textContent}:${tr.className || '-'}`);
      return {latency: read(byLatency), cpu: read(byCpu)};
    });
    check(JSON.stringify(marks.latency) === '["Anr:very-slow","Janky:slow","Fast:-"]' &&
          JSON.stringify(marks.cpu) === '["Anr:very-slow","Fast:-","Janky:slow"]',
          `looper rows sorted and marked (> 700 ms slow, > 5 s very slow): ${JSON.stringify(marks)}`);

    // The trend page: the package's series from GET /series, one request per series (issue 15
    // §1), never run by run; each run's median with its CI as a band, redrawn live.
    const trendRequests = [];
    const onTrendRequest = (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/v1/')) trendRequests.push(url.pathname + url.search);
    };
    page.on('request', onTrendRequest);
    await page.goto(`${base}/#/trend?package=com.example.app`);
    await waitFor('the second run to succeed', async () =>
      (await api('GET', `/api/v1/runs/${second.body.id}`)).body.status === 'succeeded', 30000);
    // Live: the page refetches its series when a run succeeds.
    await page.waitForFunction(() => {
      const d = window.droidlab.charts.trend?.data.datasets.find((x) => !x.band && x.type !== 'scatter');
      return d && d.data.length === 2;
    }, null, {timeout: 15000});
    const index = (await api('GET', '/api/v1/packages/com.example.app/series')).body;
    const keys = index.series.filter((k) => k.metric === 'displayed_ms');
    check(keys.length === 1 && keys[0].mode === 'cold' && keys[0].points === 2,
          `the package has one displayed_ms series of both runs: ${JSON.stringify(index)}`);
    const seriesPath = `/api/v1/series?package=com.example.app&model=${encodeURIComponent(keys[0].model ?? '')}` +
                       '&mode=cold&metric=displayed_ms';
    const series = (await api('GET', seriesPath)).body;
    const trend = await page.evaluate(() => {
      const sets = window.droidlab.charts.trend.data.datasets;
      return {
        medians: sets.filter((d) => !d.band && d.type !== 'scatter').map((d) => d.data.map((p) => [p.id, p.y])),
        bands: sets.filter((d) => d.band).map((d) => ({fill: d.fill, data: d.data.map((p) => [p.id, p.y])})),
        rows: document.querySelectorAll('#trend tr').length,
      };
    });
    const expected = series.points.map((p) => [p.run_id, p.median]);
    check(JSON.stringify(trend.medians) === JSON.stringify([expected]),
          `the chart draws the series' medians: ${JSON.stringify(trend.medians)} vs ${JSON.stringify(expected)}`);
    check(trend.bands.length === 2 && trend.bands[1].fill === '-1' &&
          JSON.stringify(trend.bands[0].data) === JSON.stringify(series.points.map((p) => [p.run_id, p.ci_low])) &&
          JSON.stringify(trend.bands[1].data) === JSON.stringify(series.points.map((p) => [p.run_id, p.ci_high])),
          `the median's CI is a band from ci_low to ci_high: ${JSON.stringify(trend.bands)}`);
    check(trend.rows === 3, `the trend table: a header and both runs (${trend.rows} rows)`);
    const perRun = trendRequests.filter((u) => /^\/api\/v1\/runs\/\d+/.test(u));
    const seriesCalls = trendRequests.filter((u) => u.startsWith('/api/v1/series?'));
    check(perRun.length === 0, `the trend page asks nothing run by run: ${JSON.stringify(perRun)}`);
    check(seriesCalls.length >= 1 && seriesCalls.every((u) => u === seriesPath),
          `the trend page reads its one series from /series: ${JSON.stringify(seriesCalls)}`);
    await page.screenshot({path: path.join(artifacts, 'trend.png'), fullPage: true});
    // Change points: two runs are too few for the daemon to find one (each side of a change
    // needs 3 runs; real ones are found in tests/api/series_test.cpp and tests/e2e/); the marks
    // and their explanation, with the series answer given one at the second run (the rest of
    // the page is real).
    await page.route('**/api/v1/series?*', async (route) => {
      const real = await route.fetch();
      const body = await real.json();
      const at = body.points[body.points.length - 1];
      const change = {run_id: at.run_id, t: at.t, before: 700, after: at.median, delta_pct: 12.5,
                      ci: [8.1, 16.9], p: 0.001, settled: false, explained_by: ['fingerprint']};
      // And the first night measured too hot: every launch hotter than its limits (the API's
      // own out_of_range is tested in tests/api/series_test.cpp; devsim's phones stay cool).
      const points = body.points.map((p, i) => (i === 0 ? {...p, hot_launches: p.count, out_of_range: true} : p));
      await route.fulfill({response: real, json: {...body, points, change_points: [change]}});
    });
    await page.reload();
    await page.locator(`#trend-changes tr.change-point:has(a[href="#/runs/${second.body.id}"])`).waitFor({timeout: 10000});
    const trendMarks = await page.evaluate(() => window.droidlab.charts.trend.data.datasets
      .filter((d) => d.type === 'scatter').map((d) => ({style: d.pointStyle, ids: d.data.map((p) => p.id)})));
    check(JSON.stringify(trendMarks) === JSON.stringify([{style: 'crossRot', ids: [id]}, {style: 'triangle', ids: [second.body.id]}]),
          `a night measured too hot is crossed out, a change point is a triangle at its run: ${JSON.stringify(trendMarks)}`);
    const hotRows = await page.evaluate(() => [...document.querySelectorAll('#trend tr.out-of-range')]
      .map((tr) => [tr.querySelector('a').textContent, tr.querySelector('td.hot').textContent]));
    check(JSON.stringify(hotRows) === JSON.stringify([[`#${id}`, `${series.points[0].count}`]]),
          `the runs table shades the night measured too hot, with its hot launches: ${JSON.stringify(hotRows)}`);
    const explained = await page.locator('#trend-changes tr.change-point td').last().textContent();
    check(explained === 'fingerprint', `the change point says what explains it: ${explained}`);
    await page.screenshot({path: path.join(artifacts, 'trend-change-point.png'), fullPage: true});
    await page.unroute('**/api/v1/series?*');
    page.off('request', onTrendRequest);
    await page.goto(`${base}/#/schedules`);
    await page.locator('#schedules tr').first().waitFor({timeout: 10000});
    await page.fill('form.new-run input[name="cron"]', '0 2 * * *');
    await page.fill('form.new-run input[name="timezone"]', 'Europe/Paris');
    await page.fill('form.new-run input[name="serial"]', devices[1].address);
    await page.fill('form.new-run input[name="package"]', 'com.example.app');
    await page.click('form.new-run button[type="submit"]');
    await page.locator('#schedules tr:has-text("Europe/Paris")').waitFor({timeout: 10000});
    const schedules = (await api('GET', '/api/v1/schedules')).body.schedules;
    check(schedules.length === 1 && schedules[0].cron === '0 2 * * *' && schedules[0].run.serial === devices[1].address,
          `the schedule form stored it: ${JSON.stringify(schedules)}`);
    await page.screenshot({path: path.join(artifacts, 'schedules.png'), fullPage: true});
    // The builds page (issue 14 §1): an APK chosen in the form is uploaded as the body, read by
    // the daemon and listed with what its manifest says (tests/data/apk/src/app.xml).
    await page.goto(`${base}/#/builds`);
    await page.locator('#builds tr').first().waitFor({timeout: 10000});
    await page.setInputFiles('#build-upload input[type="file"]',
      path.join(__dirname, '..', 'data', 'apk', 'app_aapt2.apk'));
    await page.click('#build-upload button[type="submit"]');
    const buildRow = page.locator('#builds tr[data-build-id]').first();
    await buildRow.waitFor({timeout: 10000});
    const buildText = await buildRow.textContent();
    check(buildText.includes('com.example.app') && buildText.includes('1.2.3-nightly') && buildText.includes('42'),
          `the builds page lists the upload: ${buildText}`);
    const builds = (await api('GET', '/api/v1/builds')).body.builds;
    check(builds.length === 1 && builds[0].files[0].name === 'app_aapt2.apk',
          `the upload kept its name: ${JSON.stringify(builds)}`);
    await page.screenshot({path: path.join(artifacts, 'builds.png'), fullPage: true});
    // The device's page (issue 14 §2): after a run that installed the build, the build is what
    // droidlab put on the phone, with the run that did it.
    const built = await api('POST', '/api/v1/runs', {
      serial: devices[1].address, package: 'com.example.app', mode: 'cold', iterations: 1,
      build: builds[0].id});
    check(built.status === 201, `the run with the build was queued: ${JSON.stringify(built.body)}`);
    await waitFor('the run with the build to succeed', async () =>
      (await api('GET', `/api/v1/runs/${built.body.id}`)).body.status === 'succeeded', 30000);
    await page.goto(`${base}/#/devices/${encodeURIComponent(devices[1].address)}`);
    const installedRow = page.locator('#installed-builds tr[data-package="com.example.app"]');
    await installedRow.waitFor({timeout: 10000});
    const installedText = await installedRow.textContent();
    check(installedText.includes(`#${builds[0].id}`) && installedText.includes(`#${built.body.id}`) &&
          installedText.includes('42'),
          `the device page shows the build the run installed: ${installedText}`);
    // Its health (issue 17 §3): the daemon checked it at start-up, an idle phone, with the
    // battery and thermal readings; nothing has happened to it.
    const checkRow = page.locator('#health-checks tr').nth(1);
    await checkRow.waitFor({timeout: 10000});
    const checkText = await checkRow.textContent();
    check(checkText.includes('yes') && checkText.includes('%') && checkText.includes('°C'),
          `the device page shows its last check: ${checkText}`);
    const eventsText = await page.locator('#device-events').textContent();
    check(eventsText.includes('it has answered every check'), `no event yet: ${eventsText}`);
    check(await page.locator('#quarantine .quarantined').count() === 0, 'a healthy phone is not quarantined');
    await page.screenshot({path: path.join(artifacts, 'device.png'), fullPage: true});
    // A side-by-side run (issue 14 §4) of a second build against the first: the run page shows
    // each build's launches and the verdict of one against the other, with the conditions.
    const uploaded = await fetch(`${base}/api/v1/builds`, {method: 'POST',
      headers: {'Content-Type': 'application/vnd.android.package-archive', 'X-File-Name': 'next_aapt2.apk'},
      body: fs.readFileSync(path.join(__dirname, '..', 'data', 'apk', 'next_aapt2.apk'))});
    check(uploaded.status === 201, `the second build: 201, got ${uploaded.status}`);
    const nextId = (await uploaded.json()).id;
    const ab = await api('POST', '/api/v1/runs', {serial: devices[1].address, package: 'com.example.app',
      mode: 'cold', iterations: 2, block: 1, build: nextId, baseline_build: builds[0].id});
    check(ab.status === 201, `the side-by-side run: 201, got ${ab.status} ${JSON.stringify(ab.body)}`);
    await page.goto(`${base}/#/runs/${ab.body.id}`);
    const abVerdict = await page.locator('#side-by-side-verdict').textContent({timeout: 60000});
    check(abVerdict.includes(`build ${nextId} against build ${builds[0].id}`) &&
          abVerdict.includes('compilation speed-profile'),
          `the run page judges one build against the other: ${abVerdict}`);
    const abTable = await page.locator('#side-by-side').textContent();
    check(abTable.includes(`baselinebuild ${builds[0].id}2`) && abTable.includes(`candidatebuild ${nextId}2`),
          `the run page shows each build's launches: ${abTable}`);
    await page.screenshot({path: path.join(artifacts, 'side-by-side.png'), fullPage: true});

    // 5. With a token: the page loads, asks for it, and with it lists the devices and goes live.
    const guarded = await startChild('droidlab serve (token)',
      [droidlab, 'serve', '--listen', '127.0.0.1:0', '--db', path.join(tmp, 'guarded.db'),
       '--adb-server', `tcp:127.0.0.1:${adbPort}`, '--adb-path', adb, '--log-level', 'warn'],
      /http:\/\/127\.0\.0\.1:(\d+)/, 1, 10000, {DROIDLAB_TOKEN: 'browser-test-token'});
    const guardedBase = `http://127.0.0.1:${guarded.lines[0][1]}`;
    check((await fetch(`${guardedBase}/api/v1/devices`)).status === 401, 'the API needs the token');
    const tokenPage = await browser.newPage();
    tokenPage.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await tokenPage.goto(`${guardedBase}/#/devices`);
    await tokenPage.locator('#token-form:not([hidden])').waitFor({timeout: 10000});
    await tokenPage.fill('#token-input', 'browser-test-token');
    await tokenPage.click('#token-form button');
    await tokenPage.locator(`#devices tr[data-serial="${devices[1].address}"]`).waitFor({timeout: 20000});
    await tokenPage.locator('#live.on').waitFor({timeout: 10000});
    await tokenPage.screenshot({path: path.join(artifacts, 'token.png'), fullPage: true});
    log('with a token: asked for, then devices and the live stream');
  } catch (error) {
    const pages = browser.contexts().flatMap((c) => c.pages());
    if (pages.length) await pages[0].screenshot({path: path.join(artifacts, 'failure.png'), fullPage: true});
    if (problems.length) error.message += `\nconsole and page errors:\n  ${problems.join('\n  ')}`;
    throw error;
  } finally {
    await browser.close();
  }
  check(problems.length === 0, `no console or page errors:\n  ${problems.join('\n  ')}`);
  log(`PASS; screenshots in ${artifacts}`);
  return 0;
}

async function cleanup() {
  for (const child of children.reverse()) {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  await Promise.all(children.map((c) => c.exitCode === null && new Promise((r) => {
    const t = setTimeout(() => { c.kill('SIGKILL'); r(); }, 5000);
    c.once('exit', () => { clearTimeout(t); r(); });
  })));
  if (adbPort) {
    try { runAdb('kill-server'); } catch (e) { /* already gone */ }
  }
  if (tmp) fs.rmSync(tmp, {recursive: true, force: true});
}

// Whatever happens, the adb server and the children this test started are stopped.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => cleanup().finally(() => process.exit(1)));
}

main().then(async (code) => {
  await cleanup();
  process.exit(code);
}, async (error) => {
  console.error(`dashboard_test: FAIL: ${error.stack || error}`);
  console.error(`screenshots so far in ${artifacts}`);
  await cleanup();
  process.exit(1);
});
