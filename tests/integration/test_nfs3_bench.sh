#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# shellcheck disable=SC2015 # "A && ok ... || bad ...": ok never fails
# nfs3-bench against a real ganesha (run by scripts/run-integration.sh, which
# exports servers.env and XPRT_BUILD_DIR):
#   1. --verify writes a 256 MiB file and reads it back; another client
#      (libnfs's nfs-cat) reads the same bytes as the server's disk holds;
#   2. errors: wrong export, wrong port, wrong program, refused
#      credentials, missing directory, bad flags - each with its exit status
#      and a message naming the cause;
#   3. the two seed workloads as documented (--preset nfs-randrw and
#      nfs-randread), briefly, plus null/getattr and the stability modes;
#   4. --libxprt-mode caller: each job drives its own client, the process
#      keeps exactly 1 + jobs threads while it runs; threaded has more;
#   5. UNSTABLE writes while ganesha is killed and restarted: the lost
#      data is written again and the verify pass finds every byte.
# Each check prints "ok - ..." or "FAIL - ..."; the exit status is the
# number of failures.  About 20-40 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/nfs3-bench
: "${XPRT_NFS_HOST:?run through scripts/run-integration.sh (no servers.env)}"
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nfs3-bench-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=$XPRT_NFS_EXPORT_DIR/nfs3-bench-test
rm -rf "$dir"
mkdir -p "$dir"
SRV=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT")
fails=0

# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# run NAME WANT_RC WANT_MSG ARGS...: run nfs3-bench, check the exit status
# and (when WANT_MSG is not empty) that stderr contains WANT_MSG
run() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	"$bin" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	check_exit "$name" "$want" "$rc" "$msg" "$work/err"
}

# jq-like: json KEYPATH -> value from $work/out (a JSON report)
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d)' "$work/out" "$1"
}

# ------------------------------------------------ 1. verify, read back by libnfs
size=$((256 << 20))
if run "256 MiB write --verify" 0 "" "${SRV[@]}" --directory nfs3-bench-test \
	--filename big.dat --rw write --bs 1m --size 256m --iodepth 8 --verify \
	--output-format json; then
	got=$(json xprt.backend_stats.bytes_received)
	((got >= size)) && ok "the verify pass read back $got bytes" ||
		bad "the verify pass read only $got bytes"
	[[ $(json xprt.aggregate.xprt.verify_errors) == 0 ]] && ok "no verify errors" ||
		bad "verify errors reported"
	[[ $(json xprt.backend_stats.commits) -ge 1 ]] &&
		ok "unstable writes were committed ($(json xprt.backend_stats.commits) COMMIT)" ||
		bad "no COMMIT after unstable writes"
fi
f=$dir/big.dat
[[ $(stat -c %s "$f" 2>/dev/null) == "$size" ]] && ok "file on the server is $size bytes" ||
	bad "file on the server is $(stat -c %s "$f" 2>/dev/null) bytes, want $size"
url="${XPRT_NFS_URL%%\?*}/nfs3-bench-test/big.dat?${XPRT_NFS_URL#*\?}"
disk=$(sha256sum <"$f" | cut -d' ' -f1)
other=$(nfs-cat "$url" | sha256sum | cut -d' ' -f1)
zeros=$(head -c "$size" /dev/zero | sha256sum | cut -d' ' -f1)
if [[ $other == "$disk" && $disk != "$zeros" ]]; then
	ok "nfs-cat reads what the server holds (sha256 ${disk:0:16}...)"
else
	bad "checksums: nfs-cat $other, server disk $disk (zeros $zeros)"
fi
# MSG_ZEROCOPY WRITEs (--zerocopy): the sends are reported (loopback
# copies, and says so), the data verified, the counters in the report
if run "64 MiB write --zerocopy --verify" 0 "" "${SRV[@]}" \
	--directory nfs3-bench-test --filename zc.dat --rw write --bs 1m \
	--size 64m --iodepth 4 --zerocopy --verify --output-format json; then
	zs=$(json xprt.backend_stats.zerocopy_sends)
	zd=$(json xprt.backend_stats.zerocopy_completions)
	zk=$(json xprt.backend_stats.zerocopy_copied)
	((zs > 0 && zd == zs && zk == zs)) &&
		ok "zerocopy: $zs sends, $zd reported, $zk copied (loopback)" ||
		bad "zerocopy counters: $zs sends, $zd reported, $zk copied"
	[[ $(json xprt.aggregate.xprt.verify_errors) == 0 ]] &&
		ok "zerocopy writes verified" || bad "zerocopy: verify errors"
fi
# A second verified run over the same file, with random writes and reads
# and two jobs sharing it: every read is checked against the pattern.
run "randrw --verify, 2 jobs sharing a file" 0 "" "${SRV[@]}" \
	--directory nfs3-bench-test --filename mixed.dat --rw randrw --bs 16k \
	--size 32m --iodepth 16 --numjobs 2 --verify --time_based --runtime 2

# ------------------------------------------------------------- 2. errors
run "wrong export" 1 "export /no-such-export does not exist" \
	--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT" \
	--export /no-such-export --time_based --runtime 1
run "nothing listens on the NFS port" 1 "Connection refused" \
	--server "$XPRT_NFS_HOST:1" --mount-port "$XPRT_MNT_PORT" \
	--export "$XPRT_NFS_EXPORT" --time_based --runtime 1
run "MOUNT port is not MOUNT (wrong server)" 1 "does not run that program" \
	--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_NFS_PORT" \
	--export "$XPRT_NFS_EXPORT" --time_based --runtime 1
run "host does not resolve" 1 "cannot resolve" \
	--server no-such-host.invalid --export "$XPRT_NFS_EXPORT" --time_based --runtime 1
run "--transport rdma (no RDMA device on this host)" 1 "no RDMA device" \
	"${SRV[@]}" --transport rdma --time_based --runtime 1
mkdir -p "$dir/locked" && chmod 755 "$dir/locked"
run "server refuses to create for uid 65534" 1 "permission denied to uid 65534" \
	"${SRV[@]}" --uid 65534 --gid 65534 --directory nfs3-bench-test/locked \
	--rw write --size 1m --time_based --runtime 1
run "directory missing in the export" 1 "no such file" "${SRV[@]}" \
	--directory nfs3-bench-test/missing --rw write --size 1m --time_based --runtime 1
run "--server missing" 2 "--server and --export are required" \
	--export /export --time_based --runtime 1
run "bad --stable" 2 "--stable" "${SRV[@]}" --stable sometimes
run "bad --server port" 2 "--server" --server "$XPRT_NFS_HOST:99999" \
	--export /export
run "--bs above the server's wsize" 2 "largest transfer" "${SRV[@]}" \
	--directory nfs3-bench-test --rw write --bs 2m --size 4m --time_based --runtime 1

# ------------------------------------------- 3. seed workloads, briefly
# The documented command lines (docs/man/nfs3-bench.1, EXAMPLES) with a
# short runtime; randread reuses the files randrw laid out.
for p in nfs-randrw nfs-randread; do
	if run "--preset $p --runtime 2" 0 "" "${SRV[@]}" --directory nfs3-bench-test \
		--preset "$p" --time_based --runtime 2 --output-format json --output "$work/$p.json"; then
		cp "$work/$p.json" "$work/out"
		ops=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["xprt"]["aggregate"]
print(a["read"]["total_ios"] + a["write"]["total_ios"])' "$work/out")
		[[ $(json xprt.status.ok) == True && $ops -gt 0 && $(json xprt.backend_stats.retransmits) == 0 ]] &&
			ok "$p: $ops I/Os, $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$work/out") jobs, no retransmits" ||
			bad "$p: status $(json xprt.status.ok), $ops I/Os"
	fi
done
run "--rw null" 0 "" "${SRV[@]}" --rw null --iodepth 8 --time_based --runtime 1
run "--rw getattr" 0 "" "${SRV[@]}" --directory nfs3-bench-test --rw getattr \
	--iodepth 8 --time_based --runtime 1
for s in datasync filesync; do
	if run "--stable $s" 0 "" "${SRV[@]}" --directory nfs3-bench-test --name "$s" \
		--rw randwrite --bs 8k --size 8m --iodepth 8 --stable $s --time_based --runtime 1 \
		--output-format json; then
		[[ $(json xprt.backend_stats.commits) == 0 && $(json xprt.backend_stats.unstable_writes) == 0 ]] &&
			ok "--stable $s: no unstable writes, no COMMIT" ||
			bad "--stable $s: $(json xprt.backend_stats.unstable_writes) unstable writes, $(json xprt.backend_stats.commits) commits"
	fi
done

# ------------------------------------- 4. --libxprt-mode caller vs threaded
# threads_run MODE JOBS: a verified randrw run of JOBS jobs in MODE in the
# background, its thread count (/proc/PID/status) sampled while it runs:
# $tmax the most seen, $tjobs the samples with exactly $base + JOBS.
# $base: the main thread, and ThreadSanitizer's own background thread in
# a TSan build.
base=1
ldd "$bin" | grep -q libtsan && base=2
threads_run() {
	local mode=$1 jobs=$2 pid
	"$bin" "${SRV[@]}" --directory nfs3-bench-test --name "mode-$mode" \
		--rw randrw --bs 4k --size 4m --iodepth 16 --numjobs "$jobs" \
		--verify --time_based --runtime 2 --libxprt-mode "$mode" \
		--output-format json >"$work/out" 2>"$work/err" &
	pid=$!
	thread_samples "$pid" $((base + jobs))
	tjobs=$tat
	wait "$pid"
	check_exit "--libxprt-mode $mode, $jobs jobs, randrw --verify" 0 $? "" \
		"$work/err" || return 1
	[[ $(json xprt.aggregate.xprt.verify_errors) == 0 ]] &&
		ok "--libxprt-mode $mode: every read verified" ||
		bad "--libxprt-mode $mode: verify errors"
}
jobs=2
if threads_run caller $jobs; then
	# each job's thread drives its own client: no library thread at all
	((tmax == base + jobs && tjobs >= 10)) &&
		ok "caller mode: at most $tmax threads ($base + $jobs jobs; $tjobs samples at that)" ||
		bad "caller mode: up to $tmax threads, $tjobs samples at $base + $jobs (want exactly $base + $jobs)"
	[[ $(json xprt.backend_stats.clients) == $((1 + jobs)) ]] &&
		ok "caller mode: a client per job and set-up's" ||
		bad "caller mode: $(json xprt.backend_stats.clients) clients, want $((1 + jobs))"
fi
if threads_run threaded $jobs; then
	((tmax > base + jobs)) &&
		ok "threaded mode: $tmax threads (the library's receive threads and workers besides the jobs)" ||
		bad "threaded mode: only $tmax threads: the library's threads missing"
	[[ $(json xprt.backend_stats.clients) == 1 ]] &&
		ok "threaded mode: one client shared by the jobs" ||
		bad "threaded mode: $(json xprt.backend_stats.clients) clients, want 1"
fi
run "--libxprt-mode caller over RDMA" 2 "TCP without --zerocopy only" \
	"${SRV[@]}" --transport rdma --libxprt-mode caller
run "bad --libxprt-mode" 2 "--libxprt-mode" "${SRV[@]}" --libxprt-mode sometimes

# UNSTABLE writes across a server restart: ganesha is killed mid-run and
# started again (1.5 s later: it derives its write verifier from its start
# time in seconds).  The COMMIT after the write phase sees the new
# verifier, the job writes its blocks again, and the verify pass finds
# every byte.  (ganesha's VFS back-end hands unstable writes to the
# kernel's page cache, so a killed ganesha loses none: this proves the
# detection and the resend on a real server; the unit test
# test_bench_job_end proves the recovery of data that was really lost.)
if [[ -n ${XPRT_SERVERS_SH:-} && -n ${XPRT_SERVERS_RUN_DIR:-} ]]; then
	"$bin" "${SRV[@]}" --directory nfs3-bench-test --name restart \
		--rw randwrite --bs 64k --size 32m --iodepth 8 --numjobs 2 \
		--time_based --runtime 5 --verify --output-format json >"$work/out" 2>"$work/err" &
	pid=$!
	sleep 2
	"$XPRT_SERVERS_SH" kill "$XPRT_SERVERS_RUN_DIR" ganesha >/dev/null 2>&1
	sleep 1.5
	"$XPRT_SERVERS_SH" start "$XPRT_SERVERS_RUN_DIR" ganesha >/dev/null 2>&1 ||
		bad "ganesha did not start again"
	wait "$pid"
	rc=$?
	if ((rc == 0)); then
		ok "unstable writes across a restart: exit 0"
		changes=$(json xprt.backend_stats.write_verifier_changes)
		resent=$(json xprt.backend_stats.resent_bytes)
		((changes >= 1 && resent > 0)) &&
			ok "the verifier change was seen ($changes) and $resent bytes written again" ||
			bad "verifier changes $changes, resent $resent bytes: the restart went unnoticed"
		[[ $(json xprt.aggregate.xprt.verify_errors) == 0 ]] &&
			ok "the verify pass after the restart found every byte" ||
			bad "verify errors after the restart"
	else
		bad "unstable writes across a restart: exit $rc"
		sed 's/^/    | /' "$work/err" | tail -5
	fi
else
	bad "no XPRT_SERVERS_SH / XPRT_SERVERS_RUN_DIR: cannot restart ganesha"
fi

rm -rf "$dir"
echo "test_nfs3_bench: $fails failure(s)"
exit $((fails > 0))
