#!/usr/bin/env python3
"""p9-bench beside the peers, against diod and ganesha (make bench-p9).

usage: scripts/bench-p9.py BUILDDIR
  env: QUICK=1 (short: about a minute), ROUNDS=N, SECS=S,
       XPRT_RUN_DIR (servers' run dir, default BUILDDIR/bench-p9-run)

Starts diod and ganesha with tests/servers/servers.sh (ganesha sharing
rpcbind with other runs), plus a second diod of our own exporting the
synthetic "ctl" tree, which is what diod's own load generator, diodload,
needs.  Then, in rounds that alternate which client goes first:

  * 4 KiB Tread at random offsets of a 64 MiB file, 1 and 16 requests
    outstanding: p9-bench against perf/peers/peer_p9.c (a plain C client:
    one socket, blocking send/recv, no library), on diod and ganesha;
  * Tgetattr of ctl:null, 1 and 16 synchronous streams: p9-bench against
    diodload -g (diodload has no 4 KiB Tread mode: its default copies
    ctl:zero to ctl:null in msize chunks);
  * the 9P slab thread's small-I/O experiment: 32 jobs, a file each,
    32-byte writes at msize 65536 (--preset ior-32b --rw write), with
    --alloc pool against --alloc malloc, on both servers.

Every figure is the median over the rounds.  Client CPU per operation:
p9-bench and peer_p9 report their own (process CPU over the measured
window / operations); for diodload it is the child's rusage over the
whole run / (ops/s x seconds).  Server CPU is the server's utime+stime
over the run, in % of one core.  The machine's load (uptime, the busiest
other processes) is recorded before and after: read the numbers with it.

Writes BUILDDIR/bench-p9.md (tables), .tsv (every run) and .json.
Exit status: 0 when every run worked (targets missed or not), 1 otherwise.
"""
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = os.environ.get("QUICK", "0") not in ("", "0")
ROUNDS = int(os.environ.get("ROUNDS", "2" if QUICK else "5"))
SLAB_ROUNDS = int(os.environ.get("ROUNDS", "3" if QUICK else "7"))
SECS = int(os.environ.get("SECS", "1" if QUICK else "2"))
SLAB_SIZE = "32k" if QUICK else "128k"
TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[bench-p9 {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True,
                          text=True).stdout.strip()


def machine_load():
    # top's second frame: CPU use over the last second, not since start
    top = sh("top -b -n2 -d1 -w 200 | awk '/^top -/ { n++ } "
             "n == 2 && /^ *[0-9]+ / && $9 > 1 { print $12, $9 \"%\" }' "
             "| head -6")
    busy = ", ".join(top.splitlines()) or "nothing above 1%"
    return {"uptime": sh("uptime"), "busiest": busy}


def ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v.strip("'")
    return env


def pidfile(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listen(port, proc, secs=10):
    end = time.time() + secs
    while time.time() < end:
        if proc.poll() is not None:
            return False
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def run(cmd, server_pid, timeout):
    """Run one client; return (stdout + stderr, rc, wall s, child
    (user, system) CPU s, server CPU %)."""
    t0 = time.monotonic()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s0 = ticks(server_pid) if server_pid else None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = e.stdout or "", "timed out", 124
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s1 = ticks(server_pid) if server_pid else None
    cpu = (ru1.ru_utime - ru0.ru_utime, ru1.ru_stime - ru0.ru_stime)
    srv = (100.0 * (s1 - s0) / TCK / wall
           if s0 is not None and s1 is not None else None)
    if rc:
        log(f"FAILED (exit {rc}): {' '.join(cmd)}\n    {err.strip()[-400:]}")
    return out, err, rc, wall, cpu, srv


def parse_ours(out, phase):
    """ops/s, CPU us/op, user CPU us/op, p50 us from p9-bench's JSON."""
    d = json.loads(out)
    agg = d["xprt"]["aggregate"]
    if phase == "ior-write":
        iops = d["xprt"]["ior"]["results"][0]["iops"]
        p50 = agg["write"]["clat_ns"]["percentile"]["50.000000"]
    else:
        dv = agg["xprt"]["other"] if phase == "other" else agg[phase]
        iops = dv["iops"]
        p50 = dv["clat_ns"]["percentile"]["50.000000"]
    cpu = agg["xprt"]["cpu_us_per_op"]
    tot = agg["usr_cpu"] + agg["sys_cpu"]
    return iops, cpu, cpu * agg["usr_cpu"] / tot if tot else None, p50 / 1e3


def parse_peer(out):
    line = next(l for l in out.splitlines() if l.startswith("RESULT"))
    kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
    ops = float(kv["ops"])
    return (float(kv["ops_per_s"]), float(kv["cpu_us_per_op"]),
            1e6 * float(kv["usr_s"]) / ops if ops else None,
            float(kv["p50_us"]))


def parse_diodload(err, cpu, secs):
    # on stderr: "diodload: 31550 ops/s, 0 rMB/s, 0 wMB/s"
    line = next(l for l in err.splitlines() if "ops/s" in l)
    ops = float(line.split(":")[1].split()[0])
    n = ops * secs
    return (ops, 1e6 * (cpu[0] + cpu[1]) / n if n else None,
            1e6 * cpu[0] / n if n else None, None)


def res_str(med, la, lb):
    return (f"{la} {med[la]['all']} vs {lb} {med[lb]['all']}, "
            f"ratios {med['ratios']}")


class Bench:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.p9 = os.path.join(self.build, "bench", "p9-bench")
        self.peer = os.path.join(self.build, "bench", "peers", "peer_p9")
        self.diodload = shutil.which("diodload") or (
            "/usr/sbin/diodload" if os.access("/usr/sbin/diodload", os.X_OK)
            else None)
        self.run_dir = os.path.abspath(os.environ.get(
            "XPRT_RUN_DIR", os.path.join(self.build, "bench-p9-run")))
        self.runs = []   # every run, for the .tsv/.json
        self.rows = []   # medians, for the table
        self.failed = 0
        self.ctl = None

    # ------------------------------------------------------------ servers
    def up(self):
        env = dict(os.environ, XPRT_GANESHA_SHARE_RPCBIND="1")
        log(f"starting diod and ganesha in {self.run_dir}")
        r = subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                            "up", self.run_dir], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("bench-p9: servers.sh up failed:\n" + r.stderr[-2000:])
        self.env = read_env(os.path.join(self.run_dir, "servers.env"))
        self.servers = {
            "diod": (self.env["XPRT_DIOD_HOST"], self.env["XPRT_DIOD_PORT"],
                     self.env["XPRT_DIOD_ANAME"],
                     self.env["XPRT_DIOD_EXPORT_DIR"],
                     pidfile(self.env["XPRT_DIOD_PIDFILE"])),
            "ganesha": (self.env["XPRT_GANESHA_9P_HOST"],
                        self.env["XPRT_GANESHA_9P_PORT"],
                        self.env["XPRT_GANESHA_9P_ANAME"],
                        self.env["XPRT_NFS_EXPORT_DIR"],
                        pidfile(self.env["XPRT_GANESHA_PIDFILE"])),
        }
        if self.diodload:
            port = free_port()
            logf = open(os.path.join(self.run_dir, "diod-ctl.log"), "w")
            # -e ctl: the synthetic tree diodload reads and writes
            self.ctl = subprocess.Popen(
                ["diod", "-f", "-n", "-c", "/dev/null", "-l",
                 f"127.0.0.1:{port}", "-e", "ctl", "-t", "16"],
                stdin=subprocess.DEVNULL, stdout=logf, stderr=logf)
            if not wait_listen(port, self.ctl):
                log("diod -e ctl did not come up: diodload rows skipped")
                self.stop_ctl()
            else:
                self.ctl_port = port
        for name, (_, _, _, d, _) in self.servers.items():
            f = os.path.join(d, "bench64m.dat")
            if not (os.path.exists(f) and os.path.getsize(f) == 64 << 20):
                with open(f, "wb") as w:
                    w.write(os.urandom(64 << 20))
            with open(f, "rb") as r_:
                while r_.read(1 << 20):
                    pass  # into the page cache

    def stop_ctl(self):
        if self.ctl and self.ctl.poll() is None:
            self.ctl.send_signal(signal.SIGTERM)
            try:
                self.ctl.wait(2)
            except subprocess.TimeoutExpired:
                self.ctl.kill()
                self.ctl.wait()
        self.ctl = None

    def down(self):
        self.stop_ctl()
        subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                        "down", self.run_dir], capture_output=True)

    # ------------------------------------------------------------ runs
    def one(self, case, client, cmd, pid, parse):
        out, err, rc, wall, cpu, srv = run(cmd, pid, SECS + 60)
        rec = {"case": case, "client": client, "cmd": " ".join(cmd),
               "rc": rc, "wall_s": round(wall, 3), "server_cpu_pct":
               None if srv is None else round(srv, 1)}
        if rc == 0:
            try:
                ops, cpu_op, usr_op, p50 = parse(out, err, cpu)
                rec.update(ops_per_s=ops, cpu_us_per_op=cpu_op,
                           usr_us_per_op=usr_op, p50_us=p50)
            except (ValueError, KeyError, StopIteration, IndexError) as e:
                log(f"cannot parse the output of {' '.join(cmd)}: {e}")
                rec["rc"] = -1
        if rec["rc"]:
            self.failed += 1
        self.runs.append(rec)
        return rec

    def pair(self, case, a, b, rounds):
        """a, b: (label, cmd, pid, parse).  Alternate which goes first,
        take medians; the ratio is the median of the per-round ratios
        (each round's two runs saw about the same machine)."""
        res = {a[0]: [], b[0]: []}
        ratios, cpu_ratios = [], []
        for r in range(rounds):
            got = {}
            for lab, cmd, pid, parse in (a, b) if r % 2 == 0 else (b, a):
                rec = self.one(case, lab, cmd, pid, parse)
                if not rec["rc"]:
                    res[lab].append(rec)
                    got[lab] = rec
            if len(got) == 2 and got[b[0]]["ops_per_s"]:
                ratios.append(got[a[0]]["ops_per_s"] /
                              got[b[0]]["ops_per_s"])
                ca, cb = (got[a[0]]["cpu_us_per_op"],
                          got[b[0]]["cpu_us_per_op"])
                if ca and cb:
                    cpu_ratios.append(cb / ca)
        med = {"ratio": statistics.median(ratios) if ratios else None,
               "ratios": [round(x, 2) for x in ratios],
               "cpu_ratio": (statistics.median(cpu_ratios)
                             if cpu_ratios else None)}
        for lab, recs in res.items():
            def m(k):
                v = [x[k] for x in recs if x.get(k) is not None]
                return statistics.median(v) if v else None
            med[lab] = {"ops": m("ops_per_s"), "cpu": m("cpu_us_per_op"),
                        "usr": m("usr_us_per_op"),
                        "p50": m("p50_us"), "srv": m("server_cpu_pct"),
                        "all": [round(x["ops_per_s"]) for x in recs],
                        "cmd": (a if lab == a[0] else b)[1]}
        log(f"{case}: {res_str(med, a[0], b[0])}")
        return med

    def ours(self, srv, extra):
        host, port, aname = srv[0], srv[1], srv[2]
        return [self.p9, "--server", f"{host}:{port}", "--aname", aname,
                "--msize", "64k", "--output-format", "json", "--eta",
                "never"] + extra

    def tread(self):
        for depth in (1, 16):
            for name, srv in self.servers.items():
                ours = self.ours(srv, [
                    "--filename", "bench64m.dat", "--size", "64m", "--rw",
                    "randread", "--bs", "4k", "--iodepth", str(depth),
                    "--time_based", "--runtime", str(SECS), "--ramp_time", "500ms"])
                peer = [self.peer, "--depth", str(depth), "--seconds",
                        str(SECS), "--warmup", "0.5", "--msize", "65536",
                        srv[0], srv[1], srv[2], "bench64m.dat"]
                case = f"Tread 4 KiB random, {depth} outstanding"
                med = self.pair(
                    case + " " + name,
                    ("p9-bench", ours, srv[4],
                     lambda o, e, c: parse_ours(o, "read")),
                    ("peer_p9", peer, srv[4], lambda o, e, c: parse_peer(o)),
                    ROUNDS)
                self.rows.append((case, name, "p9-bench", "peer_p9", med,
                                  1.0 if depth == 1 else 1.2))

    def getattr(self):
        if not self.diodload or not self.ctl:
            log("diodload not available: getattr rows skipped")
            self.rows.append(("Tgetattr (diodload -g)", "diod -e ctl",
                              "p9-bench", "diodload", None, None))
            return
        srv = ("127.0.0.1", str(self.ctl_port), "ctl", None, self.ctl.pid)
        for streams in (1, 16):
            ours = self.ours(srv, [
                "--filename", "null", "--rw", "getattr", "--numjobs",
                str(streams), "--iodepth", "1", "--time_based", "--runtime", str(SECS),
                "--ramp_time", "500ms"])
            dl = [self.diodload, "-s", f"127.0.0.1:{self.ctl_port}", "-g",
                  "-n", str(streams), "-r", str(SECS)]
            case = f"Tgetattr ctl:null, {streams} sync stream" + (
                "s" if streams > 1 else "")
            med = self.pair(
                case, ("p9-bench", ours, srv[4],
                       lambda o, e, c: parse_ours(o, "other")),
                ("diodload", dl, srv[4],
                 lambda o, e, c: parse_diodload(e, c, SECS)), ROUNDS)
            self.rows.append((case, "diod -e ctl", "p9-bench", "diodload",
                              med, None))

    def slab(self):
        for name, srv in self.servers.items():
            base = ["--name", "slab", "--preset", "ior-32b", "--rw", "write",
                    "--size", SLAB_SIZE]
            case = "32-byte Twrite, 32 jobs (ior-32b write), msize 65536"
            med = self.pair(
                case + " " + name,
                ("--alloc pool", self.ours(srv, base + ["--alloc", "pool"]),
                 srv[4], lambda o, e, c: parse_ours(o, "ior-write")),
                ("--alloc malloc",
                 self.ours(srv, base + ["--alloc", "malloc"]), srv[4],
                 lambda o, e, c: parse_ours(o, "ior-write")), SLAB_ROUNDS)
            self.rows.append((case, name, "--alloc pool", "--alloc malloc",
                              med, 1.06))

    # ------------------------------------------------------------ report
    @staticmethod
    def row_json(row):
        """One table row for the JSON (scripts/bench-md.py --record)"""
        case, srv, la, lb, med, target = row
        out = {"case": case, "server": srv, "ours": la, "peer": lb,
               "target": target}
        if med:
            keep = ("ops", "cpu", "usr", "p50", "srv", "all")
            out.update(ratio=med["ratio"], cpu_ratio=med["cpu_ratio"],
                       ours_result={k: med[la][k] for k in keep},
                       peer_result={k: med[lb][k] for k in keep})
        return out

    def report(self, load0, load1):
        def f(v, nd=0):
            if v is None:
                return "-"
            return f"{v:,.{nd}f}" if nd else f"{v:,.0f}"

        lines = [
            f"p9-bench against peers, {time.strftime('%Y-%m-%d %H:%M')}, "
            f"{os.cpu_count()} CPUs, {'QUICK, ' if QUICK else ''}"
            f"{ROUNDS} rounds ({SLAB_ROUNDS} for --alloc) of {SECS} s, "
            "medians.", "",
            f"Load before: `{load0['uptime']}`; busiest: {load0['busiest']}",
            "",
            f"Load after: `{load1['uptime']}`; busiest: {load1['busiest']}",
            "",
            "Ratio: the median of the per-round ratios ours/peer (each "
            "round runs both, first one then the other, alternating). "
            "CPU: the client's user+system CPU per operation, and its user "
            "part; CPU ratio: the median per-round ratio of the peer's CPU "
            "per operation to ours (above 1: ours spends less).",
            "",
            "| workload | server | ours | ops/s | CPU us/op (usr) | p50 us "
            "| peer | ops/s | CPU us/op (usr) | p50 us | ratio | target | "
            "CPU ratio | server CPU % ours/peer | rounds: ops/s ours vs "
            "peer |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for case, srv, la, lb, med, target in self.rows:
            if med is None:
                lines.append(f"| {case} | {srv} | {la} | not run | | | "
                             f"{lb} | not available | | | | | | | |")
                continue
            a, b, ratio = med[la], med[lb], med["ratio"]
            tgt = "-"
            if target and ratio:
                tgt = (f">= {target:.2f}x: "
                       f"{'met' if ratio >= target else 'MISSED'}")

            def cpu(x):
                return f"{f(x['cpu'], 2)} ({f(x['usr'], 2)})"
            lines.append(
                f"| {case} | {srv} | {la} | {f(a['ops'])} | {cpu(a)} | "
                f"{f(a['p50'], 1)} | {lb} | {f(b['ops'])} | {cpu(b)} | "
                f"{f(b['p50'], 1)} | {f(ratio, 2)}{'x' if ratio else ''} | "
                f"{tgt} | {f(med['cpu_ratio'], 2)} | "
                f"{f(a['srv'])} / {f(b['srv'])} | "
                f"{'/'.join(map(str, a['all']))} vs "
                f"{'/'.join(map(str, b['all']))} |")
        lines += ["", "Commands (one round):", "", "```"]
        for case, srv, la, lb, med, target in self.rows:
            if med:
                for lab in (la, lb):
                    lines.append(" ".join(med[lab]["cmd"]).replace(
                        self.build + "/", "$BUILD/"))
        lines += ["```", ""]
        md = "\n".join(lines)
        base = os.path.join(self.build, "bench-p9")
        with open(base + ".md", "w") as w:
            w.write(md)
        with open(base + ".json", "w") as w:
            json.dump({"quick": QUICK, "rounds": ROUNDS, "secs": SECS,
                       "load_before": load0, "load_after": load1,
                       "rows": [self.row_json(r) for r in self.rows],
                       "runs": self.runs}, w, indent=1)
        keys = ["case", "client", "rc", "ops_per_s", "cpu_us_per_op",
                "usr_us_per_op", "p50_us", "server_cpu_pct", "wall_s", "cmd"]
        with open(base + ".tsv", "w") as w:
            w.write("\t".join(keys) + "\n")
            for r in self.runs:
                w.write("\t".join(str(r.get(k, "")) for k in keys) + "\n")
        print(md)
        log(f"wrote {base}.md, .tsv, .json")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    b = Bench(sys.argv[1])
    for exe in (b.p9, b.peer):
        if not os.access(exe, os.X_OK):
            sys.exit(f"bench-p9: {exe} not built (make bench-p9 builds it)")
    if not b.diodload:
        log("diodload not installed (Debian package diod ships it)")
    t0 = time.monotonic()
    try:
        b.up()
        load0 = machine_load()
        log(f"load: {load0['uptime']}")
        b.tread()
        b.getattr()
        b.slab()
        load1 = machine_load()
    finally:
        b.down()
    b.report(load0, load1)
    log(f"done in {time.monotonic() - t0:.0f} s, {b.failed} failed run(s)")
    return 1 if b.failed else 0


if __name__ == "__main__":
    sys.exit(main())
