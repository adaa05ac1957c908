#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Judge a capture of our client's traffic (test_wire_tshark.sh).

usage: wire_check.py CAPTURE PORT... -- REQUIRE...

Dissects CAPTURE with tshark (two passes, the given ports decoded as
ONC RPC) and fails unless:
  - no frame is malformed and no expert item has severity error;
  - every call has a reply (matched by XID within its TCP stream) and
    every reply a call;
  - each REQUIRE, "PROGRAM:PROC" (e.g. 100003:6), appears as calls.
Prints the count of calls per program and procedure.
"""
import collections
import subprocess
import sys

SEV_ERROR = 0x00800000
SEV_WARN = 0x00600000


def tshark(capture, ports, *args):
    # Loopback reorders segments of one stream when sender and receiver
    # run on different CPUs; reassembly must wait for the hole to fill
    # rather than lose the RPC records around it.
    cmd = ["tshark", "-2", "-r", capture,
           "-o", "tcp.reassemble_out_of_order:TRUE"]
    for p in ports:
        cmd += ["-d", "tcp.port==%s,rpc" % p]
    out = subprocess.run(cmd + list(args), capture_output=True, text=True)
    if out.returncode:
        sys.exit("tshark failed: " + out.stderr)
    return out.stdout


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    capture, ports, require = argv[0], argv[1:sep], argv[sep + 1:]
    fail = []

    # 1. malformed frames and expert errors
    bad = tshark(capture, ports, "-Y",
                 "_ws.malformed || _ws.expert.severity >= %d" % SEV_WARN,
                 "-T", "fields", "-e", "frame.number", "-e",
                 "_ws.expert.severity", "-e", "_ws.expert.message",
                 "-e", "_ws.malformed")
    errors = warnings = lost = 0
    for line in bad.splitlines():
        f = line.split("\t")
        sevs = [int(s, 0) for s in f[1].split(",") if s]
        # the capture itself missed bytes: the streams cannot be judged
        if "not captured" in f[2]:
            lost += 1
        if f[3] or any(s >= SEV_ERROR for s in sevs):
            errors += 1
            print("  bad frame %s: %s %s" % (f[0], f[2], f[3]))
        else:
            warnings += 1
            print("  warning, frame %s: %s" % (f[0], f[2]))
    if errors:
        fail.append("%d malformed or erroneous frames" % errors)

    # 2. calls and replies, by XID per stream
    out = tshark(capture, ports, "-Y", "rpc", "-T", "fields", "-E",
                 "occurrence=a", "-E", "aggregator=,", "-e", "tcp.stream",
                 "-e", "rpc.msgtyp", "-e", "rpc.xid", "-e", "rpc.program",
                 "-e", "rpc.procedure")
    calls, replies = {}, set()
    holes = 0
    for line in out.splitlines():
        f = line.split("\t")
        stream = f[0]
        if not f[2]:  # RPC over a stream with holes: no header parsed
            holes += 1
            continue
        types, xids = f[1].split(","), f[2].split(",")
        progs = f[3].split(",") if f[3] else []
        procs = f[4].split(",") if f[4] else []
        for i, (t, xid) in enumerate(zip(types, xids)):
            key = (stream, int(xid, 0))
            if t == "0":
                calls[key] = (int(progs[i]), int(procs[i]))
            else:
                replies.add(key)
    count = collections.Counter(calls.values())
    unanswered = [k for k in calls if k not in replies]
    orphans = [k for k in replies if k not in calls]
    if holes:
        fail.append("%d RPC frames without a header (capture incomplete?)"
                    % holes)
    for k in unanswered[:10]:
        print("  unanswered: stream %s xid %#x program %d procedure %d"
              % (k + calls[k]))
    if unanswered:
        fail.append("%d calls without a reply" % len(unanswered))
    if orphans:
        fail.append("%d replies without a call" % len(orphans))
    for prog in sorted({p for p, _ in count}):
        print("  program %d: %s" % (prog, " ".join(
            "%d:%d" % (proc, n) for (p, proc), n in sorted(count.items())
            if p == prog)))
    missing = []
    for r in require:
        prog, proc = (int(x) for x in r.split(":"))
        if not count.get((prog, proc)):
            missing.append(r)
    if missing:
        fail.append("procedures never called: " + " ".join(missing))
    print("wire: %d RPC frames, %d calls, %d replies, %d warnings" %
          (len(out.splitlines()), len(calls), len(replies), warnings))
    if fail and lost and not errors:
        # A segment the capture missed hides the RPC headers in it; a
        # call whose reply sat there looks unanswered.  Not our fault,
        # and not a verdict either: the caller runs the capture again.
        print("wire: INCONCLUSIVE: the capture missed %d segment(s): %s"
              % (lost, "; ".join(fail)))
        return 3
    if fail:
        print("wire: FAIL: " + "; ".join(fail))
        return 1
    print("wire: ok: no malformed frame, every call answered, "
          "%d procedures required and seen" % len(require))
    return 0


if __name__ == "__main__":
    sys.exit(main())
