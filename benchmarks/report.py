#!/usr/bin/env python3
"""Turns the JMH JSON of benchmarks/run into results/summary.md and results/engine-raw-ratios.svg.

Usage: report.py RESULTS_DIR [--readme README.md]
       report.py --goals RESULTS_DIR         (only the goal table: RESULTS_DIR/goals.md)
       report.py --compare A.json B.json [--labels A B]

With --readme, the text between the markers <!-- results:start --> and <!-- results:end -->
in the README is replaced by the summary. --compare prints, per benchmark and parameters
found in both files, the two scores (means of every fork, over all runs of it in a file), the
ratio of B's time to A's (below 1: B is faster) with a 95 % interval from the spread of the
forks, whether that interval excludes 1, and both allocations. Standard library only.
"""
import glob
import json
import math
import os
import re
import sys

STORES = ["MEMORY", "H2", "POSTGRES", "MARIADB", "REDIS", "REDIS_CLUSTER", "DYNAMODB"]
REMOTE = {"POSTGRES", "MARIADB", "REDIS", "REDIS_CLUSTER", "DYNAMODB"}
# The speed goals: engine over raw on remote stores, the fingerprint, the memory replay.
REMOTE_TARGET = 1.05
FINGERPRINT_TARGET = 1.0
FINGERPRINT_ALLOC_PER_BYTE = 1.5
MEMORY_REPLAY_TARGET = 1.2
MEMORY_REPLAY_EXTRA_BYTES = 1024
# The cost-split goals (besides the fingerprint and memory goals above, which they keep).
ENGINE_CPU_TARGET_US = 2.0
# The engine's CPU on a replay after the thread slept 100 µs (its code and data back into caches).
ENGINE_CPU_AFTER_WAIT_TARGET_US = 5.0
PROTOCOL_REPLAY_TARGET = 1.1
# Stores whose replay is one request that only reads (Redis' claim script answers a completed
# record at once; DynamoDB's claim meets it with one conditional write): held closer to raw.
NO_EXTRA_TRIP = {"REDIS", "REDIS_CLUSTER", "DYNAMODB"}
NO_EXTRA_TRIP_REPLAY_TARGET = 1.05
SIZES = ["100", "1024", "10240", "102400"]
PATHS = ["First", "Replay", "Conflict"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def short(name):
    return name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1]


def index(runs):
    """(Class.method, frozenset(params)) -> run."""
    out = {}
    for r in runs:
        out[(short(r["benchmark"]), tuple(sorted((r.get("params") or {}).items())))] = r
    return out


def score(run):
    return run["primaryMetric"]["score"]


def err(run):
    e = run["primaryMetric"].get("scoreError")
    return e if isinstance(e, (int, float)) and not math.isnan(e) else float("nan")


def alloc(run):
    m = (run.get("secondaryMetrics") or {}).get("gc.alloc.rate.norm")
    return m["score"] if m else float("nan")


def fmt(x, digits=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}f}"


def verdict(ratio, target):
    return "met" if ratio <= target else "**missed**"


def fingerprint_section(ix):
    lines = ["### Fingerprint: canonicalize + SHA-256 vs SHA-256 of the bytes vs Jackson readTree + writeValueAsBytes", "",
             "| size | fingerprint MB/s | SHA-256 MB/s | Jackson MB/s | fingerprint / Jackson (time) | fingerprint / SHA-256 (time) | fingerprint B/op | Jackson B/op |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    targets = []
    for size in SIZES:
        p = (("size", size),)
        fp = ix.get(("FingerprintBenchmark.fingerprint", p))
        sha = ix.get(("FingerprintBenchmark.sha256", p))
        jk = ix.get(("FingerprintBenchmark.jacksonRoundTrip", p))
        if not (fp and sha and jk):
            continue
        mb = lambda r: score(r) * int(size) / 1e6
        r_jk = score(jk) / score(fp)
        r_sha = score(sha) / score(fp)
        lines.append(f"| {int(size):,} B | {fmt(mb(fp))} | {fmt(mb(sha))} | {fmt(mb(jk))} | {r_jk:.2f}x | {r_sha:.1f}x | "
                     f"{fmt(alloc(fp), 0)} | {fmt(alloc(jk), 0)} |")
        per_byte = alloc(fp) / int(size)
        targets.append(f"{int(size):,} B {r_jk:.2f}x ({verdict(r_jk, FINGERPRINT_TARGET)}), "
                       f"{per_byte:.2f} B allocated per document byte ({verdict(per_byte, FINGERPRINT_ALLOC_PER_BYTE)})")
    if targets:
        lines += ["", f"Target: at most {FINGERPRINT_TARGET:.1f}x the Jackson round trip's time and "
                  f"{FINGERPRINT_ALLOC_PER_BYTE} B allocated per document byte, at every size: " + "; ".join(targets) + "."]
    return lines


def store_section(ix):
    lines = ["### Engine vs raw baseline per store (average time per call, µs; ratio = engine / raw)", "",
             "| store | first: engine | first: raw | **first ratio** | replay: engine | replay: raw | **replay ratio** | conflict: engine | conflict: raw | **conflict ratio** |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    ratios = {}
    targets = []
    for store in STORES:
        p = (("backend", store),)
        row = [store.lower()]
        for path in PATHS:
            e = ix.get((f"StoreBenchmark.engine{path}", p))
            r = ix.get((f"StoreBenchmark.raw{path}", p))
            if not (e and r):
                row += ["n/a", "n/a", "n/a"]
                continue
            ratio = score(e) / score(r)
            ratios[(store, path)] = ratio
            row += [f"{fmt(score(e))} ± {fmt(err(e))}", f"{fmt(score(r))} ± {fmt(err(r))}", f"**{ratio:.2f}x**"]
            if store in REMOTE and path in ("First", "Replay"):
                targets.append(f"{store.lower()} {path.lower()} {ratio:.2f}x ({verdict(ratio, REMOTE_TARGET)})")
        lines.append("| " + " | ".join(row) + " |")
    if targets:
        lines += ["", f"Target: remote stores, engine first execution and replay within {REMOTE_TARGET:.2f}x of raw: "
                  + "; ".join(targets) + "."]
    return lines, ratios


def memory_section(ix):
    lines = []
    rep = ix.get(("MemoryReplayBenchmark.replay", ()))
    fpa = ix.get(("MemoryReplayBenchmark.fingerprintAlone", ()))
    if rep and fpa:
        ratio = score(rep) / score(fpa)
        lines += ["### Memory store: replay of the ~200-byte request vs fingerprinting it alone", "",
                  "| replay (ns) | fingerprint alone (ns) | ratio | replay B/op | fingerprint B/op |",
                  "| ---: | ---: | ---: | ---: | ---: |",
                  f"| {fmt(score(rep))} ± {fmt(err(rep))} | {fmt(score(fpa))} ± {fmt(err(fpa))} | **{ratio:.2f}x** | "
                  f"{fmt(alloc(rep), 0)} | {fmt(alloc(fpa), 0)} |",
                  "", f"Target: within {MEMORY_REPLAY_TARGET}x: measured **{ratio:.2f}x**, "
                  f"{verdict(ratio, MEMORY_REPLAY_TARGET)}; at most {MEMORY_REPLAY_EXTRA_BYTES:,} B allocated beyond the "
                  f"fingerprint's: measured {fmt(round(alloc(rep) - alloc(fpa)), 0)} B, "
                  f"{verdict(round(alloc(rep) - alloc(fpa)), MEMORY_REPLAY_EXTRA_BYTES)}."]
        dec = ix.get(("MemoryReplayBenchmark.decodeAlone", ()))
        if dec:
            lines += ["", f"Decoding the stored ~70-byte result alone (Jackson, the part of a replay that is not the "
                      f"fingerprint or the store): {fmt(score(dec))} ns, {fmt(alloc(dec), 0)} B."]
    alloc_rows = []
    for path in PATHS:
        for kind in ("engine", "raw"):
            r = ix.get((f"StoreBenchmark.{kind}{path}", (("backend", "MEMORY"),)))
            if r:
                alloc_rows.append(f"| memory | {kind}{path} | {fmt(alloc(r), 0)} |")
    if alloc_rows:
        lines += ["", "### Allocation per call, memory store (JMH -prof gc, gc.alloc.rate.norm)", "",
                  "| store | benchmark | bytes/op |", "| --- | --- | ---: |"] + alloc_rows
    return lines


def steps_section(ix):
    """Recovery points: a first execution with no step, one step and three steps, per store."""
    rows = []
    for store in STORES:
        p = (("backend", store),)
        plain = ix.get(("StepBenchmark.plainExecution", p))
        one = ix.get(("StepBenchmark.oneStep", p))
        three = ix.get(("StepBenchmark.threeSteps", p))
        if not (plain and one and three):
            continue
        per_step = (score(three) - score(plain)) / 3
        rows.append(f"| {store.lower()} | {fmt(score(plain))} ± {fmt(err(plain))} | {fmt(score(one))} ± {fmt(err(one))} "
                    f"| {fmt(score(three))} ± {fmt(err(three))} | {fmt(score(one) - score(plain))} | {fmt(per_step)} |")
    if not rows:
        return []
    return ["### Steps: first execution with no step, one step, three steps (µs per call)", "",
            "| store | no step | one step | three steps | one step - no step | per step, from three |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"] + rows + [
            "", "Each step journals its result with one fenced `checkpoint` (one round trip on a remote store)."]


def contention_section(results_dir):
    runs = []
    for path in sorted(glob.glob(os.path.join(results_dir, "jmh-contention-t*.json"))):
        runs += load(path)
    if not runs:
        return []
    side = {}
    for path in glob.glob(os.path.join(results_dir, "contention-*.json")):
        d = load(path)
        side[(d["backend"], d["keys"], int(d["threads"]))] = d
    lines = ["### Contention (throughput of all calls; losers = calls that met the key in progress or completed)", "",
             "| store | keys | threads | calls/s | wins/s | losses/s | loser p50 µs | loser p99 µs |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rows = []
    for r in runs:
        p = r.get("params") or {}
        threads = int(r["threads"])
        sec = r.get("secondaryMetrics") or {}
        s = side.get((p.get("backend"), p.get("keys"), threads), {})
        has_losers = s.get("losses", 0) > 0
        rows.append(((p.get("backend"), p.get("keys"), threads),
                     f"| {p.get('backend', '').lower()} | {p.get('keys', '').lower()} | {threads} | {fmt(score(r))} | "
                     f"{fmt(sec.get('wins', {}).get('score', float('nan')))} | "
                     f"{fmt(sec.get('losses', {}).get('score', float('nan')))} | "
                     f"{fmt(s.get('loserP50Micros')) if has_losers else '-'} | "
                     f"{fmt(s.get('loserP99Micros')) if has_losers else '-'} |"))
    rows.sort(key=lambda t: (STORES.index(t[0][0]) if t[0][0] in STORES else 99, t[0][1] or "", t[0][2]))
    return lines + [row for _, row in rows]


def scaling_section(results_dir):
    """Throughput on distinct keys for 1, 2, 4, 8 threads (ScalingBenchmark)."""
    runs = []
    for path in sorted(glob.glob(os.path.join(results_dir, "jmh-scaling-t*.json"))):
        runs += load(path)
    if not runs:
        return []
    table = {}
    for r in runs:
        table.setdefault(short(r["benchmark"]).split(".")[1], {})[int(r["threads"])] = score(r)
    threads = sorted({t for row in table.values() for t in row})
    lines = ["### Scaling on distinct keys (calls/s; in brackets: speed-up over one thread)", "",
             "| benchmark | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) + " |",
             "| --- |" + " ---: |" * len(threads)]
    for name in ("storeFirst", "storeReplay", "engineFirst", "engineReplay"):
        row = table.get(name)
        if not row:
            continue
        one = row.get(1)
        cells = [f"{fmt(row[t])}" + (f" ({row[t] / one:.2f}x)" if one and t != 1 else "") if t in row else "n/a"
                 for t in threads]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "On a machine with N cores the speed-up can reach about N (fewer when the backend shares them)."]
    return lines


def cpu(run):
    m = (run.get("secondaryMetrics") or {}).get("cpu.time.norm")
    return m["score"] if m else float("nan")


def cost_split_rows(ix, results_dir):
    """The cost-split rows: the cost split per store, the fingerprint's String and byte[] APIs,
    the near cache, scaling at 8 threads over 2 and the hot key."""
    rows = []
    for size in SIZES:
        p = (("size", size),)
        jk = ix.get(("FingerprintBenchmark.jacksonRoundTrip", p))
        for api in ("canonicalString", "canonicalBytes", "sha256String", "sha256Bytes"):
            run = ix.get((f"FingerprintBenchmark.{api}", p))
            if jk and run:
                # Throughput mode: Jackson's rate over ours is our time over Jackson's.
                r = score(jk) / score(run)
                rows.append((f"{api} {int(size):,} B / Jackson round trip (time)", f"{r:.2f}x",
                             f"<= {FINGERPRINT_TARGET:.1f}x", verdict(r, FINGERPRINT_TARGET)))
        jt, ct = ix.get(("FingerprintBenchmark.jacksonText", p)), ix.get(("FingerprintBenchmark.canonicalText", p))
        if jt and ct:
            # String in, String out on both sides: what canonicalize(String) costs against Jackson.
            r = score(jt) / score(ct)
            rows.append((f"canonicalText {int(size):,} B / Jackson text round trip (time)", f"{r:.2f}x",
                         f"<= {FINGERPRINT_TARGET:.1f}x", verdict(r, FINGERPRINT_TARGET)))
    for store in STORES:
        if store not in REMOTE:
            continue
        p = (("backend", store),)
        for path in ("First", "Replay"):
            e, a, r = (ix.get((f"StoreBenchmark.{who}{path}", p)) for who in ("engine", "adapter", "raw"))
            if e and a:
                rows.append((f"{store.lower()} {path.lower()}: engine / adapter (time)",
                             f"{score(e) / score(a):.2f}x ({fmt(score(e))} / {fmt(score(a))} µs)", "-", "reported"))
                extra = cpu(e) - cpu(a)
                if not math.isnan(extra):
                    rows.append((f"{store.lower()} {path.lower()}: engine CPU beyond the adapter's (cpu.time.norm)",
                                 f"{extra / 1000:.2f} µs", f"<= {ENGINE_CPU_TARGET_US} µs",
                                 verdict(extra / 1000, ENGINE_CPU_TARGET_US)))
            if a and r:
                ratio = score(a) / score(r)
                target = PROTOCOL_REPLAY_TARGET if path == "Replay" else None
                rows.append((f"{store.lower()} {path.lower()}: adapter / raw (time)",
                             f"{ratio:.2f}x ({fmt(score(a))} / {fmt(score(r))} µs)",
                             f"<= {target:.1f}x" if target else "-", verdict(ratio, target) if target else "reported"))
        n, e = ix.get(("StoreBenchmark.nearCacheReplay", p)), ix.get(("StoreBenchmark.engineReplay", p))
        if n and e:
            rows.append((f"{store.lower()} replay: near cache / engine (time)",
                         f"{score(n) / score(e):.3f}x ({fmt(score(n))} / {fmt(score(e))} µs)", "-", "reported"))
    rows += paired_rows(ix)
    runs = []
    for path in sorted(glob.glob(os.path.join(results_dir, "jmh-scaling-t*.json"))):
        runs += load(path)
    table = {}
    for r in runs:
        table.setdefault(short(r["benchmark"]).split(".")[1], {})[int(r["threads"])] = score(r)
    for name in ("storeFirst", "storeReplay", "engineFirst", "engineReplay"):
        row = table.get(name, {})
        if 2 in row and 8 in row:
            ratio = row[8] / row[2]
            rows.append((f"scaling {name}: 8 threads / 2 threads (throughput)", f"{ratio:.2f}x",
                         ">= 1.0x", "met" if ratio >= 1.0 else "**missed**"))
    hot = os.path.join(results_dir, "jmh-hotkey.json")
    if os.path.exists(hot):
        by_waiting = {}
        for r in load(hot):
            other = (r.get("secondaryMetrics") or {}).get("otherKeys")
            if other:
                by_waiting[(r.get("params") or {}).get("waiting")] = other["score"]
        if "0" in by_waiting and "6" in by_waiting:
            ratio = by_waiting["6"] / by_waiting["0"]
            rows.append(("hot key: other keys' throughput with 6 waiters / with none", f"{ratio:.2f}x", ">= 0.9x",
                         "met" if ratio >= 0.9 else "**missed**"))
    return rows


def paired_rows(ix):
    """The split measured side by side (PairedStoreBenchmark): the ratios of per-call sums, and
    the lowest and highest of that ratio over the iterations, which shows how steady it was. Runs
    with a pause before each call (pauseMicros) get their own rows: the engine's CPU after the
    thread slept, against its own target."""
    rows = []

    def sums(sec, name):
        m = sec.get(name)
        raw = [x for fork in (m or {}).get("rawData", []) for x in fork]
        return (m["score"] if m else float("nan")), raw

    def ratio(sec, top, bottom):
        (t, traw), (b, braw) = sums(sec, top), sums(sec, bottom)
        per = [x / y for x, y in zip(traw, braw) if y]
        spread = f"; iterations {min(per):.2f}-{max(per):.2f}x" if per else ""
        return t / b, spread

    # Keyed by backend, path and pause, whether or not the run's JSON names pauseMicros (runs made
    # before it existed do not).
    found = {}
    for (name, params), run in ix.items():
        if name == "PairedStoreBenchmark.threeCalls":
            p = dict(params)
            found[(p.get("backend"), p.get("path"), int(p.get("pauseMicros", "0")))] = run
    pauses = sorted({k[2] for k in found})
    for store in STORES:
        for path in ("FIRST", "REPLAY"):
            for pause in pauses:
                run = found.get((store, path, pause))
                if not run:
                    continue
                sec = run.get("secondaryMetrics") or {}
                calls = sums(sec, "calls")[0]
                if not calls:
                    continue
                us = {who: sums(sec, who + "Nanos")[0] / calls / 1000 for who in ("engine", "adapter", "raw")}
                name = f"{store.lower()} {path.lower()}" + (f" after a {pause} µs pause" if pause else "")
                r, spread = ratio(sec, "engineNanos", "adapterNanos")
                rows.append((f"{name}: engine / adapter (time, paired)",
                             f"{r:.2f}x ({fmt(us['engine'])} / {fmt(us['adapter'])} µs{spread})", "-", "reported"))
                extra = (sums(sec, "engineCpuNanos")[0] - sums(sec, "adapterCpuNanos")[0]) / calls / 1000
                cpu_target = ENGINE_CPU_AFTER_WAIT_TARGET_US if pause else ENGINE_CPU_TARGET_US
                rows.append((f"{name}: engine CPU beyond the adapter's (thread CPU, paired)", f"{extra:.2f} µs",
                             f"<= {cpu_target} µs", verdict(extra, cpu_target)))
                if store not in REMOTE:
                    continue
                r, spread = ratio(sec, "adapterNanos", "rawNanos")
                target = None
                if path == "REPLAY":
                    target = NO_EXTRA_TRIP_REPLAY_TARGET if store in NO_EXTRA_TRIP else PROTOCOL_REPLAY_TARGET
                rows.append((f"{name}: adapter / raw (time, paired)",
                             f"{r:.2f}x ({fmt(us['adapter'])} / {fmt(us['raw'])} µs{spread})",
                             f"<= {target:.2f}x" if target else "-", verdict(r, target) if target else "reported"))
    return rows


def goals(results_dir, with_scaling=True):
    """The goal table, one line per goal, from whatever the run measured."""
    ix = {}
    paths = [os.path.join(results_dir, name) for name in ("jmh-main.json", "jmh-goals.json")]
    paths += sorted(glob.glob(os.path.join(results_dir, "jmh-goals-store-*.json")))
    paths.append(os.path.join(results_dir, "jmh-goals-paired.json"))
    paths.append(os.path.join(results_dir, "jmh-goals-paired-pause.json"))
    for path in paths:
        if os.path.exists(path):
            ix.update(index(load(path)))
    rows = []
    for size in SIZES:
        p = (("size", size),)
        fp, jk = ix.get(("FingerprintBenchmark.fingerprint", p)), ix.get(("FingerprintBenchmark.jacksonRoundTrip", p))
        if fp and jk:
            r = score(jk) / score(fp)
            rows.append((f"fingerprint {int(size):,} B / Jackson round trip (time)", f"{r:.2f}x",
                         f"<= {FINGERPRINT_TARGET:.1f}x", verdict(r, FINGERPRINT_TARGET)))
            per_byte = alloc(fp) / int(size)
            rows.append((f"fingerprint {int(size):,} B: allocated per document byte", f"{per_byte:.2f} B "
                         f"({fmt(alloc(fp), 0)} B)", f"<= {FINGERPRINT_ALLOC_PER_BYTE}", verdict(per_byte, FINGERPRINT_ALLOC_PER_BYTE)))
    for store in STORES:
        if store not in REMOTE:
            continue
        for path in ("First", "Replay"):
            p = (("backend", store),)
            e, r = ix.get((f"StoreBenchmark.engine{path}", p)), ix.get((f"StoreBenchmark.raw{path}", p))
            if e and r:
                ratio = score(e) / score(r)
                rows.append((f"{store.lower()} {path.lower()}: engine / raw (time)",
                             f"{ratio:.2f}x ({fmt(score(e))} / {fmt(score(r))} µs)", f"<= {REMOTE_TARGET:.2f}x",
                             verdict(ratio, REMOTE_TARGET)))
    rep, fpa = ix.get(("MemoryReplayBenchmark.replay", ())), ix.get(("MemoryReplayBenchmark.fingerprintAlone", ()))
    if rep and fpa:
        ratio = score(rep) / score(fpa)
        rows.append(("memory replay / fingerprint alone (time)", f"{ratio:.2f}x ({fmt(score(rep))} / {fmt(score(fpa))} ns)",
                     f"<= {MEMORY_REPLAY_TARGET}x", verdict(ratio, MEMORY_REPLAY_TARGET)))
        # gc.alloc.rate.norm carries a fraction of a byte of the harness's own allocation.
        extra = round(alloc(rep) - alloc(fpa))
        rows.append(("memory replay: allocated beyond the fingerprint's", f"{fmt(extra, 0)} B",
                     f"<= {MEMORY_REPLAY_EXTRA_BYTES:,} B", verdict(extra, MEMORY_REPLAY_EXTRA_BYTES)))
    rows += cost_split_rows(ix, results_dir)
    lines = ["| goal | measured | target | verdict |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    scaling = scaling_section(results_dir) if with_scaling else []
    if scaling:
        lines += [""] + scaling
    return lines


def grouped(runs):
    """(Class.method, params, threads) -> every run of it (a compare with --rounds has several)."""
    out = {}
    for r in runs:
        key = (short(r["benchmark"]), tuple(sorted((r.get("params") or {}).items())), r.get("threads", 1))
        out.setdefault(key, []).append(r)
    return out


def fork_means(runs):
    """The mean of each fork of these runs: the unit that varies on a shared host."""
    means = []
    for r in runs:
        for fork in r["primaryMetric"].get("rawData") or []:
            if fork:
                means.append(sum(fork) / len(fork))
    return means or [score(r) for r in runs]


# Two-sided 95 % quantiles of Student's t by degrees of freedom (1.96 past the table).
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}


def t95(df):
    if df < 1:
        return float("inf")
    return T95[max(d for d in T95 if d <= df)] if df <= 30 else 1.96


def mean_and_rel_se(xs):
    m = sum(xs) / len(xs)
    if len(xs) < 2 or m == 0:
        return m, float("inf")
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs)) / abs(m)


def time_ratio(runs_a, runs_b, throughput):
    """B's time over A's from the fork means of both, and its 95 % interval (Welch-style, log scale)."""
    fa, fb = fork_means(runs_a), fork_means(runs_b)
    ma, ra = mean_and_rel_se(fa)
    mb, rb = mean_and_rel_se(fb)
    ratio = ma / mb if throughput else mb / ma
    rel = math.sqrt(ra ** 2 + rb ** 2)
    if math.isinf(rel) or ratio <= 0:
        return ratio, float("nan"), float("nan")
    # Welch-Satterthwaite degrees of freedom, on the relative variances of the two means.
    df = rel ** 4 / (ra ** 4 / (len(fa) - 1) + rb ** 4 / (len(fb) - 1)) if rel > 0 else 1e9
    half = t95(int(df)) * rel
    return ratio, ratio * math.exp(-half), ratio * math.exp(half)


def compare(path_a, path_b, labels):
    a, b = grouped(load(path_a)), grouped(load(path_b))
    lines = [f"| benchmark | params | {labels[0]} | {labels[1]} | forks | time {labels[1]}/{labels[0]} "
             f"(95 % interval) | verdict | alloc {labels[0]} B/op | alloc {labels[1]} B/op |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for k in sorted(set(a) & set(b)):
        ra, rb = a[k], b[k]
        unit = ra[0]["primaryMetric"].get("scoreUnit", "")
        # Throughput is calls per time: the time ratio is the inverse of the score ratio.
        throughput = "/s" in unit or "ops/" in unit
        ratio, low, high = time_ratio(ra, rb, throughput)
        if math.isnan(low):
            verdict_text = "too few forks to judge"
        elif low > 1:
            verdict_text = "**slower**"
        elif high < 1:
            verdict_text = "faster"
        else:
            verdict_text = "equal within noise"
        params = ", ".join(f"{n}={v}" for n, v in k[1]) or "-"
        if k[2] != 1:
            params += f", threads={k[2]}"
        sa, sb = fork_means(ra), fork_means(rb)
        alloc_a = sum(alloc(r) for r in ra) / len(ra)
        alloc_b = sum(alloc(r) for r in rb) / len(rb)
        lines.append(f"| {k[0]} | {params} | {fmt(sum(sa) / len(sa))} {unit} | {fmt(sum(sb) / len(sb))} {unit} | "
                     f"{len(sa)}/{len(sb)} | **{ratio:.2f}x** ({low:.2f}-{high:.2f}) | {verdict_text} | "
                     f"{fmt(alloc_a, 0)} | {fmt(alloc_b, 0)} |")
    return lines


def svg_chart(ratios, path):
    """Grouped bars (first, replay, conflict) of engine/raw per store, linear scale.

    The axis fits the stores that make network trips; a bar beyond it (the in-memory store,
    whose raw baseline is one hash-map update) is clipped and labelled with its value.
    """
    stores = [s for s in STORES if any((s, p) in ratios for p in PATHS)]
    if not stores:
        return
    width, height = 900, 440
    left, right, top, bottom = 70, 20, 60, 70
    plot_w, plot_h = width - left - right, height - top - bottom
    scaled = [v for (s, _), v in ratios.items() if s != "MEMORY"] or list(ratios.values())
    hi = max(2.0, math.ceil(max(scaled) * 1.25 * 2) / 2)

    def y(v):
        return top + plot_h * (1 - min(v, hi) / hi)

    colors = {"First": "#4e79a7", "Replay": "#59a14f", "Conflict": "#f28e2b"}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">idem engine time / raw baseline time, '
           'per store (lower is better; 1.0 = no overhead)</text>',
           f'<text x="{width / 2}" y="40" text-anchor="middle" font-size="11" fill="#555">bars beyond the axis are '
           'clipped and labelled; the memory baseline is a single ConcurrentHashMap update</text>']
    step = 0.5 if hi <= 4 else 1.0 if hi <= 8 else 2.0
    t = 0.0
    while t <= hi + 1e-9:
        yy = y(t)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{t:g}x</text>')
        t += step
    for mark, col, label in ((1.0, "#333", "1.00x"), (REMOTE_TARGET, "#d62728", f"{REMOTE_TARGET:.2f}x target (remote stores)")):
        yy = y(mark)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="{col}" '
                   'stroke-dasharray="6,4"/>')
        if mark == REMOTE_TARGET:
            out.append(f'<text x="{width - right - 4}" y="{yy - 4:.1f}" text-anchor="end" fill="{col}">{label}</text>')
    group_w = plot_w / len(stores)
    bar_w = group_w / 4.5
    for i, s in enumerate(stores):
        gx = left + i * group_w + (group_w - 3 * bar_w) / 2
        for j, p in enumerate(PATHS):
            v = ratios.get((s, p))
            if v is None:
                continue
            x = gx + j * bar_w
            yy = y(v)
            base = y(0)
            clipped = v > hi
            opacity = ' fill-opacity="0.55"' if clipped else ""
            out.append(f'<rect x="{x:.1f}" y="{yy:.1f}" width="{bar_w - 2:.1f}" height="{max(0.5, base - yy):.1f}" '
                       f'fill="{colors[p]}"{opacity}>'
                       f'<title>{s.lower()} {p.lower()}: {v:.2f}x</title></rect>')
            label = f"{v:.0f}x&#8593;" if clipped else f"{v:.2f}"
            ly = yy + 14 if clipped else yy - 3
            out.append(f'<text x="{x + bar_w / 2 - 1:.1f}" y="{ly:.1f}" text-anchor="middle" font-size="10">{label}</text>')
        out.append(f'<text x="{left + i * group_w + group_w / 2:.1f}" y="{height - bottom + 18}" '
                   f'text-anchor="middle">{s.lower()}</text>')
    out.append(f'<line x1="{left}" y1="{y(0):.1f}" x2="{width - right}" y2="{y(0):.1f}" stroke="black"/>')
    lx = left
    for p in PATHS:
        out.append(f'<rect x="{lx}" y="{height - 26}" width="12" height="12" fill="{colors[p]}"/>')
        out.append(f'<text x="{lx + 16}" y="{height - 16}">{p.lower()}</text>')
        lx += 110
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "--compare":
        labels = argv[argv.index("--labels") + 1:argv.index("--labels") + 3] if "--labels" in argv else ["A", "B"]
        print("\n".join(compare(argv[2], argv[3], labels)))
        return 0
    if argv[1] == "--goals":
        table = "\n".join(goals(argv[2])) + "\n"
        with open(os.path.join(argv[2], "goals.md"), "w", encoding="utf-8") as f:
            f.write(table)
        print(table)
        return 0
    results = argv[1]
    readme = argv[argv.index("--readme") + 1] if "--readme" in argv else None
    main_json = os.path.join(results, "jmh-main.json")
    ix = index(load(main_json)) if os.path.exists(main_json) else {}

    parts = []
    machine = os.path.join(results, "machine.txt")
    if os.path.exists(machine):
        with open(machine, encoding="utf-8") as f:
            parts += ["Machine and run:", "", "```", f.read().strip(), "```", ""]
    store_lines, ratios = store_section(ix)
    parts += store_lines + ["", "![engine/raw ratios](results/engine-raw-ratios.svg)", ""]
    parts += fingerprint_section(ix) + [""]
    parts += memory_section(ix) + [""]
    steps_json = os.path.join(results, "jmh-steps.json")
    if os.path.exists(steps_json):
        parts += steps_section(index(load(steps_json))) + [""]
    parts += scaling_section(results) + [""]
    parts += contention_section(results) + [""]
    parts += ["### Against the speed goals", ""] + goals(results, with_scaling=False) + [""]
    trips = os.path.join(results, "round-trips.md")
    if os.path.exists(trips):
        with open(trips, encoding="utf-8") as f:
            parts += ["### Round trips per call (counted, not timed)", "", f.read().strip(), ""]
    summary = "\n".join(parts).rstrip() + "\n"
    with open(os.path.join(results, "summary.md"), "w", encoding="utf-8") as f:
        f.write(summary.replace("](results/", "]("))
    svg_chart(ratios, os.path.join(results, "engine-raw-ratios.svg"))

    if readme and os.path.exists(readme):
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        pattern = re.compile(r"(<!-- results:start -->\n).*?(<!-- results:end -->)", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda m: m.group(1) + summary + m.group(2), text)
            with open(readme, "w", encoding="utf-8") as f:
                f.write(text)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
