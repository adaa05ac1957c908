#!/usr/bin/env python3
"""make bench-fair: fair transmit queueing against FIFO, the queue's own
cost counted and the seed's workloads replayed against ganesha.

usage: scripts/bench-fair.py [BUILDDIR]        (default build/plain)
  env: QUICK=1 (about two minutes), ROUNDS=N (paired rounds, default 5;
       QUICK 3), SECS=S (measured seconds per run, default 4; QUICK 2),
       WINDOW=N (calls in flight per connection, default 128)

1. The queue alone (scripts/fairq-cost.py): callgrind instructions and
   locked instructions per request, fair minus the bare wait-free FIFO,
   at 1, 16, 256 and 4096 queued owners.

2. nfs3-bench over TCP against ganesha (tests/servers/servers.sh), one
   connection (--nconnect 1), --xmit-order fair against fifo in paired
   rounds (the order inside a pair alternates), with at most WINDOW calls
   in flight (--max-in-flight, as RDMA's credits bound them in the seed's
   runs: without a bound every call goes straight to the socket and the
   transmit queue stays empty, whatever its order):

   randrw     8 KiB random, 70 % reads, 16 jobs x 16 in flight
   randread   4 KiB random reads, 16 jobs x 1024 in flight
   light      4 KiB random reads, one job at depth 1 beside 15 jobs at
              depth 1024 (--iodepth_first 1): the case fairness exists for

   Per run: total ops/s, the client's CPU per op (nfs3-bench's
   cpu_us_per_op), each job's share of the ops (Jain's index over the
   jobs, over the 15 heavy ones for "light"), the light job's p50/p99.
   Reported: per-round fair/FIFO ratios and their median.  Instructions
   per op: nfs3-bench under callgrind at two --number_ios counts, the
   difference per op (randrw and randread), fair and fifo.

Targets: fair - FIFO <= 30 instructions and no extra locked instruction
per request (the queue alone); client CPU and instructions per op, fair
<= 1.03x FIFO; the light job's p99 under fair >= 5x lower than under
FIFO with total ops/s within 3 %.  Writes BUILDDIR/bench-fair.json
(scripts/bench-md.py --record renders it) and prints the tables.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(f"[bench-fair {time.strftime('%H:%M:%S')}] {msg}",
          file=sys.stderr, flush=True)


def jain(xs):
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else 0.0


class Ganesha:
    def __init__(self, run):
        self.run = run
        env = dict(os.environ, XPRT_GANESHA_SHARE_RPCBIND="1")
        os.makedirs(os.path.dirname(run), exist_ok=True)
        with open(run + ".log", "w") as lf:
            subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                            "up", run, "ganesha"], env=env, check=True,
                           stdout=lf, stderr=lf)
        self.env = {}
        with open(os.path.join(run, "servers.env")) as f:
            for line in f:
                if "=" in line and not line.startswith("#"):
                    k, v = line.rstrip("\n").split("=", 1)
                    self.env[k] = v.strip("'")

    def down(self):
        with open(self.run + ".log", "a") as lf:
            subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                            "down", self.run], stdout=lf, stderr=lf)


WORKLOADS = [
    ("randrw", "8 KiB randrw 70/30, 16 jobs x 16",
     ["--rw", "randrw", "--rwmixread", "70", "--bs", "8k", "--numjobs",
      "16", "--iodepth", "16"]),
    ("randread", "4 KiB randread, 16 jobs x 1024",
     ["--rw", "randread", "--bs", "4k", "--numjobs", "16", "--iodepth",
      "1024"]),
    ("light", "4 KiB randread, 1 job x 1 beside 15 jobs x 1024",
     ["--rw", "randread", "--bs", "4k", "--numjobs", "16", "--iodepth",
      "1024", "--iodepth_first", "1"]),
]


def bench_args(bench, g, window, order):
    e = g.env
    return [bench, "--server", f"{e['XPRT_NFS_HOST']}:{e['XPRT_NFS_PORT']}",
            "--mount-port", e["XPRT_MNT_PORT"], "--export",
            e["XPRT_NFS_EXPORT"], "--nconnect", "1", "--filename",
            "fair64m.dat", "--size", "64m", "--max-in-flight", str(window),
            "--xmit-order", order, "--output-format", "json", "--eta",
            "never"]


def one_run(bench, g, window, order, wl, secs):
    cmd = bench_args(bench, g, window, order) + wl + [
        "--time_based", "--runtime", f"{int(secs * 1000)}ms", "--ramp_time",
        "1s"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"nfs3-bench failed ({p.returncode}): "
                           f"{p.stderr.strip()[-400:]}")
    d = json.loads(p.stdout)
    jobs = d["jobs"]
    per = [j["read"]["iops"] + j["write"]["iops"] for j in jobs]
    x = d["xprt"]
    lat = jobs[0]["read"]["clat_ns"]["percentile"]
    return {"ops": sum(per), "cpu": x["aggregate"]["xprt"]["cpu_us_per_op"],
            "jain": jain(per), "jain_heavy": jain(per[1:]),
            "share_min": min(per) / (sum(per) / len(per)),
            "share_max": max(per) / (sum(per) / len(per)),
            "light_ops": per[0], "light_p50": lat["50.000000"] / 1e3,
            "light_p99": lat["99.000000"] / 1e3,
            "heavy_p99": jobs[1]["read"]["clat_ns"]["percentile"][
                "99.000000"] / 1e3,
            "per_job": per}


def ir_per_op(bench, g, window, order, wl, n1, n2, tmp, reps):
    """Median over @reps pairs: the threads' interleaving under callgrind
    moves the batching a little from run to run."""
    return statistics.median(
        ir_pair(bench, g, window, order, wl, n1, n2, tmp)
        for _ in range(reps))


def ir_pair(bench, g, window, order, wl, n1, n2, tmp):
    out = {}
    for n in (n1, n2):
        f = os.path.join(tmp, f"cg.{order}.{n}")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f
               ] + bench_args(bench, g, window, order) + wl + [
                   "--number_ios", str(n)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(f"callgrind nfs3-bench failed: "
                               f"{p.stderr.strip()[-400:]}")
        with open(f) as cf:
            for line in cf:
                if line.startswith("summary:"):
                    out[n] = int(line.split()[1])
        os.unlink(f)
    jobs = int(wl[wl.index("--numjobs") + 1])
    return (out[n2] - out[n1]) / ((n2 - n1) * jobs)


def med(xs):
    return statistics.median(xs) if xs else None


def main(argv):
    build = argv[1] if len(argv) > 1 else "build/plain"
    if not os.path.isabs(build):
        build = os.path.join(TOP, build)
    quick = os.environ.get("QUICK") == "1"
    rounds = int(os.environ.get("ROUNDS", "3" if quick else "5"))
    secs = float(os.environ.get("SECS", "2" if quick else "4"))
    window = int(os.environ.get("WINDOW", "128"))
    bench = os.path.join(build, "bench", "nfs3-bench")
    mb = os.path.join(build, "bench", "micro", "mb_fairq")
    for b in (bench, mb):
        if not os.access(b, os.X_OK):
            sys.exit(f"bench-fair: {b} is missing (make bench-fair "
                     "builds it)")
    doc = {"title": "fair transmit queue against FIFO", "quick": quick,
           "rounds": rounds, "secs": secs, "window": window, "tables": []}
    ok = True

    # 1. the queue alone
    log("queue cost under callgrind (scripts/fairq-cost.py)")
    cj = os.path.join(build, "fairq-cost.json")
    rc = subprocess.run([os.path.join(TOP, "scripts", "fairq-cost.py"), mb,
                         "--json", cj]).returncode
    with open(cj) as f:
        cost = json.load(f)
    ok &= cost["met"]
    doc["cost"] = cost
    doc["tables"].append({
        "title": "The queue alone: instructions (Ir) and locked "
                 "instructions per request, push + pop, one thread "
                 "(callgrind, MB_FAIRQ_COST)",
        "columns": ["queued owners", "FIFO Ir", "fair Ir", "fair - FIFO Ir",
                    "fair queue in FIFO order Ir", "FIFO locked",
                    "fair locked", "fair - FIFO locked"],
        "rows": [[r["owners"], f"{r['fifo_ir']:.1f}", f"{r['fair_ir']:.1f}",
                  f"{r['extra_ir']:.1f}", f"{r['xfifo_ir']:.1f}",
                  f"{r['fifo_locked']:.2f}", f"{r['fair_locked']:.2f}",
                  f"{r['extra_locked']:.2f}"] for r in cost["rows"]],
        "notes": [f"target fair - FIFO <= {cost['max_extra_ir']:.0f} Ir and "
                  "no extra locked instruction: " +
                  ("met" if cost["met"] else "**MISSED**")]})
    del rc

    # 2. ganesha
    tmp = tempfile.mkdtemp(prefix="bench-fair.")
    g = None
    try:
        g = Ganesha(os.path.join(build, "bench-fair-run"))
        path = os.path.join(g.env["XPRT_NFS_EXPORT_DIR"], "fair64m.dat")
        if not os.path.exists(path) or os.path.getsize(path) != 64 << 20:
            with open(path, "wb") as f:
                f.write(os.urandom(64 << 20))
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
        log(f"ganesha {g.env['XPRT_NFS_HOST']}:{g.env['XPRT_NFS_PORT']}; "
            f"{rounds} rounds x {secs:g} s, window {window}; load "
            f"{open('/proc/loadavg').read().split()[0]}")
        res = {}
        for name, what, wl in WORKLOADS:
            runs = {"fair": [], "fifo": []}
            for r in range(rounds):
                orders = ("fair", "fifo") if r % 2 == 0 else ("fifo", "fair")
                for o in orders:
                    runs[o].append(one_run(bench, g, window, o, wl, secs))
                log(f"{name} round {r + 1}: fair "
                    f"{runs['fair'][-1]['ops']:.0f} ops/s, fifo "
                    f"{runs['fifo'][-1]['ops']:.0f} ops/s")
            ratio = lambda k: [a[k] / b[k] if b[k] else None
                               for a, b in zip(runs["fair"], runs["fifo"])]
            row = {"what": what, "runs": runs,
                   "ops_ratio": med(ratio("ops")),
                   "cpu_ratio": med(ratio("cpu")),
                   "light_p99_ratio": med([b["light_p99"] / a["light_p99"]
                                           for a, b in zip(runs["fair"],
                                                           runs["fifo"])])}
            for o in ("fair", "fifo"):
                for k in ("ops", "cpu", "jain", "jain_heavy", "share_min",
                          "share_max", "light_p50", "light_p99"):
                    row[f"{o}_{k}"] = med([x[k] for x in runs[o]])
            if name != "light":
                n1, n2 = (250, 1000) if name == "randrw" else (1024, 3072)
                if quick:
                    n1, n2 = n1 // 2, n2 // 2
                for o in ("fair", "fifo"):
                    row[f"{o}_ir"] = ir_per_op(bench, g, window, o, wl, n1,
                                               n2, tmp, 1 if quick else 3)
                row["ir_ratio"] = row["fair_ir"] / row["fifo_ir"]
                row["ir_counts"] = [n1, n2]
            res[name] = row
    finally:
        if g:
            g.down()
        shutil.rmtree(tmp, ignore_errors=True)
    doc["workloads"] = res

    rows, notes = [], []
    for name, what, _ in WORKLOADS:
        r = res[name]
        ir = (f"{r['fair_ir']:,.0f} / {r['fifo_ir']:,.0f} = "
              f"{r['ir_ratio']:.3f}" if "ir_ratio" in r else "-")
        jn = "jain_heavy" if name == "light" else "jain"
        rows.append([what, f"{r['fair_ops']:,.0f}", f"{r['fifo_ops']:,.0f}",
                     f"{r['ops_ratio']:.3f}",
                     f"{r['fair_cpu']:.2f} / {r['fifo_cpu']:.2f}",
                     f"{r['cpu_ratio']:.3f}", ir,
                     f"{r['fair_' + jn]:.3f} / {r['fifo_' + jn]:.3f}",
                     f"{r['fair_share_min']:.2f}-{r['fair_share_max']:.2f} / "
                     f"{r['fifo_share_min']:.2f}-{r['fifo_share_max']:.2f}",
                     f"{r['fair_light_p99']:,.0f} / "
                     f"{r['fifo_light_p99']:,.0f}" if name == "light"
                     else "-"])
        cpu_ok = r["cpu_ratio"] <= 1.03
        ir_ok = r.get("ir_ratio", 0) <= 1.03
        if name == "light":
            lat_ok = r["light_p99_ratio"] >= 5
            tp_ok = abs(r["ops_ratio"] - 1) <= 0.03
            notes.append(
                f"light job p99: FIFO / fair = {r['light_p99_ratio']:.1f}x "
                f"(target >= 5x: {'met' if lat_ok else '**MISSED**'}), "
                f"total ops/s fair / FIFO {r['ops_ratio']:.3f} (target "
                f"within 3 %: {'met' if tp_ok else '**MISSED**'})")
            ok &= lat_ok and tp_ok
        else:
            notes.append(
                f"{name}: CPU per op fair / FIFO {r['cpu_ratio']:.3f} "
                f"(<= 1.03: {'met' if cpu_ok else '**MISSED**'}), "
                f"instructions per op {r['ir_ratio']:.3f} (<= 1.03: "
                f"{'met' if ir_ok else '**MISSED**'}; callgrind, "
                f"--number_ios {r['ir_counts'][0]} vs {r['ir_counts'][1]} "
                f"per job, median of {1 if quick else 3} pairs)")
            ok &= cpu_ok and ir_ok
    doc["tables"].append({
        "title": f"nfs3-bench against ganesha over TCP, --nconnect 1, at "
                 f"most {window} calls in flight: --xmit-order fair / fifo",
        "columns": ["workload", "fair ops/s", "FIFO ops/s", "ops ratio",
                    "CPU us/op fair / FIFO", "CPU ratio",
                    "Ir/op fair / FIFO", "Jain over jobs fair / FIFO",
                    "job share min-max fair / FIFO",
                    "light job p99 us fair / FIFO"],
        "rows": rows, "notes": notes})
    doc["how"] = (f"medians of {rounds} paired rounds of {secs:g} s"
                  f"{' (QUICK)' if quick else ''}; queue cost and Ir/op "
                  "counted by callgrind")
    doc["met"] = ok
    out = os.path.join(build, "bench-fair.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    for t in doc["tables"]:
        print(f"\n{t['title']}")
        print(" | ".join(t["columns"]))
        for r in t["rows"]:
            print(" | ".join(str(c) for c in r))
        for n in t.get("notes", []):
            print(f"  - {n}")
    print(f"\nbench-fair: {out}; targets "
          f"{'met' if ok else 'NOT all met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
