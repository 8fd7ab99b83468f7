#!/usr/bin/python3
"""`tsb serve` against what a user would otherwise run, FastAPI + uvicorn
calling torch.jit.load's module (bench/serve_fastapi_baseline.py), in the
same run with the same client (docs/benchmarks.md, "tsb serve against
FastAPI + uvicorn"; issue 46's goals):

1. Throughput and latency at --clients concurrent keep-alive connections
   (loopback only; Python's http.client, a bounded count of requests and
   time per round, or with --client wrk, wrk's event loops for a bounded
   time: a client that costs the shared cores little) for a small model
   (a Linear(4, 3), FP32 [1, 4] in) and a Dict[str, Tensor] model (8 keys
   of FP32 [16] in, the same dict doubled out, as tsbridge's typed JSON on
   both servers). The rounds alternate
   A B, B A, A B, ... so that machine load hits both alike; each ratio is
   the median of the per-pair ratios: tsb ÷ FastAPI throughput (goal ≥ 3)
   and FastAPI ÷ tsb p99 (goal ≥ 3, i.e. tsb's p99 at most a third).
2. The no-op overhead: one client, sequential, keep-alive: a no-op infer
   (forward(x) -> x, FP32 [1, 4]) through tsb serve against the same call
   through the C ABI (bench/serve_noop_c_baseline, tsb_module_call) plus
   the HTTP round trip of an empty request (GET /v2/health/live on the same
   server and connection). Goal ≤ 1.5.

Both servers: --workers calls at once (tsb serve --workers N; uvicorn
--workers N processes, each running one call at a time on its event
loop), LibTorch's intra-op threads 1 (OMP_NUM_THREADS=1 and
MKL_NUM_THREADS=1 for both, torch.set_num_threads(1) in each FastAPI
worker). Every answer is checked against the other server's before timing;
a failed request is counted and reported, never timed. Exits 1 if a check
fails or a request failed.

  /usr/bin/python3 bench/serve_bench.py --tsb build/hosts/cli/tsb \\
      --c-baseline build/bench/serve_noop_c_baseline \\
      [--clients 8] [--workers 2] [--rounds 6] [--requests 1000] [--seconds 10] \\
      [--client python|wrk]

Exits 77 (ctest's skip) when fastapi or uvicorn is not installed.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

LINEAR_BODY = {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4],
                           "data": [0.5, -1.25, 2.0, 3.5]}]}
DICT_BODY = {"inputs": [{"name": "d", "parameters": {"tsbridge_json": {
    f"k{i}": {"dtype": "float32", "shape": [16], "data": [float(i + j) / 4 for j in range(16)]}
    for i in range(8)}}}]}
NOOP_BODY = {"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 4],
                         "data": [1.0, 2.0, 3.0, 4.0]}]}
CASES = [("Linear(4, 3), FP32 [1, 4]", "linear", LINEAR_BODY),
         ("Dict[str, Tensor], 8 keys of FP32 [16]", "dict", DICT_BODY)]


class Server:
    """A server process on 127.0.0.1 and a free port, its log in a file."""

    def __init__(self, label, command, log_path, env):
        self.label = label
        self.log = open(log_path, "w+")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True, env=env)
        line = self.process.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not match:
            self.stop()
            self.log.seek(0)
            sys.exit(f"{label} did not start: {line}{self.log.read()}")
        self.port = int(match.group(1))
        deadline = time.monotonic() + 120
        while True:  # uvicorn's workers answer once they have loaded the models
            try:
                status, _ = request_once(self.port, "GET", "/v2/health/ready")
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                sys.exit(f"{label} never became ready")
            time.sleep(0.1)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def request_once(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def one_client(port, path, body, count, until, warmup, out):
    """count requests (or until time.monotonic() passes until) on one
    keep-alive connection, after warmup untimed ones; appends
    (latencies in s, failures, first start, last end) to out."""
    headers = {"Content-Type": "application/json"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies, failures = [], 0
    first = last = None
    for i in range(warmup + count):
        if i >= warmup and time.monotonic() > until:
            break
        start = time.perf_counter()
        try:
            connection.request("POST", path, body, headers)
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        end = time.perf_counter()
        if i < warmup:
            continue
        if first is None:
            first = start
        last = end
        if ok:
            latencies.append(end - start)
        else:
            failures += 1
    connection.close()
    out.append((latencies, failures, first, last))


def client_process(port, path, body, threads, count, seconds, warmup, go, queue):
    """threads clients in one process; their results on the queue."""
    go.wait()
    cpu = time.process_time()
    until = time.monotonic() + seconds
    out = []
    workers = [threading.Thread(target=one_client, args=(port, path, body, count, until, warmup, out))
               for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put((out, time.process_time() - cpu))


def cpu_seconds(pid):
    """CPU time of process pid and its descendants (uvicorn's workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return total


class Round:
    """One load round's figures: req/s, p50 and p99 latency in s, failed
    requests, server and client CPU s, requests answered."""

    def __init__(self, rate, p50, p99, failures, server_cpu, client_cpu, answered):
        self.rate, self.p50, self.p99 = rate, p50, p99
        self.failures, self.server_cpu, self.client_cpu = failures, server_cpu, client_cpu
        self.answered = answered


def load_round(server, path, body, args):
    """One round of args.clients concurrent clients (http.client)."""
    port = server.port
    ctx = multiprocessing.get_context("fork")
    go, queue = ctx.Event(), ctx.Queue()
    per = [args.clients // args.processes + (i < args.clients % args.processes)
           for i in range(args.processes)]
    procs = [ctx.Process(target=client_process,
                         args=(port, path, body, n, args.requests, args.seconds, args.warmup, go, queue))
             for n in per if n]
    for p in procs:
        p.start()
    server_cpu = cpu_seconds(server.process.pid)
    go.set()
    answers = [queue.get(timeout=args.seconds + 300) for _ in procs]
    server_cpu = cpu_seconds(server.process.pid) - server_cpu
    for p in procs:
        p.join()
    results = [r for out, _ in answers for r in out]
    client_cpu = sum(c for _, c in answers)
    latencies = [x for r in results for x in r[0]]
    failures = sum(r[1] for r in results)
    # time.perf_counter is CLOCK_MONOTONIC on Linux: comparable across processes.
    span = max(r[3] for r in results if r[3]) - min(r[2] for r in results if r[2])
    return Round(len(latencies) / span, percentile(latencies, 0.5), percentile(latencies, 0.99),
                 failures, server_cpu, client_cpu, len(latencies))


WRK_SCRIPT = """\
-- One request, again and again: method, body (read from a file) and header.
wrk.method = "{method}"
{body}wrk.headers["Content-Type"] = "application/json"
"""
WRK_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def wrk_script(work, name, method, body):
    """A wrk Lua script sending `body` (str or None) by `method`."""
    load = ""
    if body is not None:
        body_path = os.path.join(work, name + ".json")
        with open(body_path, "w") as f:
            f.write(body)
        load = f'local f = io.open("{body_path}", "rb")\nwrk.body = f:read("*a")\nf:close()\n'
    path = os.path.join(work, name + ".lua")
    with open(path, "w") as f:
        f.write(WRK_SCRIPT.format(method=method, body=load))
    return path


def wrk_run(port, path, script, connections, threads, seconds):
    """One wrk run: (requests answered 2xx, failed, seconds, {percentile: s},
    wrk's CPU seconds). wrk has no bound on requests, only on time, in
    whole seconds (at least 1)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = subprocess.run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{max(1, round(seconds))}s",
                           "--latency", "-s", script, f"http://127.0.0.1:{port}{path}"],
                          capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", text)
    if not match:
        sys.exit(f"wrk printed no request count:\n{text}")
    total, span = int(match.group(1)), float(match.group(2)) * WRK_UNITS[match.group(3)]
    failed = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", text))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if errors:
        failed += sum(int(n) for n in errors.groups())
    latency = {float(q) / 100: float(v) * WRK_UNITS[u]
               for q, v, u in re.findall(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s|m)$", text, re.M)}
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return total - min(failed, total), failed, span, latency, cpu


def wrk_round(server, path, script, args):
    """One round of args.clients connections in args.processes wrk threads."""
    server_cpu = cpu_seconds(server.process.pid)
    answered, failed, span, latency, client_cpu = wrk_run(
        server.port, path, script, args.clients, args.processes, args.seconds)
    server_cpu = cpu_seconds(server.process.pid) - server_cpu
    return Round(answered / span, latency[0.5], latency[0.99], failed, server_cpu, client_cpu, answered)


def wrk_sequential(port, requests, rounds, seconds, work):
    """sequential() by wrk: one connection; per block wrk's median latency,
    then the median over the rounds of each."""
    scripts = [wrk_script(work, f"seq{i}", method, body)
               for i, (method, _, body, _) in enumerate(requests)]
    medians = [[] for _ in requests]
    for r in range(rounds):
        for i in alternating(range(len(requests)), r):
            answered, failed, _, latency, _ = wrk_run(port, requests[i][1], scripts[i], 1, 1, seconds)
            if failed or not answered:
                sys.exit(f"{requests[i][0]} {requests[i][1]}: {failed} requests failed")
            medians[i].append(latency[0.5])
    return [statistics.median(m) for m in medians]


def alternating(items, r):
    """items in round r's order: as given in even rounds, reversed in odd
    ones (A B, B A, ...), so that a drift in the machine's load hits both."""
    items = list(items)
    return items if r % 2 == 0 else items[::-1]


def percentile(values, q):
    if not values:  # every request of the round failed
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def same_outputs(a, b, where):
    """The two servers' outputs agree (numbers to float32's precision)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            sys.exit(f"{where}: keys {sorted(a)} != {sorted(b)}")
        for k in a:
            same_outputs(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            sys.exit(f"{where}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            same_outputs(x, y, f"{where}[{i}]")
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if abs(a - b) > 1e-6 * max(1.0, abs(a), abs(b)):
            sys.exit(f"{where}: {a} != {b}")
    elif a != b:
        sys.exit(f"{where}: {a!r} != {b!r}")


def check_same(servers, path, body):
    answers = []
    for server in servers:
        status, text = request_once(server.port, "POST", path, body)
        if status != 200:
            sys.exit(f"{server.label} {path}: HTTP {status}: {text[:300]!r}")
        answers.append(json.loads(text)["outputs"])
    same_outputs(answers[0], answers[1], path + " outputs")


def sequential(port, requests, rounds, seconds):
    """One keep-alive connection: [(method, path, body, count)] in blocks,
    each block of every request in turn (count of it, or seconds), rounds
    times; the median seconds of each."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    times = [[] for _ in requests]
    for r in range(rounds):
        for i in alternating(range(len(requests)), r):
            method, path, body, count = requests[i]
            until = time.monotonic() + seconds
            for _ in range(count):
                if time.monotonic() > until:
                    break
                start = time.perf_counter()
                connection.request(method, path, body, headers)
                response = connection.getresponse()
                response.read()
                times[i].append(time.perf_counter() - start)
                if response.status != 200:
                    sys.exit(f"{method} {path}: HTTP {response.status}")
    connection.close()
    return [statistics.median(t) for t in times]


def ratio_row(pairs):
    """'median (min–max)' of the per-pair ratios."""
    if not pairs:
        return "–"
    m = statistics.median(pairs)
    return f"{m:.2f} ({min(pairs):.2f}–{max(pairs):.2f})" if len(pairs) > 1 else f"{m:.2f}"


def versions(tsb_port):
    text = subprocess.run([sys.executable, "-c",
                           "import torch, fastapi, uvicorn; "
                           "print(torch.__version__, fastapi.__version__, uvicorn.__version__)"],
                          capture_output=True, text=True, check=True).stdout.split()
    _, server = request_once(tsb_port, "GET", "/v2")
    return {"torch": text[0], "fastapi": text[1], "uvicorn": text[2],
            "tsb": json.loads(server)["version"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tsb", required=True, help="the tsb binary")
    parser.add_argument("--c-baseline", help="bench/serve_noop_c_baseline (no C row without it)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2,
                        help="client processes the clients are split over (threads in each)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(),
                        help="calls at once, on both servers")
    parser.add_argument("--rounds", type=int, default=6, help="rounds per server and model")
    parser.add_argument("--requests", type=int, default=1000, help="per client and round, at most")
    parser.add_argument("--seconds", type=float, default=10,
                        help="per round, at most (a quarter of it per no-op block)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests per client and round")
    parser.add_argument("--noop-requests", type=int, default=500,
                        help="per block, at most (x 2 blocks x rounds)")
    parser.add_argument("--calls", type=int, default=20000, help="C calls per batch (x 21)")
    parser.add_argument("--client", choices=["python", "wrk"], default="python",
                        help="the load: Python's http.client, or wrk (threads: --processes; "
                             "no --requests bound: --seconds, whole, a quarter of it for "
                             "each no-op block, at least 1)")
    args = parser.parse_args()
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        print(f"serve_bench: skipped, {e.name} is not installed "
              "(apt-get install python3-fastapi python3-uvicorn)")
        return SKIP
    if args.client == "wrk" and not shutil.which("wrk"):
        print("serve_bench: skipped, wrk is not installed (apt-get install wrk)")
        return SKIP

    load_before = os.getloadavg()
    work = tempfile.mkdtemp(prefix="tsb-serve-bench-")
    servers = []
    try:
        repository = os.path.join(work, "repository")
        # The models, by a child: the parent imports no torch, so that it can
        # fork its client processes.
        subprocess.run([sys.executable, os.path.join(HERE, "make_serve_bench_models.py"), repository],
                       check=True)
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        workers = str(args.workers)
        servers.append(Server("tsb serve", [args.tsb, "serve", repository, "--address", "127.0.0.1",
                                            "--port", "0", "--workers", workers],
                              os.path.join(work, "tsb.log"), env))
        servers.append(Server("FastAPI", [sys.executable, os.path.join(HERE, "serve_fastapi_baseline.py"),
                                          repository, "--port", "0", "--workers", workers,
                                          "--threads", "1"],
                              os.path.join(work, "fastapi.log"), env))
        bodies = {model: json.dumps(body) for _, model, body in CASES}
        bodies["noop"] = json.dumps(NOOP_BODY)
        v = versions(servers[0].port)
        for model, body in bodies.items():
            check_same(servers, f"/v2/models/{model}/infer", body)

        failed = 0
        rows, ratio_rows = [], []
        for label, model, _ in CASES:
            path = f"/v2/models/{model}/infer"
            runs = {s.label: [] for s in servers}
            script = wrk_script(work, model, "POST", bodies[model]) if args.client == "wrk" else None
            for r in range(args.rounds):
                for server in alternating(servers, r):
                    runs[server.label].append(wrk_round(server, path, script, args) if script else
                                              load_round(server, path, bodies[model], args))
            # The python client's warm-up requests are answered too (CPU per request).
            warmup = 0 if script else args.warmup * args.clients
            for server in servers:
                rounds = runs[server.label]
                failures = sum(r.failures for r in rounds)
                failed += failures
                answered = sum(r.answered + r.failures + warmup for r in rounds)
                rows.append((label, server.label, statistics.median(r.rate for r in rounds),
                             statistics.median(r.p50 for r in rounds) * 1e3,
                             statistics.median(r.p99 for r in rounds) * 1e3,
                             sum(r.server_cpu for r in rounds) / answered * 1e6,
                             sum(r.client_cpu for r in rounds) / answered * 1e6,
                             # CPU seconds per second: whether all its workers had work
                             # (uvicorn's processes share the socket; the kernel may
                             # give one of them every connection of a round).
                             statistics.median(r.server_cpu * r.rate / r.answered
                                               for r in rounds if r.answered) if answered else 0.0,
                             sum(r.answered for r in rounds), failures))
            tsb_runs, fa_runs = runs["tsb serve"], runs["FastAPI"]
            throughput = [a.rate / b.rate for a, b in zip(tsb_runs, fa_runs)]
            p99 = [b.p99 / a.p99 for a, b in zip(tsb_runs, fa_runs)]
            # A round of a few requests may take less CPU than the clock's tick
            # (ctest's smoke run): such pairs have no CPU ratio.
            cpu = [(b.server_cpu / (b.answered + b.failures)) / (a.server_cpu / (a.answered + a.failures))
                   for a, b in zip(tsb_runs, fa_runs) if a.server_cpu > 0 and b.server_cpu > 0]
            ratio_rows.append((label, ratio_row(throughput), statistics.median(throughput),
                               ratio_row(p99), statistics.median(p99), ratio_row(cpu)))

        # The no-op: infer and the empty request on one connection, blocks alternating.
        noop = ("POST", "/v2/models/noop/infer", bodies["noop"], args.noop_requests)
        live = ("GET", "/v2/health/live", None, args.noop_requests)
        if args.client == "wrk":
            tsb_noop, tsb_live = wrk_sequential(servers[0].port, [noop, live], args.rounds,
                                                args.seconds / 4, work)
            fa_noop, fa_live = wrk_sequential(servers[1].port, [noop, live], args.rounds,
                                              args.seconds / 4, work)
        else:
            tsb_noop, tsb_live = sequential(servers[0].port, [noop, live], args.rounds, args.seconds / 4)
            fa_noop, fa_live = sequential(servers[1].port, [noop, live], args.rounds, args.seconds / 4)
        call = None
        if args.c_baseline:
            text = subprocess.run([args.c_baseline, os.path.join(repository, "noop", "1", "model.pt"),
                                   str(args.calls), json.dumps({"dtype": "float32", "shape": [1, 4],
                                                                "data": [1, 2, 3, 4]})],
                                  capture_output=True, text=True, env=env, check=True).stdout
            call = float(text.split()[1]) * 1e-9
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()

    client = (f"wrk, {args.clients} connections in {args.processes} threads" if args.client == "wrk"
              else f"http.client, {args.clients} clients in {args.processes} processes")
    bound = (f"{args.seconds:g} s" if args.client == "wrk"
             else f"at most {args.requests} requests per client or {args.seconds:g} s")
    print(f"tsb serve {v['tsb']}, torch {v['torch']}, FastAPI {v['fastapi']}, uvicorn {v['uvicorn']}; "
          f"{client}, {args.workers} workers on each server, intra-op threads 1; "
          f"{args.rounds} rounds per server of {bound}; req/s, p50 and p99: medians of the rounds; "
          f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print()
    print("| model | server | req/s | p50 ms | p99 ms | server CPU µs/req "
          "| client CPU µs/req | server cores busy | requests | failed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, server, rate, p50, p99, server_cpu, client_cpu, cores, n, failures in rows:
        print(f"| {label} | {server} | {rate:.0f} | {p50:.2f} | {p99:.2f} | {server_cpu:.0f} "
              f"| {client_cpu:.0f} | {cores:.2f} | {n} | {failures} |")
    print()
    print("| model | tsb ÷ FastAPI throughput (goal ≥ 3) | FastAPI ÷ tsb p99 (goal ≥ 3) "
          "| FastAPI ÷ tsb server CPU per request |")
    print("|---|---|---|---|")
    for label, throughput, t, p99, p, cpu in ratio_rows:
        print(f"| {label} | {throughput}, {'met' if t >= 3 else 'missed'} | "
              f"{p99}, {'met' if p >= 3 else 'missed'} | {cpu} |")
    print()
    print("| no-op, one client, sequential, keep-alive (medians) | µs |")
    print("|---|---|")
    print(f"| tsb serve: POST /v2/models/noop/infer | {tsb_noop * 1e6:.1f} |")
    print(f"| tsb serve: GET /v2/health/live (the empty round trip) | {tsb_live * 1e6:.1f} |")
    if call is not None:
        print(f"| C ABI: tsb_module_call(forward, x) | {call * 1e6:.2f} |")
        ratio = tsb_noop / (call + tsb_live)
        verdict = "met" if ratio <= 1.5 else "missed"
        if tsb_live > 0.02:  # a stall on the socket, not work: the ratio says nothing
            verdict = "not meaningful: the empty round trip itself stalls (Nagle's algorithm?)"
        print(f"| **no-op infer ÷ (C call + empty round trip)** (goal ≤ 1.5) | "
              f"**{ratio:.2f}**, {verdict} |")
    print(f"| FastAPI: POST /v2/models/noop/infer | {fa_noop * 1e6:.1f} |")
    print(f"| FastAPI: GET /v2/health/live | {fa_live * 1e6:.1f} |")
    if failed:
        print(f"serve_bench: {failed} requests failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
