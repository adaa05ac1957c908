#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn the reports of tests/rdma/bench-rdma-guest.sh into the tables.

usage: bench-rdma-report.py [--clients] RAW_DIR [OUT_MD [OUT_JSON]]
       bench-rdma-report.py --self-test

OUT_JSON holds the table's columns and rows (scripts/bench-md.py --record
reads it from build/plain/bench-rdma.json).

--clients (make bench-fio-rdma): one table of every client that ran
(nfs3-bench, fio + libxprt's engine, fio libaio and fio psync on the
kernel client's mount) per transport and point: median IOPS and CPU per
I/O, and the paired ratios to the kernel client's libaio run of the same
repetition.  OUT_JSON then carries the table and how it ran
(build/plain/bench-fio-rdma.json).

Both nfs3-bench and fio write fio's JSON (jobs[0].read/.write with iops,
bw in KiB/s, runtime in ms, total_ios; usr_cpu/sys_cpu in % of the run).
Per transport and point: the median over the repetitions of ours and of
the kernel client, and as the ratio the median over repetitions of ours /
kernel within a repetition (a paired comparison, as docs/benchmarks.md
does for the peers).  A point BASE~REG (nfs3-bench in another
registration mode) is paired with the kernel's BASE run of the same
repetition.

CPU per I/O, two figures: the client process's own (user + system time
of nfs3-bench or of all of fio's jobs over the measured window, per I/O:
for the kernel client this misses the work done in interrupts and kernel
threads), and the guest's busy CPU over the run (client, nfsd and rxe
together, from /proc/stat), scaled to the measured window, per I/O: the
same method for every client.

--self-test runs the --clients table on made-up reports.

System calls per READ: for each registration mode, the counts of the
SYS_N2-READ run minus those of the SYS_N1 one, over SYS_N2 - SYS_N1.

Exit status 1 when a report is missing or unreadable.
"""
import contextlib
import glob
import io
import json
import os
import re
import statistics
import sys
import tempfile

POINTS = [("randread-4k", "read", "4 KiB random read, depth 16"),
          ("randread-4k~per-io", "read",
           "4 KiB random read, depth 16, ours per-I/O registration"),
          ("randread-4k~cache-unsafe", "read",
           "4 KiB random read, depth 16, ours registration cache (unsafe)"),
          ("collapse-4k", "read",
           "4 KiB random read, 16 jobs x 1,024 deep"),
          ("read-512k", "read", "512 KiB sequential read, depth 4"),
          ("write-512k", "write", "512 KiB sequential write, depth 4")]

SYS_KINDS = [("verbs:post_send", "Send doorbells (write)"),
             ("verbs:post_recv", "Receive doorbells (write)"),
             ("verbs:req_notify_cq", "CQ arming (write)"),
             ("verbs:reg_mr", "ibv_reg_mr (write)"),
             ("verbs:dereg_mr", "ibv_dereg_mr (write)"),
             ("verbs:alloc_mw", "ibv_alloc_mw (write)"),
             ("verbs:dealloc_mw", "ibv_dealloc_mw (write)"),
             ("verbs:ioctl", "verbs ioctl (rdma-core 44 registers and "
              "deregisters memory this way)"),
             ("poll", "poll"), ("read", "read (CQ events, eventfd)"),
             ("write", "write (eventfd)"), ("futex", "futex"),
             ("clock_gettime", "clock_gettime (vDSO on hardware; a "
              "system call in this guest, whose clock source has none)")]


def load(path, direction):
    with open(path) as f:
        doc = json.load(f)
    job = doc["jobs"][0]
    d = job[direction]
    ios = float(d.get("total_ios", 0))
    rt = float(d.get("runtime", 0)) / 1000.0
    cpu = (float(job.get("usr_cpu", 0)) + float(job.get("sys_cpu", 0))) / 100
    # usr_cpu/sys_cpu are a share of job_runtime: with group_reporting fio
    # divides its jobs' summed CPU time by their summed run times (one
    # job's share), job_runtime being that sum; nfs3-bench gives the
    # process's share of its wall time, job_runtime being that time
    crt = float(job.get("job_runtime", 0)) / 1000.0 or rt
    proc_us = cpu * crt / ios * 1e6 if ios and crt else float("nan")
    guest_us = float("nan")
    cpath = path[:-len(".json")] + ".cpu"
    try:
        with open(cpath) as f:
            b0, t0, b1, t1, ncpu = (float(x) for x in f.read().split())
        if t1 > t0 and ios and rt:
            guest_us = (b1 - b0) / (t1 - t0) * ncpu * rt / ios * 1e6
    except (OSError, ValueError):
        pass
    return float(d["iops"]), float(d["bw"]) / 1024.0, proc_us, guest_us, rt


def rep_of(path):
    return os.path.basename(path).rsplit("-", 1)[1].split(".")[0]


def med(vals):
    vals = [v for v in vals if v == v]
    return statistics.median(vals) if vals else float("nan")


def collect(raw, tr, point, who, direction):
    """{repetition: load()} of one client at one point, and how many of
    its reports were unreadable"""
    runs, bad = {}, 0
    for p in sorted(glob.glob(os.path.join(
            raw, "%s-%s-%s-*.json" % (tr, point, who)))):
        try:
            runs[rep_of(p)] = load(p, direction)
        except (OSError, ValueError, KeyError, IndexError) as e:
            print("bench-rdma: unreadable %s: %s" % (p, e))
            bad += 1
    return runs, bad


def paired(a, b, i):
    """median over the repetitions both ran of a's figure i / b's"""
    r = [a[k][i] / b[k][i] for k in a
         if k in b and b[k][i] == b[k][i] and b[k][i] > 0 and
         a[k][i] == a[k][i]]
    return (statistics.median(r) if r else float("nan")), len(r)


def md_table(raw, cols, align, rows):
    """the Markdown lines of a table (align: l or r per column), and 1
    when it has no row"""
    lines = ["| " + " | ".join(cols) + " |",
             "|" + "".join("---:|" if a == "r" else "---|" for a in align)]
    lines += ["| " + " | ".join(c) + " |" for c in rows]
    if rows:
        return lines, 0
    print("bench-rdma: no reports in %s" % raw)
    return lines, 1


def perf_table(raw):
    rows, bad = [], 0
    for tr in ("rdma", "tcp"):
        for name, direction, desc in POINTS:
            base = name.split("~")[0]
            runs = {}
            for who, pt in (("ours", name), ("kernel", base)):
                runs[who], n = collect(raw, tr, pt, who, direction)
                bad += n
            if not runs["ours"]:
                if runs["kernel"] and base == name:
                    print("bench-rdma: no report for %s %s ours" % (tr, name))
                    bad += 1
                continue  # a point this run left out
            if not runs["kernel"]:
                print("bench-rdma: no report for %s %s kernel" % (tr, base))
                bad += 1
            m = {}
            for who in ("ours", "kernel"):
                vals = [runs[who][r] for r in sorted(runs[who])]
                m[who] = [med(v[i] for v in vals) for i in range(4)] + \
                    [[round(v[0]) for v in vals]]
            # paired: ours / kernel within a repetition (both runs saw
            # about the same background load), median over repetitions
            ratio, npairs = paired(runs["ours"], runs["kernel"], 0)
            rows.append((tr, desc, m["ours"], m["kernel"], ratio, npairs))
    cols = ["transport", "workload", "nfs3-bench IOPS", "MiB/s",
            "kernel IOPS", "MiB/s", "ours/kernel (pairs)",
            "CPU/I/O ours: process, guest",
            "CPU/I/O kernel: fio process, guest",
            "IOPS per run (ours; kernel)"]
    cells = [[tr.upper(), desc, "%.0f" % o[0], "%.1f" % o[1], "%.0f" % k[0],
              "%.1f" % k[1], "**%.2fx** (%d)" % (ratio, npairs),
              "%.0f us, %.0f us" % (o[2], o[3]),
              "%.0f us, %.0f us" % (k[2], k[3]), "%s; %s" % (o[4], k[4])]
             for tr, desc, o, k, ratio, npairs in rows]
    lines, b = md_table(raw, cols, "llrrrrrrrl", cells)
    return lines, bad + b, {"columns": cols, "rows": cells}


# --clients: every client of tests/rdma/bench-rdma-guest.sh, the reference
# (the kernel client with libaio) first among the fio ones
CLIENTS = [("ours", "nfs3-bench"),
           ("engine", "fio + libxprt's engine"),
           ("kernel", "kernel client: fio libaio"),
           ("psync", "kernel client: fio psync")]
REF = "kernel"


def numjobs(path):
    """the jobs of a fio run, from its JSON's job options"""
    try:
        with open(path) as f:
            job = json.load(f)["jobs"][0]
        return int(job.get("job options", {}).get("numjobs", 1))
    except (OSError, ValueError, KeyError, IndexError):
        return 0


def clients_table(raw):
    """one row per transport, point and client that ran; ratios paired
    with the kernel client's libaio run of the same repetition"""
    rows, bad, runtimes, reps = [], 0, [], set()
    # a run that started (its .cpu) but left no readable report failed
    for c in glob.glob(os.path.join(raw, "*.cpu")):
        if not os.path.exists(c[:-len(".cpu")] + ".json"):
            print("bench-rdma: no report for %s" % os.path.basename(c))
            bad += 1
    for tr in ("rdma", "tcp"):
        for name, direction, desc in POINTS:
            if "~" in name:
                continue
            runs = {}
            for who, _ in CLIENTS:
                runs[who], n = collect(raw, tr, name, who, direction)
                bad += n
                reps.update(runs[who])
                runtimes += [v[4] for v in runs[who].values()]
            ref = runs[REF]
            for who, label in CLIENTS:
                r = runs[who]
                if not r:
                    continue
                if who == "psync":
                    label += " (%d jobs x depth 1)" % numjobs(glob.glob(
                        os.path.join(raw, "%s-%s-psync-*.json" %
                                     (tr, name)))[0])
                vals = [r[k] for k in sorted(r)]
                m = [med(v[i] for v in vals) for i in range(4)]
                if who == REF or not ref:
                    iops_r = cpu_r = "-"
                else:
                    q, n = paired(r, ref, 0)
                    iops_r = "%.2fx (%d)" % (q, n)
                    q, n = paired(r, ref, 3)
                    cpu_r = "%.2fx" % q
                rows.append([tr.upper(), desc, label, "%.0f" % m[0],
                             "%.1f" % m[1], iops_r,
                             "%.0f us, %.0f us" % (m[2], m[3]), cpu_r,
                             str([round(v[0]) for v in vals])])
    cols = ["transport", "workload", "client", "IOPS", "MiB/s",
            "IOPS / libaio (pairs)", "CPU/I/O: process, guest",
            "guest CPU/I/O / libaio", "IOPS per run"]
    lines, b = md_table(raw, cols, "lllrrrrrl", rows)
    bad += b
    rt = statistics.median(runtimes) if runtimes else 0
    guest = ""
    try:
        with open(os.path.join(raw, "guest")) as f:
            guest = f.read().strip()
    except OSError:
        pass
    how = ("medians of %d paired repetition(s) of %.0f s per run; in each "
           "repetition the clients of a point run back to back, the order "
           "rotating; %s" % (len(reps), rt, guest or "the RDMA test guest"))
    if "TCG" in guest:
        title = ("emulated, relative: the guest runs under qemu TCG, every "
                 "figure is emulated; compare the clients within a point, "
                 "not with hardware")
    else:
        title = "relative: compare the clients within a point"
    return lines, bad, {"how": how, "tables": [
        {"title": title, "columns": cols, "rows": rows}]}


def sys_counts(path):
    c = {}
    with open(path) as f:
        for line in f:
            k, v = line.split()
            c[k] = int(v)
    return c


def sys_table(raw):
    modes = []
    for mode in ("window", "per-io", "cache-unsafe"):
        ns = sorted(int(m.group(1)) for m in (
            re.match(r"sys-%s-(\d+)\.counts$" % re.escape(mode),
                     os.path.basename(p))
            for p in glob.glob(os.path.join(raw, "sys-%s-*.counts" % mode)))
            if m)
        if len(ns) < 2:
            continue
        n1, n2 = ns[0], ns[-1]
        try:
            a = sys_counts(os.path.join(raw, "sys-%s-%d.counts" % (mode, n1)))
            b = sys_counts(os.path.join(raw, "sys-%s-%d.counts" % (mode, n2)))
        except (OSError, ValueError):
            continue
        per = {k: (b.get(k, 0) - a.get(k, 0)) / float(n2 - n1)
               for k in set(a) | set(b)}
        modes.append((mode, n1, n2, per))
    if not modes:
        return []
    known = [k for k, _ in SYS_KINDS]
    lines = ["| system calls per 4 KiB READ (depth 16) | " +
             " | ".join("%s (%d-%d READs)" % (m, n1, n2)
                        for m, n1, n2, _ in modes) + " |",
             "|---|" + "---:|" * len(modes)]
    for k, desc in SYS_KINDS:
        if not any(abs(p.get(k, 0)) >= 0.005 for _, _, _, p in modes):
            continue
        lines.append("| %s | %s |" % (desc, " | ".join(
            "%.2f" % p.get(k, 0) for _, _, _, p in modes)))
    lines.append("| other | %s |" % " | ".join(
        "%.2f" % sum(v for k, v in p.items() if k not in known)
        for _, _, _, p in modes))
    lines.append("| **total** | %s |" % " | ".join(
        "**%.2f**" % sum(p.values()) for _, _, _, p in modes))
    lines.append("| **total without clock_gettime** | %s |" % " | ".join(
        "**%.2f**" % (sum(p.values()) - p.get("clock_gettime", 0))
        for _, _, _, p in modes))
    lines.append("| of them registration calls (verbs ioctl, reg/dereg "
                 "writes) | %s |" % " | ".join(
                     "%.2f" % (p.get("verbs:ioctl", 0) +
                               p.get("verbs:reg_mr", 0) +
                               p.get("verbs:dereg_mr", 0))
                     for _, _, _, p in modes))
    return lines


def self_test():
    """the --clients table and the CPU arithmetic on made-up reports"""
    def report(path, iops, secs, cpu_pct, jobs, job_runtime, busy):
        ios = int(iops * secs)
        doc = {"jobs": [{"job options": {"numjobs": str(jobs)},
                         "read": {"iops": iops, "bw": iops * 4,
                                  "runtime": secs * 1000, "total_ios": ios},
                         "usr_cpu": cpu_pct / 2.0, "sys_cpu": cpu_pct / 2.0,
                         "job_runtime": job_runtime}]}
        with open(path + ".json", "w") as f:
            json.dump(doc, f)
        # busy and total jiffies before and after, 2 CPUs
        with open(path + ".cpu", "w") as f:
            f.write("0 0 %d 1000 2\n" % busy)

    fails = []

    def want(what, got, exp):
        if got != exp:
            fails.append("%s: %r, want %r" % (what, got, exp))

    with tempfile.TemporaryDirectory() as raw:
        for rep, f in (("1", 1.0), ("2", 2.0)):
            p = os.path.join(raw, "rdma-randread-4k-%s-" + rep)
            # repetition 1: 1,000 IOPS over 4 s, 25 % of one job's run:
            # 1 s of CPU for 4,000 I/Os = 250 us; the guest 50 % busy of
            # 2 CPUs over the run: 4 s / 4,000 = 1,000 us; repetition 2
            # twice the I/Os for the same CPU
            report(p % "kernel", 1000 * f, 4, 25, 1, 4000, 500)
            report(p % "ours", 1500 * f, 4, 25, 1, 4000, 500)
            # 16 jobs: 25 % of each job's run, their summed run times 64 s
            report(p % "psync", 500 * f, 4, 25, 16, 64000, 500)
            report(p % "engine", 2000 * f, 4, 50, 1, 4000, 250)
        # started, no report: a failure
        open(os.path.join(raw, "tcp-read-512k-engine-1.cpu"), "w").close()
        with open(os.path.join(raw, "guest"), "w") as f:
            f.write("the guest: 2 vCPUs (QEMU TCG CPU version 2.5+)\n")
        with contextlib.redirect_stdout(io.StringIO()):
            lines, bad, table = clients_table(raw)
        rows = {r[2]: r for r in table["tables"][0]["rows"]}
        want("unfinished runs", bad, 1)
        want("clients", sorted(rows), sorted([
            "nfs3-bench", "fio + libxprt's engine",
            "kernel client: fio libaio",
            "kernel client: fio psync (16 jobs x depth 1)"]))
        k = rows.get("kernel client: fio libaio", [""] * 9)
        want("libaio IOPS", k[3], "1500")
        want("libaio ratio", k[5], "-")
        want("libaio CPU", k[6], "188 us, 750 us")
        o = rows.get("nfs3-bench", [""] * 9)
        want("ours ratio", o[5], "1.50x (2)")
        want("ours per run", o[8], "[1500, 3000]")
        ps = rows.get("kernel client: fio psync (16 jobs x depth 1)",
                      [""] * 9)
        # 16 s of CPU (25 % of 64 s) for 2,000 or 4,000 I/Os
        want("psync CPU", ps[6], "6000 us, 1500 us")
        want("psync guest CPU ratio", ps[7], "2.00x")
        e = rows.get("fio + libxprt's engine", [""] * 9)
        want("engine ratio", e[5], "2.00x (2)")
        want("engine CPU", e[6], "188 us, 188 us")
        want("how", table["how"].startswith(
            "medians of 2 paired repetition(s) of 4 s per run"), True)
        want("emulated", table["tables"][0]["title"].startswith(
            "emulated, relative"), True)
        with contextlib.redirect_stdout(io.StringIO()):
            t2 = perf_table(raw)[2]
        want("ours/kernel table", [r[6] for r in t2["rows"]],
             ["**1.50x** (2)"])
    for f in fails:
        print("bench-rdma-report self-test: FAIL: " + f)
    if not fails:
        print("bench-rdma-report self-test: ok")
    return 1 if fails else 0


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    clients = args[:1] == ["--clients"]
    if clients:
        args = args[1:]
    raw = args[0]
    out_md = args[1] if len(args) > 1 else None
    out_json = args[2] if len(args) > 2 else None
    if clients:
        lines, bad, table = clients_table(raw)
    else:
        lines, bad, table = perf_table(raw)
        reps = {rep_of(p) for p in glob.glob(os.path.join(raw, "*.json"))}
        table["reps"] = len(reps)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(table, f, indent=1)
    sl = [] if clients else sys_table(raw)
    if sl:
        lines += [""] + sl
    text = "\n".join(lines)
    print(text)
    if out_md:
        with open(out_md, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
