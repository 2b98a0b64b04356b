#!/usr/bin/env python3
"""deploy/prometheus and deploy/grafana against a real Prometheus scraping real daemons.

  prometheus_test.py SOURCE_DIR DROIDLAB DEVSIM

1. `promtool check config` on deploy/prometheus/prometheus.yml (its /etc/prometheus/ paths moved
   to a temporary folder), `promtool check rules` on droidlab.rules.yml and `promtool test rules`
   on its unit tests, droidlab.rules.test.yml (alerts that must fire, and must not).
2. One adb server on a private port, one devsim phone, two `droidlab serve` daemons (private
   ports, temporary SQLite databases, a token), both on that adb server.
3. Debian's `prometheus` on a private port with the shipped prometheus.yml (scrape and rule
   evaluation every second, the two daemons in its file_sd hosts file), while daemon A measures a
   run of cold launches on the phone, so the launch and adb histograms have data.
4. Every panel query of deploy/grafana/droidlab.json, its variables substituted, through
   /api/v1/query: the test fails naming each panel whose query errors, returns no series or only
   NaN. EXPECTED_EMPTY names the panels that are empty in a fresh lab, and asserts they are. The
   dashboard's `instance` variable must list both daemons, and every alert rule must evaluate
   without error.
Exit 0 when all holds; 1 with the failures named; 77 (skipped) without prometheus or promtool.
"""
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

# Panels with no series until something happens that a test cannot make quickly: title -> why.
EXPECTED_EMPTY = {
    "Open regressions by package and model":
        "droidlab_open_regressions has series only for open regressions; a fresh lab has none",
}
# Grafana's built-in variables and the dashboard's own, as Grafana would expand them.
VARIABLES = {"$__rate_interval": "1m", "${instance}": ".*", "$instance": ".*"}
DEADLINE = time.monotonic() + 100

failures = []
procs = []


def fail(message):
    print("FAIL " + message, flush=True)
    failures.append(message)


def free_port():
    """A free loopback port below the kernel's ephemeral range (as tests/common/adb_lab.cpp):
    no bind(0) — a devsim phone's, a daemon's — can take it before its process binds it."""
    try:
        low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(100):
        port = random.randint(10000, max(10001, low - 1))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port")


def start(args, log, **kw):
    p = subprocess.Popen(args, stdout=open(log, "w"), stderr=subprocess.STDOUT,
                         start_new_session=True, **kw)
    procs.append(p)
    return p


def wait_for(what, predicate, seconds):
    end = min(time.monotonic() + seconds, DEADLINE)
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise TimeoutError(what)


def http(url, token=None, body=None):
    request = urllib.request.Request(url, data=body)
    if token:
        request.add_header("Authorization", "Bearer " + token)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def try_http(url, token=None):
    try:
        return http(url, token)
    except (urllib.error.URLError, OSError, ValueError):
        return None


def line_in(log, pattern):
    try:
        m = re.search(pattern, open(log).read())
    except OSError:
        return None
    return m


def panel_queries(panels):
    for p in panels:
        yield from panel_queries(p.get("panels", []))
        for t in p.get("targets", []):
            if t.get("expr"):
                yield p["title"], t.get("refId", "?"), t["expr"]


def substitute(expr):
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    if "$" in expr.replace("$labels", "").replace("$value", ""):
        fail(f"a variable the test does not know is left in: {expr}")
    return expr


def main():
    source, droidlab, devsim = (os.path.abspath(a) for a in sys.argv[1:4])
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            print(f"SKIP: no {tool} (Debian's prometheus package; deploy/install-deps.sh --test)")
            return 77
    adb = shutil.which("adb")
    tmp = tempfile.mkdtemp(prefix="droidlab-prometheus-test-")
    try:
        return run(source, droidlab, devsim, adb, tmp)
    except TimeoutError as e:
        fail(f"timed out waiting for {e}")
        return 1
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        if failures:
            for log in sorted(os.listdir(tmp)):
                if log.endswith(".log"):
                    print(f"--- {log} (last lines)")
                    print("".join(open(os.path.join(tmp, log)).readlines()[-15:]))
        shutil.rmtree(tmp, ignore_errors=True)


def run(source, droidlab, devsim, adb, tmp):
    deploy = os.path.join(source, "deploy")
    token = "prometheus-test-token"
    token_file = os.path.join(tmp, "droidlab.token")
    with open(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(token + "\n")

    # 1. The shipped files, as Prometheus would read them from /etc/prometheus/.
    config = open(os.path.join(deploy, "prometheus", "prometheus.yml")).read()
    config = config.replace("/etc/prometheus/", tmp + "/")
    config = re.sub(r"(scrape_interval|evaluation_interval): 30s", r"\1: 1s", config)
    config = config.replace("refresh_interval: 1m", "refresh_interval: 1s")
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        f.write(config)
    shutil.copy(os.path.join(deploy, "prometheus", "droidlab.rules.yml"), tmp)
    shutil.copy(os.path.join(deploy, "prometheus", "droidlab-hosts.yml"), tmp)
    shutil.copy(os.path.join(deploy, "prometheus", "droidlab.rules.test.yml"), tmp)
    for args in (["promtool", "check", "config", os.path.join(tmp, "prometheus.yml")],
                 ["promtool", "check", "rules", os.path.join(tmp, "droidlab.rules.yml")],
                 ["promtool", "test", "rules", os.path.join(tmp, "droidlab.rules.test.yml")]):
        r = subprocess.run(args, capture_output=True, text=True)
        print(" ".join(args[:3]) + ": " + ("ok" if r.returncode == 0 else "FAILED"))
        if r.returncode != 0:
            fail(f"{' '.join(args[:3])}: {r.stdout}{r.stderr}")
    if failures:
        return 1

    # 2. adb server, one devsim phone, two daemons.
    adb_port = free_port()
    env = dict(os.environ, HOME=tmp)
    start([adb, "-P", str(adb_port), "nodaemon", "server"], os.path.join(tmp, "adb.log"), env=env)
    wait_for("the adb server", lambda: subprocess.run(
        [adb, "-P", str(adb_port), "devices"], capture_output=True, env=env).returncode == 0, 15)
    devsim_log = os.path.join(tmp, "devsim.log")
    start([devsim, "--port", "0", "--count", "1"], devsim_log)
    address = wait_for("devsim", lambda: line_in(devsim_log, r"listening on ([0-9.]+:[0-9]+)"),
                       10).group(1)
    subprocess.run([adb, "-P", str(adb_port), "connect", address], capture_output=True, env=env,
                   check=True)
    daemons = []
    for name in ("a", "b"):
        log = os.path.join(tmp, f"daemon-{name}.log")
        start([droidlab, "serve", "--listen", "127.0.0.1:0", "--db",
               os.path.join(tmp, f"{name}.db"), "--adb-server", f"tcp:127.0.0.1:{adb_port}",
               "--adb-path", "", "--token-file", token_file, "--log-level", "warn"], log, cwd=tmp)
        m = wait_for(f"daemon {name} listening",
                     lambda: line_in(log, r"listening on http://127\.0\.0\.1:([0-9]+)"), 15)
        daemons.append(f"127.0.0.1:{m.group(1)}")
    print("daemons: " + ", ".join(daemons))

    # 3. Prometheus scraping both; a run on daemon A while it scrapes.
    with open(os.path.join(tmp, "droidlab-hosts.yml"), "w") as f:
        f.write("- targets: [" + ", ".join(f'"{d}"' for d in daemons) + "]\n")
    prom = f"127.0.0.1:{free_port()}"
    start(["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
           "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"), "--web.listen-address=" + prom,
           "--log.level=warn"], os.path.join(tmp, "prometheus.log"))

    def query(expr):
        url = f"http://{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            return http(url)
        except urllib.error.HTTPError as e:
            return json.loads(e.read() or b"{}") or {"status": "error", "error": str(e)}

    def scalar(expr):
        r = try_http(f"http://{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        if r and r.get("status") == "success" and r["data"]["result"]:
            return float(r["data"]["result"][0]["value"][1])
        return None

    wait_for("both daemons up in Prometheus",
             lambda: scalar('sum(up{job="droidlab"})') == 2, 20)
    a = daemons[0]
    serial = address
    wait_for("the phone on daemon A", lambda: (try_http(
        f"http://{a}/api/v1/devices/{urllib.parse.quote(serial, safe='')}", token) or {}).get(
            "state") == "device", 20)
    run = http(f"http://{a}/api/v1/runs", token, json.dumps(
        {"serial": serial, "package": "com.example.app", "mode": "cold",
         "iterations": 8}).encode())
    print(f"run {run['id']} queued on daemon A, {serial}")
    # Launches measured while Prometheus scrapes: its rate() then sees them.
    wait_for("launches in Prometheus", lambda: (scalar(
        "sum(increase(droidlab_launch_displayed_seconds_count[1m]))") or 0) >= 3, 60)
    wait_for("the run finished", lambda: (try_http(f"http://{a}/api/v1/runs/{run['id']}", token)
                                          or {}).get("status") in ("succeeded", "failed"), 30)
    # The run's end in two of daemon A's scrapes, so that delta() over the runs has two samples.
    # (Counting two scrapes of `up` was not enough: the first scrape after the end may still
    # carry the count from before it — a panel then came back empty, once in a few runs.)
    wait_for("the run's end in two scrapes", lambda: (scalar(
        'max(count_over_time(droidlab_runs{status=~"succeeded|failed"}[1h]))') or 0) >= 2, 20)
    # And two more scrapes of each daemon after it.
    scrapes = scalar('min(count_over_time(up{job="droidlab"}[1h]))')
    wait_for("two more scrapes", lambda: (scalar(
        'min(count_over_time(up{job="droidlab"}[1h]))') or 0) >= scrapes + 2, 10)

    # 4. The dashboard's variable, every panel's query, every rule.
    dashboard = json.load(open(os.path.join(deploy, "grafana", "droidlab.json")))
    variable = next(v for v in dashboard["templating"]["list"] if v["name"] == "instance")
    m = re.fullmatch(r'label_values\((.*), *(\w+)\)', variable["definition"])
    values = try_http(f"http://{prom}/api/v1/label/{m.group(2)}/values?" +
                      urllib.parse.urlencode({"match[]": m.group(1)}))
    listed = sorted((values or {}).get("data", []))
    print(f"variable instance: {listed}")
    if listed != sorted(daemons):
        fail(f"the dashboard's instance variable lists {listed}, not the two daemons")

    count = 0
    for title, ref, expr in panel_queries(dashboard["panels"]):
        count += 1
        r = query(substitute(expr))
        if r.get("status") != "success":
            fail(f'panel "{title}" ({ref}): the query fails: {r.get("error")}: {expr}')
            continue
        result = r["data"]["result"]
        values = [float(s["value"][1]) for s in result]
        if title in EXPECTED_EMPTY:
            if result:
                fail(f'panel "{title}" ({ref}) is expected empty ({EXPECTED_EMPTY[title]}) '
                     f'but has {len(result)} series: update EXPECTED_EMPTY')
            else:
                print(f'ok   "{title}" ({ref}): empty, as expected: {EXPECTED_EMPTY[title]}')
            continue
        if not result:
            fail(f'panel "{title}" ({ref}) returns no series: {expr}')
        elif all(math.isnan(v) for v in values):
            fail(f'panel "{title}" ({ref}) returns only NaN: {expr}')
        else:
            print(f'ok   "{title}" ({ref}): {len(result)} series')
    if count < 10:
        fail(f"only {count} panel queries found in the dashboard")

    rules = (try_http(f"http://{prom}/api/v1/rules") or {}).get("data", {}).get("groups", [])
    names = [(rule["name"], rule.get("health"), rule.get("lastError", "")) for g in rules
             for rule in g["rules"]]
    if not names:
        fail("Prometheus loaded no alert rules")
    for name, health, error in names:
        if health != "ok":
            fail(f"rule {name}: {health} {error}")
    print(f"{len(names)} alert rules evaluated, {sum(h == 'ok' for _, h, _ in names)} ok")
    return 1 if failures else 0


if __name__ == "__main__":
    code = main()
    print(f"prometheus_test: {len(failures)} failures" if failures else "prometheus_test: ok")
    sys.exit(code)
