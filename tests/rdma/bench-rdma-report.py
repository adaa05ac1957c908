#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Turn the JSON reports of tests/rdma/bench-rdma-guest.sh into the table.

usage: bench-rdma-report.py RAW_DIR [OUT_MD]

Both nfs3-bench and fio write fio's JSON (jobs[0].read/.write with iops
and bw in KiB/s).  Per transport and point: the median over the
repetitions of ours and of the kernel client, and as the ratio the median
over repetitions of ours / kernel within a repetition (a paired
comparison, as docs/benchmarks.md does for the peers).  Exit status 1
when a report is missing or unreadable.
"""
import glob
import json
import os
import statistics
import sys

POINTS = [("randread-4k", "read", "4 KiB random read, depth 16"),
          ("read-512k", "read", "512 KiB sequential read, depth 4"),
          ("write-512k", "write", "512 KiB sequential write, depth 4")]


def load(path, direction):
    with open(path) as f:
        doc = json.load(f)
    job = doc["jobs"][0]
    d = job[direction]
    return float(d["iops"]), float(d["bw"]) / 1024.0  # MiB/s


def rep_of(path):
    return os.path.basename(path).rsplit("-", 1)[1].split(".")[0]


def main():
    raw = sys.argv[1]
    out_md = sys.argv[2] if len(sys.argv) > 2 else None
    rows, bad = [], 0
    for tr in ("rdma", "tcp"):
        for name, direction, desc in POINTS:
            runs = {}
            for who in ("ours", "kernel"):
                runs[who] = {}
                for p in sorted(glob.glob(os.path.join(
                        raw, "%s-%s-%s-*.json" % (tr, name, who)))):
                    try:
                        runs[who][rep_of(p)] = load(p, direction)
                    except (OSError, ValueError, KeyError, IndexError) as e:
                        print("bench-rdma: unreadable %s: %s" % (p, e))
                        bad += 1
            if not runs["ours"] and not runs["kernel"]:
                continue  # a point this run left out
            for who in ("ours", "kernel"):
                if not runs[who]:
                    print("bench-rdma: no report for %s %s %s" %
                          (tr, name, who))
                    bad += 1
            med = {}
            for who in ("ours", "kernel"):
                vals = [runs[who][r] for r in sorted(runs[who])]
                med[who] = (statistics.median(v[0] for v in vals)
                            if vals else float("nan"),
                            statistics.median(v[1] for v in vals)
                            if vals else float("nan"),
                            [round(v[0]) for v in vals])
            # paired: ours / kernel within a repetition (both runs saw
            # about the same background load), median over repetitions
            pairs = [runs["ours"][r][0] / runs["kernel"][r][0]
                     for r in runs["ours"]
                     if r in runs["kernel"] and runs["kernel"][r][0] > 0]
            ratio = statistics.median(pairs) if pairs else float("nan")
            rows.append((tr, desc, med["ours"], med["kernel"], ratio))
    if not rows:
        print("bench-rdma: no reports in %s" % raw)
        bad += 1
    lines = [
        "| transport | workload | nfs3-bench IOPS | MiB/s | kernel IOPS "
        "| MiB/s | ours/kernel | IOPS per run (ours; kernel) |",
        "|---|---|---:|---:|---:|---:|---:|---|"]
    for tr, desc, o, k, ratio in rows:
        lines.append("| %s | %s | %.0f | %.1f | %.0f | %.1f | **%.2fx** "
                     "| %s; %s |" % (tr.upper(), desc, o[0], o[1], k[0],
                                     k[1], ratio, o[2], k[2]))
    text = "\n".join(lines)
    print(text)
    if out_md:
        with open(out_md, "w") as f:
            f.write(text + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
