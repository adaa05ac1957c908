#!/usr/bin/env bash
# make bench-fio: fio with libxprt's engine (fio/), beside nfs3-bench on
# the same job (what fio itself costs) and beside fio's own libnfs engine
# (fio's engines/nfs.c on Debian's libnfs), against ganesha.
#
# usage: scripts/bench-fio.sh [--build] [BUILD_DIR]   (default build/plain)
#   --build: only build the fio below, run nothing
#   env: QUICK=1 (3 rounds of 1 s), ROUNDS=N (default 5), SECS=S (per run,
#        default 3)
#
#   A  fio   --ioengine=external:BUILD_DIR/fio/libxprt-fio.so --nfs_url=URL
#   B  nfs3-bench --server H:P --mount-port M --export /export
#   C  fio   --ioengine=nfs --nfs_url=URL
#
# with the same fio options on each: --filename F --size 32m --bs 4k
# --iodepth 16 --numjobs 1 --time_based --runtime SECS --ramp_time 500ms,
# --rw randread (F a file of random bytes in the server's page cache),
# then --rw randwrite (UNSTABLE WRITEs on all three, no COMMIT by the fio
# engines; nfs3-bench's COMMIT comes after its measured time).  URL is
# nfs://H/export?nfsport=P&mountport=M, the libnfs syntax both engines
# read.  A job runs in a process of its own (fio's default).
#
# A and C are the same fio binary: Debian's fio source at the installed
# version (scripts/fio-source.sh, the tree the engine is compiled
# against), configured as Debian configures it with libnfs found (fio's
# configure enables its nfs engine when pkg-config finds libnfs-dev), and
# built into BUILD_DIR/bench/fio-libnfs.  One change: fio's getrusage()
# is RUSAGE_SELF instead of RUSAGE_THREAD (CONFIG_RUSAGE_THREAD taken out
# of config-host.h).  fio counts the CPU time of the job's own thread
# only, and libxprt's engine has a receive thread per connection beside
# it: with RUSAGE_SELF fio's usr/sys figures are the job process's, all
# of its threads, as nfs3-bench's are.  fio's engines/nfs.c is
# single-threaded, so its figure is the same either way.
#
# Each round runs every workload through A, B and C back to back, the
# order rotated from round to round (ABC, BCA, CAB).  Per run: ops/s,
# client CPU per I/O (the job's usr + sys time over its measured window,
# from usr_cpu, sys_cpu and job_runtime of fio's JSON, which nfs3-bench
# writes too, divided by the I/O count), p50/p99 completion latency and
# the server's CPU.  Reported: the median per client, the median over
# rounds of A/C and B/C within a round, and the rounds where A (and B)
# used less CPU per I/O, and did more I/Os per second, than C.  Results:
# a table on stdout, BUILD_DIR/bench-fio.tsv (every run) and
# BUILD_DIR/bench-fio.json (scripts/bench-md.py --record renders it).
set -euo pipefail
BL_NAME=bench-fio
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
build_only=0
if [[ ${1:-} == --build ]]; then
	build_only=1
	shift
fi
O=${1:-build/plain}
[[ $O == /* ]] || O=$BL_TOP/$O
if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-3} SECS=${SECS:-1}
else
	ROUNDS=${ROUNDS:-5} SECS=${SECS:-3}
fi
ENGINE=$O/fio/libxprt-fio.so
BENCH=$O/bench/nfs3-bench
FIODIR=$O/bench/fio-libnfs
FIO=$FIODIR/src/fio
for b in "$ENGINE" "$BENCH" "$O/fio/fio-source"; do
	[[ -e $b ]] || bl_die "$b is missing (make bench-fio builds it)"
done

# build_fio: fio with its nfs engine from the engine's configured source
# tree, unless built from it already
build_fio() {
	local src stamp
	src=$(<"$O/fio/fio-source")
	stamp="$src $(cd "$src" && echo .libxprt-configured-*)"
	[[ -x $FIO && $(cat "$FIODIR/built-from" 2>/dev/null) == "$stamp" ]] &&
		return 0
	bl_log "building fio with its nfs engine from $src into $FIODIR"
	rm -rf "$FIODIR"
	mkdir -p "$FIODIR"
	cp -a "$src" "$FIODIR/src"
	grep -q '^#define CONFIG_LIBNFS$' "$FIODIR/src/config-host.h" ||
		bl_die "fio's configure found no libnfs (pkg-config libnfs:" \
			"$(pkg-config --modversion libnfs 2>&1)), so fio has no nfs" \
			"engine: install libnfs-dev, remove $(dirname "$src") and" \
			"build the engine again"
	sed -i '/^#define CONFIG_RUSAGE_THREAD$/d' "$FIODIR/src/config-host.h"
	# fio's own Makefile, not a sub-make of ours
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$FIODIR/src" -j2 fio >"$FIODIR/build.log" 2>&1; then
		tail -20 "$FIODIR/build.log" >&2
		bl_die "fio did not build (log: $FIODIR/build.log)"
	fi
	"$FIO" --enghelp | grep -qw nfs || bl_die "$FIO has no nfs engine"
	echo "$stamp" >"$FIODIR/built-from"
}
build_fio
((build_only)) && exit 0

BL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-fio.XXXXXX")
BL_ERRLOG=$O/bench-fio.err
: >"$BL_ERRLOG"
trap 'bl_servers_down; rm -rf "$BL_TMP"' EXIT
trap 'exit 130' INT TERM
bl_servers_up "$O/bench-fio-run"
TSV=$O/bench-fio.tsv
: >"$TSV"
bl_mkfile "$XPRT_NFS_EXPORT_DIR/fio32m.dat" 32
bl_mkfile "$XPRT_NFS_EXPORT_DIR/fiow32m.dat" 32
bl_log "ganesha NFS $XPRT_NFS_HOST:$XPRT_NFS_PORT; $ROUNDS rounds x ${SECS}s per run; load: $(cut -d' ' -f1-3 /proc/loadavg)"

URL="nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT?nfsport=$XPRT_NFS_PORT&mountport=$XPRT_MNT_PORT"
JOB=(--name=bench --size=32m --bs=4k --iodepth=16 --numjobs=1
	--time_based "--runtime=$(awk -v s="$SECS" 'BEGIN { printf "%d", s * 1000 }')ms"
	--ramp_time=500ms --output-format=json --eta=never)

# norm_fio: fio's JSON (or nfs3-bench's, the same fields) of one job ->
# "ops=.. cpu=.. p50=.. p99=.. mibs=..", CPU per I/O from the job's own
# usr/sys CPU (% of job_runtime ms) and its I/O count
norm_fio() {
	python3 -c 'import json, sys
j = json.loads(sys.stdin.read())["jobs"][0]
if j["error"]:
    sys.exit(1)
d = [j[k] for k in ("read", "write") if j[k]["total_ios"]][0]
cpu_us = (j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] * 1000
lat = d["clat_ns"]["percentile"]
print("ops=%.1f cpu=%.3f p50=%.1f p99=%.1f mibs=%.1f" % (d["iops"],
      cpu_us / d["total_ios"], lat["50.000000"] / 1e3,
      lat["99.000000"] / 1e3, d["bw_bytes"] / 1048576))'
}

# run CLIENT WORKLOAD ROUND (in BL_TMP, where fio may keep state files)
run() {
	local file=fio32m.dat cmd
	[[ $2 == randwrite ]] && file=fiow32m.dat
	case $1 in
	fio-libxprt) cmd=("$FIO" "--ioengine=external:$ENGINE" "--nfs_url=$URL") ;;
	nfs3-bench)
		cmd=("$BENCH" --server "$XPRT_NFS_HOST:$XPRT_NFS_PORT"
			--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT") ;;
	fio-libnfs) cmd=("$FIO" --ioengine=nfs "--nfs_url=$URL") ;;
	esac
	bl_timed "$TSV" "$2" "$1" "$3" norm_fio "${cmd[@]}" "--filename=$file" \
		"--rw=$2" "${JOB[@]}"
}

clients=(fio-libxprt nfs3-bench fio-libnfs)
cd "$BL_TMP"
for ((r = 1; r <= ROUNDS; r++)); do
	for w in randread randwrite; do
		for ((i = 0; i < 3; i++)); do
			run "${clients[(i + r - 1) % 3]}" "$w" "$r"
		done
	done
done

# libnfs's engine logs a failed call when fio closes its file with calls
# still in flight (it waits for none at the end of a time_based run):
# counted, the runs' figures are fio's all the same
nerr=$(grep -c '^Failed NFS operation' "$BL_ERRLOG" || true)
python3 - "$TSV" "$O/bench-fio.json" "$ROUNDS" "$SECS" "${QUICK:-0}" \
	"$("$FIO" --version)" "$(pkg-config --modversion libnfs)" "$nerr" <<'EOF'
import json, statistics, sys

tsv, out, rounds, secs, quick, fiov, nfsv, nerr = sys.argv[1:]
runs = {}
for line in open(tsv):
    f = line.rstrip("\n").split("\t")
    runs.setdefault(f[0], {}).setdefault(f[1], {})[f[2]] = dict(
        ops=float(f[3]), cpu=float(f[4]), p50=float(f[5]), p99=float(f[6]),
        srv=float(f[7]))
names = {"fio-libxprt": "A: fio + libxprt's engine",
         "nfs3-bench": "B: nfs3-bench",
         "fio-libnfs": "C: fio + fio's libnfs engine"}
med = statistics.median
rows, notes, raw = [], [], {}
for wl, cl in runs.items():
    ref = cl["fio-libnfs"]
    for c in names:
        rs = cl[c]
        pr = [(rs[k], ref[k]) for k in rs if k in ref]
        def m(key):
            return med(x[key] for x in rs.values())
        if c == "fio-libnfs":
            vs_ops = vs_cpu = won = won_ops = "-"
        else:
            vs_ops = "%.2fx" % med(a["ops"] / b["ops"] for a, b in pr)
            vs_cpu = "%.2fx" % med(a["cpu"] / b["cpu"] for a, b in pr)
            won = "%d of %d" % (sum(a["cpu"] < b["cpu"] for a, b in pr),
                                len(pr))
            won_ops = "%d of %d" % (sum(a["ops"] > b["ops"] for a, b in pr),
                                    len(pr))
        rows.append([wl, names[c], "%.1fk" % (m("ops") / 1e3),
                     "%.2f" % m("cpu"), vs_ops, vs_cpu, won, won_ops,
                     "%.0f/%.0f" % (m("p50"), m("p99")), "%.0f" % m("srv")])
    a, b = cl["fio-libxprt"], cl["nfs3-bench"]
    pr = [(a[k], b[k]) for k in a if k in b]
    notes.append("%s: what fio and the engine add to the same library, "
                 "A - B per round: %.2f us per I/O (median; A/B %.2fx)" % (
                     wl, med(x["cpu"] - y["cpu"] for x, y in pr),
                     med(x["cpu"] / y["cpu"] for x, y in pr)))
    raw[wl] = cl
if int(nerr):
    notes.append("fio's libnfs engine logged %s failed call(s) in all, at "
                 "the end of runs: it closes its file with calls in flight"
                 % nerr)
doc = {"bench": "bench-fio", "rounds": int(rounds), "secs": float(secs),
       "quick": quick == "1", "fio": fiov, "libnfs": nfsv, "runs": raw,
       "tables": [{
           "title": "4 KiB random I/O, iodepth 16, one job, a 32 MiB file, "
                    "ganesha over TCP loopback.  ganesha on the same 2 "
                    "cores sets the I/O rate: client CPU per I/O is the "
                    "client's figure",
           "columns": ["workload", "client", "IOPS", "client CPU us per "
                       "I/O (usr+sys)", "IOPS / C", "CPU per I/O / C",
                       "rounds with less CPU per I/O than C",
                       "rounds with more IOPS than C",
                       "p50/p99 us", "server CPU %"],
           "rows": rows, "notes": notes}],
       "how": "`make bench-fio`, medians of %s rounds of %g s, A, B and C "
              "back to back in each, the order rotating; ratios: median "
              "over rounds of the ratio within a round; A and C: %s "
              "built from Debian's source with its nfs engine on libnfs "
              "%s, CPU from getrusage(RUSAGE_SELF)%s" % (
                  rounds, float(secs), fiov, nfsv,
                  " (QUICK)" if quick == "1" else "")}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
t = doc["tables"][0]
print("\n" + t["title"] + "\n")
print(" | ".join(t["columns"]))
for r in t["rows"]:
    print(" | ".join(r))
for n in t["notes"]:
    print("  - " + n)
print("\nbench-fio: " + out)
EOF
