#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn the reports of tests/rdma/bench-rdma-guest.sh into the tables.

usage: bench-rdma-report.py RAW_DIR [OUT_MD [OUT_JSON]]

OUT_JSON holds the table's columns and rows (scripts/bench-md.py --record
reads it from build/plain/bench-rdma.json).

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
same method for both clients.

System calls per READ: for each registration mode, the counts of the
SYS_N2-READ run minus those of the SYS_N1 one, over SYS_N2 - SYS_N1.

Exit status 1 when a report is missing or unreadable.
"""
import glob
import json
import os
import re
import statistics
import sys

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
    return float(d["iops"]), float(d["bw"]) / 1024.0, proc_us, guest_us


def rep_of(path):
    return os.path.basename(path).rsplit("-", 1)[1].split(".")[0]


def med(vals):
    vals = [v for v in vals if v == v]
    return statistics.median(vals) if vals else float("nan")


def perf_table(raw):
    rows, bad = [], 0
    for tr in ("rdma", "tcp"):
        for name, direction, desc in POINTS:
            base = name.split("~")[0]
            runs = {}
            for who, pt in (("ours", name), ("kernel", base)):
                runs[who] = {}
                for p in sorted(glob.glob(os.path.join(
                        raw, "%s-%s-%s-*.json" % (tr, pt, who)))):
                    try:
                        runs[who][rep_of(p)] = load(p, direction)
                    except (OSError, ValueError, KeyError, IndexError) as e:
                        print("bench-rdma: unreadable %s: %s" % (p, e))
                        bad += 1
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
            pairs = [runs["ours"][r][0] / runs["kernel"][r][0]
                     for r in runs["ours"]
                     if r in runs["kernel"] and runs["kernel"][r][0] > 0]
            ratio = statistics.median(pairs) if pairs else float("nan")
            rows.append((tr, desc, m["ours"], m["kernel"], ratio,
                         len(pairs)))
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
    lines = ["| " + " | ".join(cols) + " |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    lines += ["| " + " | ".join(c) + " |" for c in cells]
    if not rows:
        print("bench-rdma: no reports in %s" % raw)
        bad += 1
    return lines, bad, {"columns": cols, "rows": cells}


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


def main():
    raw = sys.argv[1]
    out_md = sys.argv[2] if len(sys.argv) > 2 else None
    out_json = sys.argv[3] if len(sys.argv) > 3 else None
    lines, bad, table = perf_table(raw)
    if out_json:
        reps = {rep_of(p) for p in glob.glob(os.path.join(raw, "*.json"))}
        table["reps"] = len(reps)
        with open(out_json, "w") as f:
            json.dump(table, f, indent=1)
    sl = sys_table(raw)
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
