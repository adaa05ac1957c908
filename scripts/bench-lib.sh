# shellcheck shell=bash
# Helpers shared by scripts/bench-demo.sh, bench-rpc.sh and bench-nfs3.sh.
# Source, don't run.
#
# The comparison method (bench-rpc, bench-nfs3): the machine is small and
# shared (2 cores, the server on the same cores, other builds running), so
# one run of each client says little.  Every case runs ROUNDS times, our
# client and the peer back to back, the order flipping each round.  The
# summary gives medians per client, and as ratios the median over rounds
# of ours / peer within a round (a paired comparison: both runs of a pair
# saw about the same background load).
# Each run records ops/s, the client's CPU per operation (getrusage over
# its measured window, as every program reports it), latency p50/p99 and
# the server's CPU over the run (% of one core, from /proc/PID/stat).

BL_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BL_TCK=$(getconf CLK_TCK)

bl_log() { printf '[%s %s] %s\n' "${BL_NAME:-bench}" "$(date +%T)" "$*" >&2; }
bl_die() {
	bl_log "ERROR: $*"
	exit 1
}

# bl_servers_up RUN_DIR: ganesha (and rpcbind if none runs) in our own
# RUN_DIR; exports the XPRT_* variables of its servers.env.  Another
# ganesha on this machine may own the rpcbind registration: everything
# here uses explicit ports.
bl_servers_up() {
	BL_RUN=$1
	mkdir -p "$(dirname "$BL_RUN")"
	if ! XPRT_GANESHA_SHARE_RPCBIND=1 "$BL_TOP/tests/servers/servers.sh" up \
		"$BL_RUN" ganesha >"$BL_RUN.log" 2>&1; then
		tail -20 "$BL_RUN.log" >&2
		bl_die "could not start ganesha (log: $BL_RUN.log)"
	fi
	set -a
	# shellcheck disable=SC1091
	. "$BL_RUN/servers.env"
	set +a
}

# bl_servers_down: stop what bl_servers_up started (idempotent; for traps)
bl_servers_down() {
	[[ -n ${BL_RUN:-} ]] || return 0
	"$BL_TOP/tests/servers/servers.sh" down "$BL_RUN" >>"$BL_RUN.log" 2>&1 || true
}

# bl_mkfile PATH SIZE_MIB: an incompressible file in the export, read once
# so it sits in the server's page cache
bl_mkfile() {
	[[ -f $1 && $(stat -c %s "$1") == $(($2 << 20)) ]] ||
		head -c "$(($2 << 20))" /dev/urandom >"$1"
	cat "$1" >/dev/null
}

bl_server_ticks() { awk '{ print $14 + $15 }' "/proc/$(<"$XPRT_GANESHA_PIDFILE")/stat"; }

# bl_record FILE CASE CLIENT ROUND SERVER_PCT: read one normalised result
# line ("ops=.. cpu=.. p50=.. p99=.. mibs=..") on stdin and append a TSV
# row to FILE
bl_record() {
	local line
	line=$(cat)
	[[ -n $line ]] || return 1
	awk -v l="$line" -v c="$2" -v cl="$3" -v r="$4" -v s="$5" 'BEGIN {
		n = split(l, kv, " ")
		for (i = 1; i <= n; i++) { split(kv[i], p, "="); v[p[1]] = p[2] }
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c, cl, r,
			v["ops"], v["cpu"], v["p50"], v["p99"], s, v["mibs"] + 0
	}' >>"$1"
}

# bl_timed FILE CASE CLIENT ROUND NORMALISER CMD...: run CMD (its stdout
# through NORMALISER), measuring the server's CPU around it
bl_timed() {
	local file=$1 case=$2 client=$3 round=$4 norm=$5 s0 s1 t0 t1 out pct
	shift 5
	s0=$(bl_server_ticks)
	t0=$(date +%s.%N)
	if ! out=$("$@" 2>>"$BL_ERRLOG" | "$norm"); then
		bl_log "FAILED: $* (see $BL_ERRLOG)"
		return 1
	fi
	t1=$(date +%s.%N)
	s1=$(bl_server_ticks)
	pct=$(awk -v d=$((s1 - s0)) -v tck="$BL_TCK" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.0f", 100 * d / tck / (b - a) }')
	bl_record "$file" "$case" "$client" "$round" "$pct" <<<"$out"
	printf '  %-22s %-8s round %s: %s server_cpu=%s%%\n' "$case" "$client" \
		"$round" "$out" "$pct" >&2
}

# Normalisers: one line "ops=.. cpu=.. p50=.. p99=.. mibs=.."
norm_peer() { # a peer's RESULT line
	awk '/^RESULT/ {
		for (i = 2; i <= NF; i++) { split($i, p, "="); v[p[1]] = p[2] }
		printf "ops=%s cpu=%s p50=%s p99=%s mibs=%s\n", v["ops_per_s"],
			v["cpu_us_per_op"], v["p50_us"], v["p99_us"], v["mib_per_s"]
		found = 1 }
		END { exit !found }'
}

norm_rpcping() { # rpcping -j
	python3 -c 'import json, sys
d = json.loads(sys.stdin.read())
if d["errors"] or not d["calls"]:
    sys.exit(1)
print("ops=%.1f cpu=%.3f p50=%.1f p99=%.1f mibs=0" % (d["calls_per_s"],
      d["cpu_us_per_call"], d["rtt_us"]["p50"], d["rtt_us"]["p99"]))'
}

norm_bench() { # nfs3-bench --group_reporting --output-format json
	python3 -c 'import json, sys
d = json.loads(sys.stdin.read())
if not d["xprt"]["status"]["ok"]:
    sys.exit(1)
a = d["xprt"]["aggregate"]
ops = bw = 0.0
lat = None
for v in (a["read"], a["write"], a["xprt"]["other"]):
    if v["total_ios"]:
        ops += v["iops"]
        bw += v["bw_bytes"]
        lat = lat or v["clat_ns"]["percentile"]
print("ops=%.1f cpu=%.3f p50=%.1f p99=%.1f mibs=%.1f" % (ops,
      a["xprt"]["cpu_us_per_op"], lat["50.000000"] / 1e3, lat["99.000000"] / 1e3,
      bw / 1048576))'
}

# norm_multi: several RESULT lines of peers run in parallel -> one line:
# rates add up, CPU per op is weighted by ops, p50 is the median of the
# processes' p50s and p99 the largest p99 (an approximation: the peers
# keep no mergeable histogram)
norm_multi() {
	python3 -c 'import statistics, sys
rs = []
for line in sys.stdin:
    if line.startswith("RESULT"):
        rs.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
ops = sum(float(r["ops_per_s"]) for r in rs)
if not rs or not ops:
    sys.exit(1)
cpu = sum(float(r["cpu_us_per_op"]) * float(r["ops_per_s"]) for r in rs) / ops
print("ops=%.1f cpu=%.3f p50=%s p99=%s mibs=%.1f" % (ops, cpu,
      statistics.median_low(float(r["p50_us"]) for r in rs),
      max(float(r["p99_us"]) for r in rs),
      sum(float(r["mib_per_s"]) for r in rs)))'
}

# bl_parallel N CMD...: N copies of CMD at once, their stdout concatenated
# (in BL_TMP, a scratch directory the calling script makes)
# shellcheck disable=SC2153
bl_parallel() {
	local n=$1 i pids=() rc=0
	shift
	for ((i = 0; i < n; i++)); do
		"$@" >"$BL_TMP/par.$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	cat "$BL_TMP"/par.*
	rm -f "$BL_TMP"/par.*
	return $rc
}

# bl_summary TSV TITLE TARGETS_PY OUT_BASE [SERIES_PY]: medians, ratios, targets; prints
# the table, writes OUT_BASE.json and OUT_BASE.md.  TARGETS_PY is a Python
# literal: {case: [(metric, op, value, text)]} with metric "rate" (ours /
# peer ops/s) or "cpu" (ours / peer CPU per op), op ">=" or "<=";
# where a case also ran the client "caller" (the caller-driven mode),
# "caller_cpu" (caller / peer CPU per op), "caller_vs_threaded" (caller /
# ours) and "caller_rounds" (the share of rounds with less CPU per op
# than ours).
# SERIES_PY: {name: [case, ...]} in growing depth, for the collapse check.
bl_summary() {
	python3 - "$@" <<'EOF'
import json, statistics, sys

tsv, title, targets, base = sys.argv[1], sys.argv[2], eval(sys.argv[3]), sys.argv[4]
series = eval(sys.argv[5]) if len(sys.argv) > 5 else {}
runs = {}
order = []
for line in open(tsv):
    f = line.rstrip("\n").split("\t")
    if len(f) < 9:
        continue
    case, client = f[0], f[1]
    if case not in order:
        order.append(case)
    r = runs.setdefault(case, {}).setdefault(client, [])
    r.append(dict(round=f[2], ops=float(f[3]), cpu=float(f[4]),
                  p50=float(f[5]), p99=float(f[6]), srv=float(f[7]),
                  mibs=float(f[8])))

def med(rs, k):
    return statistics.median(x[k] for x in rs) if rs else 0.0

rows, out = [], {"title": title, "cases": []}
misses = 0
for case in order:
    cl = runs[case]
    ours = cl.get("ours", [])
    caller = cl.get("caller", [])
    peer_name = [c for c in cl if c not in ("ours", "caller")]
    peer_name = peer_name[0] if peer_name else ""
    peer = cl.get(peer_name, [])
    o = {k: med(ours, k) for k in ("ops", "cpu", "p50", "p99", "srv", "mibs")}
    p = {k: med(peer, k) for k in ("ops", "cpu", "p50", "p99", "srv", "mibs")}
    # paired: ours and the peer of the same round ran back to back, under
    # the same background load; the median of those ratios resists a
    # load that drifts between rounds better than a ratio of medians
    def paired(xs, ys, k):
        by = {y["round"]: y for y in ys}
        v = [x[k] / by[x["round"]][k] for x in xs
             if x["round"] in by and by[x["round"]][k]]
        return statistics.median(v) if v else 0.0
    rate, cpu = paired(ours, peer, "ops"), paired(ours, peer, "cpu")
    got = {"rate": rate, "cpu": cpu}
    if caller:
        # the caller-driven mode (nfs3-bench --libxprt-mode caller) in
        # the same rounds: against the threaded run and the peer
        by = {x["round"]: x for x in ours}
        less = sum(1 for x in caller
                   if x["round"] in by and x["cpu"] < by[x["round"]]["cpu"])
        got.update(caller_cpu=paired(caller, peer, "cpu"),
                   caller_vs_threaded=paired(caller, ours, "cpu"),
                   caller_rounds=less / len(caller))
    verdicts = []
    for metric, op, val, text in targets.get(case, []):
        got_v = got.get(metric, 0.0)
        ok = got_v >= val if op == ">=" else got_v <= val
        misses += not ok
        verdicts.append("%s %s (%.2f%s)" % (text, "met" if ok else "MISSED",
                                            got_v, "" if metric ==
                                            "caller_rounds" else "x"))
    c = {"case": case, "peer": peer_name, "rounds": [len(ours), len(peer)],
         "ours": o, "peer_result": p, "rate_ratio": round(rate, 3),
         "cpu_ratio": round(cpu, 3), "targets": verdicts,
         "ours_runs": [x["ops"] for x in ours],
         "peer_runs": [x["ops"] for x in peer]}
    if caller:
        c["caller"] = {"result": {k: med(caller, k) for k in
                                  ("ops", "cpu", "p50", "p99", "srv", "mibs")},
                       "cpu_vs_peer": round(got["caller_cpu"], 3),
                       "cpu_vs_threaded": round(got["caller_vs_threaded"], 3),
                       "rounds_less_cpu": [round(got["caller_rounds"] *
                                                 len(caller)), len(caller)]}
    out["cases"].append(c)
    rows.append(c)
# "no collapse past the knee": along a series of growing depth, our rate
# at the deepest point keeps >= 80% of our best rate in the series
checks = []
for name, cases in series.items():
    rates = [c["ours"]["ops"] for c in rows if c["case"] in cases]
    if len(rates) < 2:
        continue
    keep = rates[-1] / max(rates) if max(rates) else 0.0
    ok = keep >= 0.8
    misses += not ok
    checks.append({"series": name, "ours_ops": rates, "last_vs_best":
                   round(keep, 3), "ok": ok})
out["collapse_checks"] = checks
out["targets_missed"] = misses

def fmt_ops(v):
    return "%.1fk" % (v / 1e3) if v >= 1e3 else "%.0f" % v

hdr = ("case", "peer", "ours ops/s", "peer ops/s", "ratio", "ours CPU us/op",
       "peer CPU us/op", "CPU ratio", "ours p50/p99 us", "peer p50/p99 us",
       "server CPU % (ours/peer)", "MiB/s (ours/peer)", "targets")
md = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
for c in rows:
    o, p = c["ours"], c["peer_result"]
    md.append("| " + " | ".join((
        c["case"], c["peer"], fmt_ops(o["ops"]), fmt_ops(p["ops"]),
        "%.2fx" % c["rate_ratio"], "%.2f" % o["cpu"], "%.2f" % p["cpu"],
        "%.2fx" % c["cpu_ratio"], "%.0f/%.0f" % (o["p50"], o["p99"]),
        "%.0f/%.0f" % (p["p50"], p["p99"]),
        "%.0f/%.0f" % (o["srv"], p["srv"]),
        ("%.0f/%.0f" % (o["mibs"], p["mibs"])) if o["mibs"] or p["mibs"] else "-",
        "; ".join(c["targets"]) or "-")) + " |")
print("\n" + title + "\n")
print("\n".join(md))
print("\nmedians of %s rounds; ratios: median over rounds of ours / peer "
      "(run back to back)" %
      "/".join(sorted({str(c["rounds"][0]) for c in rows})))
for c in checks:
    print("no collapse, %s: deepest keeps %.0f%% of the best rate (%s) - %s"
          % (c["series"], 100 * c["last_vs_best"],
             " ".join(fmt_ops(r) for r in c["ours_ops"]),
             "met" if c["ok"] else "MISSED"))
cmd = ["| case | caller ops/s | caller CPU us/op | threaded CPU us/op | "
       "CPU caller / threaded | rounds caller < threaded | peer CPU us/op | "
       "CPU caller / peer |", "|" + "---|" * 8]
for c in rows:
    k = c.get("caller")
    if k:
        cmd.append("| %s | %s | %.2f | %.2f | %.2fx | %d of %d | %.2f | %.2fx |" % (
            c["case"], fmt_ops(k["result"]["ops"]), k["result"]["cpu"],
            c["ours"]["cpu"], k["cpu_vs_threaded"], k["rounds_less_cpu"][0],
            k["rounds_less_cpu"][1], c["peer_result"]["cpu"], k["cpu_vs_peer"]))
if len(cmd) > 2:
    print("\ncaller-driven mode (--libxprt-mode caller) in the same rounds\n")
    print("\n".join(cmd))
    md += ["", "Caller-driven mode (`--libxprt-mode caller`) in the same rounds:",
           ""] + cmd
if misses:
    print("%d target(s) missed" % misses)
for c in checks:
    md.append("\nNo collapse, %s: the deepest run keeps %.0f%% of the best rate "
              "(%s): %s" % (c["series"], 100 * c["last_vs_best"],
                           " ".join(fmt_ops(r) for r in c["ours_ops"]),
                           "met" if c["ok"] else "MISSED"))
json.dump(out, open(base + ".json", "w"), indent=1)
open(base + ".md", "w").write("\n".join(md) + "\n")
print("\n" + json.dumps(out))
EOF
}
