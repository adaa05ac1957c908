#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# p9-bench against diod and ganesha's 9P listener (run by
# scripts/run-integration.sh, which exports servers.env and XPRT_BUILD_DIR).
# For each server:
#   1. --verify runs (ior write, a transfer split over two messages with
#      --alloc malloc, random mixed I/O over two sessions, split I/Os
#      through too few request slots), then the job
#      files in the server's export directory are compared with the
#      engine's documented data pattern computed from scratch by
#      scripts/check-pattern.py: an independent check of what reached
#      the disk;
#   2. fio's --fsync=N and --end_fsync (Tfsync), getattr, and the two ior presets of the slab thread, briefly;
#   3. a wrong aname: exit status 1 and a message naming Tattach and
#      --aname;
#   4. --libxprt-mode caller: randread and randwrite --verify, each job's
#      thread driving a session of its own, the process at exactly 1 +
#      jobs threads while it runs; 256 KiB I/Os through 6 slots with
#      --alloc malloc, their later parts sent by the job's thread.
# Then errors that need no server: a closed port, a port that does not
# speak 9P, bad flags and caller mode over RDMA, with --zerocopy or
# --nconnect 2 (exit status 2).  Each check prints "ok - ..." or
# "FAIL - ..."; the exit status is the number of failures.  About 30-50 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/p9-bench
[[ -n ${XPRT_DIOD_PORT:-}${XPRT_GANESHA_9P_PORT:-} ]] ||
	{ echo "FAIL - no servers.env (run through scripts/run-integration.sh)"; exit 1; }
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/p9-bench-test.XXXXXX")
sub=p9-bench-test.$$
cleanup() {
	rm -rf "$work"
	[[ -n ${XPRT_DIOD_EXPORT_DIR:-} ]] && rm -rf "${XPRT_DIOD_EXPORT_DIR:?}/$sub"
	[[ -n ${XPRT_NFS_EXPORT_DIR:-} ]] && rm -rf "${XPRT_NFS_EXPORT_DIR:?}/$sub"
}
trap cleanup EXIT
fails=0

# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# run NAME WANT_RC WANT_MSG ARGS...: run p9-bench (JSON report in
# $work/out), check its exit status and that stderr has WANT_MSG
run() {
	local name=$1 want=$2 msg=$3 rc
	shift 3
	timeout 60 "$bin" --eta never "$@" >"$work/out" 2>"$work/err"
	rc=$?
	check_exit "$name" "$want" "$rc" "$msg" "$work/err"
}

# json EXPR: evaluate a Python expression over the report d = $work/out
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$work/out" "$1"
}

# expect NAME EXPR: the Python expression over the report is true
expect() {
	if [[ $(json "$2" 2>&1) == True ]]; then
		ok "$1"
	else
		bad "$1: $2 is not true"
	fi
}

# ondisk NAME DIR SIZE GEN FILE...: FILE (job J's, J from its name
# NAME.J.0) in the export directory DIR holds SIZE bytes of the pattern
# of tag J << 16 | GEN, computed from scratch by scripts/check-pattern.py
ondisk() {
	local name=$1 dir=$2 size=$3 gen=$4 out
	shift 4
	if out=$("$top/scripts/check-pattern.py" "$dir" "$size" --gen "$gen" "$@"); then
		ok "$name: $# files match"
	else
		bad "$name: $(grep -v ': ok: ' <<<"$out" | head -3)"
	fi
}

# $base: threads of the process besides the jobs' in caller mode: the
# main one, and ThreadSanitizer's own background thread in a TSan build
base=1
ldd "$bin" | grep -q libtsan && base=2

# caller NAME RW ARGS...: a --verify RW run of 2 jobs in --libxprt-mode
# caller in the background (ARGS: the server's), its thread count
# (/proc/PID/status) sampled while it runs; exit 0, no verify or I/O
# error, a session per job and set-up's, and never more than $base + 2
# threads, at least 10 samples at exactly that
caller() {
	local s=$1 rw=$2 jobs=2 pid rc
	shift 2
	"$bin" --eta never "$@" --name "c$rw" --rw "$rw" --bs 4k --size 1m \
		--iodepth 16 --numjobs $jobs --time_based --runtime 2 --verify \
		--libxprt-mode caller --output-format json >"$work/out" 2>"$work/err" &
	pid=$!
	thread_samples "$pid" $((base + jobs))
	wait "$pid"
	rc=$?
	check_exit "$s: caller mode, $rw, $jobs jobs, --verify" 0 $rc "" \
		"$work/err" || return 1
	expect "$s: caller mode $rw: I/Os done and verified on a session per job" \
		"d['xprt']['aggregate']['${rw#rand}']['total_ios'] > 0 and d['xprt']['aggregate']['xprt']['verify_errors'] == 0 and d['xprt']['aggregate']['xprt']['io_errors'] == 0 and d['xprt']['backend_stats']['sessions'] == 1 + $jobs"
	((tmax == base + jobs && tat >= 10)) &&
		ok "$s: caller mode $rw: at most $tmax threads ($base + $jobs jobs; $tat samples at that)" ||
		bad "$s: caller mode $rw: up to $tmax threads, $tat samples at $base + $jobs (want exactly $base + $jobs)"
}

# server NAME HOST PORT ANAME EXPORT_DIR
server() {
	local s=$1 dir=$5
	local SRV=(--server "$2:$3" --aname "$4")

	mkdir -p "$dir/$sub"
	run "$s: ior write, 2 jobs, --verify" 0 "" "${SRV[@]}" \
		--directory "$sub" --name w --workload ior --rw write \
		--numjobs 2 --bs 4k --size 256k --verify --output-format json &&
		expect "$s: ior write verified 2 x 256 KiB" \
			'd["xprt"]["ior"]["results"][0]["bytes"] == 2 * 262144 and d["xprt"]["status"]["ok"]'
	ondisk "$s: ior write on disk" "$dir/$sub" 262144 1 w.0.0 w.1.0

	# 96 KiB transfers: two Twrite/Tread each at msize 64 KiB
	run "$s: 96k transfers, --alloc malloc, --verify" 0 "" "${SRV[@]}" \
		--directory "$sub" --name m --rw write --bs 96k --size 768k \
		--alloc malloc --verify --output-format json &&
		expect "$s: each 96k I/O took two messages" \
			'd["xprt"]["backend_stats"]["split_ios"] >= 8 and d["xprt"]["backend_stats"]["alloc_malloc"] == 1'
	ondisk "$s: split writes on disk" "$dir/$sub" 786432 1 m.0.0

	# MSG_ZEROCOPY Twrites (64 KiB-ish payloads, msize 64 KiB): every
	# send reported (loopback: copied), the data verified and on disk
	run "$s: 512k writes --zerocopy, --verify" 0 "" "${SRV[@]}" \
		--directory "$sub" --name z --rw write --bs 512k --size 4m \
		--iodepth 4 --zerocopy --verify --output-format json &&
		expect "$s: zerocopy sends all reported, copied on loopback" \
			'(lambda b: b["zerocopy_sends"] > 0 and b["zerocopy_completions"] == b["zerocopy_sends"] and b["zerocopy_copied"] == b["zerocopy_sends"])(d["xprt"]["backend_stats"]) and d["xprt"]["aggregate"]["xprt"]["verify_errors"] == 0'
	ondisk "$s: zerocopy writes on disk" "$dir/$sub" 4194304 1 z.0.0

	run "$s: randrw 4k, iodepth 16, 2 jobs, 2 sessions, --verify" 0 "" \
		"${SRV[@]}" --directory "$sub" --name r --rw randrw --bs 4k \
		--size 1m --iodepth 16 --numjobs 2 --nconnect 2 --time_based --runtime 1 \
		--verify --output-format json &&
		expect "$s: randrw read and wrote, no errors" \
			'd["xprt"]["aggregate"]["read"]["total_ios"] > 0 and d["xprt"]["aggregate"]["write"]["total_ios"] > 0 and d["xprt"]["backend_stats"]["sessions"] == 2 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0'

	# 6 slots for 2 x 4 I/Os of 5 messages each: later parts find no
	# slot in completion context and go to the back-end's helper thread
	run "$s: 256k I/Os through 6 slots, --verify" 0 "" "${SRV[@]}" \
		--directory "$sub" --name s --rw randrw --bs 256k --size 4m \
		--iodepth 4 --numjobs 2 --max-reqs 6 --time_based --runtime 1 --verify \
		--output-format json &&
		expect "$s: parts deferred to the helper, no errors" \
			'd["xprt"]["backend_stats"]["deferred"] > 0 and d["xprt"]["backend_stats"]["max_reqs"] == 6 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0'

	# fio's fsync=N: a Tfsync after every 4 writes, counted under "sync";
	# end_fsync=1: one more per job once its writes are over (job_sync)
	run "$s: --fsync=4 --end_fsync=1, 2 jobs, iodepth 4" 0 "" "${SRV[@]}" \
		--directory "$sub" --name f --rw randwrite --bs 4k --size 64k \
		--fsync=4 --end_fsync=1 --numjobs 2 --iodepth 4 \
		--output-format json &&
		expect "$s: 2 x 16 writes, 2 x 4 Tfsync, no errors" \
			'[(j["write"]["total_ios"], j["sync"]["total_ios"]) for j in d["jobs"]] == [(16, 4)] * 2 and d["xprt"]["backend_stats"]["end_fsyncs"] == 2 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0'
	grep -q "end_fsync" "$work/err" && ok "$s: --end_fsync noted" ||
		bad "$s: --end_fsync: no note on stderr"

	run "$s: getattr, 2 jobs, iodepth 4" 0 "" "${SRV[@]}" \
		--directory "$sub" --name r --rw getattr --numjobs 2 \
		--iodepth 4 --time_based --runtime 500ms --output-format json &&
		expect "$s: getattr round trips counted" \
			'd["xprt"]["aggregate"]["xprt"]["other"]["total_ios"] > 0'

	run "$s: --preset ior-512k (1 MiB per job)" 0 "" "${SRV[@]}" \
		--directory "$sub" --name big --preset ior-512k --size 1m \
		--verify --output-format json &&
		expect "$s: ior-512k: 32 files written and read in 512 KiB I/Os" \
			'[(r["access"], r["ops"]) for r in d["xprt"]["ior"]["results"]] == [("write", 64), ("read", 64)] and d["xprt"]["backend_stats"]["split_ios"] >= 128'
	ondisk "$s: ior-512k files on disk (first and last job)" "$dir/$sub" \
		1048576 1 big.0.0 big.31.0

	run "$s: --preset ior-32b (2 KiB per job), --alloc malloc, 2 reps" 0 "" \
		"${SRV[@]}" --directory "$sub" --name small --preset ior-32b \
		--size 2k --repetitions 2 --alloc malloc --verify \
		--output-format json &&
		expect "$s: ior-32b: 32 x 64 32-byte writes and reads per rep" \
			'[r["ops"] for r in d["xprt"]["ior"]["results"]] == [2048] * 4'
	# the second repetition rewrote every block: generation 2
	ondisk "$s: ior-32b files on disk after 2 reps" "$dir/$sub" 2048 2 \
		$(cd "$dir/$sub" && echo small.*.0)

	caller "$s" randread "${SRV[@]}" --directory "$sub"
	caller "$s" randwrite "${SRV[@]}" --directory "$sub"
	# as the 6-slot run above: the parts that find no slot go to the
	# job's own thread, which sends them allowed to block
	run "$s: caller mode, 256k I/Os through 6 slots, --alloc malloc, --verify" \
		0 "" "${SRV[@]}" --directory "$sub" --name cs --rw randrw \
		--bs 256k --size 4m --iodepth 4 --numjobs 2 --max-reqs 6 \
		--alloc malloc --time_based --runtime 1 --verify \
		--libxprt-mode caller --output-format json &&
		expect "$s: caller mode: parts deferred to the jobs' threads, no errors" \
			'd["xprt"]["backend_stats"]["deferred"] > 0 and d["xprt"]["backend_stats"]["split_ios"] > 0 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0 and d["xprt"]["aggregate"]["xprt"]["verify_errors"] == 0'

	run "$s: wrong aname" 1 "Tattach" --server "$2:$3" --aname /no/such/tree &&
		grep -qF -- "--aname" "$work/err" &&
		ok "$s: the message points at --aname" ||
		bad "$s: wrong aname: no hint about --aname"
}

if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	server diod "$XPRT_DIOD_HOST" "$XPRT_DIOD_PORT" "$XPRT_DIOD_ANAME" \
		"$XPRT_DIOD_EXPORT_DIR"
fi
if [[ -n ${XPRT_GANESHA_9P_PORT:-} ]]; then
	server ganesha "$XPRT_GANESHA_9P_HOST" "$XPRT_GANESHA_9P_PORT" \
		"$XPRT_GANESHA_9P_ANAME" "$XPRT_NFS_EXPORT_DIR"
fi

# a port nobody listens on: the kernel picks a free one, we close it
closed=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run "closed port" 1 "Connection refused" --server "127.0.0.1:$closed" --aname /x
run "unresolvable host" 1 "does not resolve" --server no-such-host.invalid --aname /x
if [[ -n ${XPRT_NFS_PORT:-} ]]; then
	# ganesha's NFS port: accepts the connection, never answers Tversion
	run "not a 9P port" 1 "9P2000.L server" \
		--server "127.0.0.1:$XPRT_NFS_PORT" --aname /x
fi
A=(--server 127.0.0.1:1 --aname /x)
run "--msize below 4k" 2 "--msize" "${A[@]}" --msize 100
run "--msize above 8m" 2 "--msize" "${A[@]}" --msize 16m
run "--alloc unknown" 2 "--alloc" "${A[@]}" --alloc slab
run "--server missing" 2 "--server HOST[:PORT] is required" --aname /x
run "--aname missing" 2 "--aname PATH is required" --server 127.0.0.1:1
run "--server bad port" 2 "--server" --server 127.0.0.1:port --aname /x
run "--rw null refused" 2 "no null operation" "${A[@]}" --rw null --time_based --runtime 1
run "caller mode over RDMA refused" 2 "TCP without --zerocopy only" "${A[@]}" \
	--libxprt-mode caller --transport rdma
run "caller mode with --zerocopy refused" 2 "TCP without --zerocopy only" \
	"${A[@]}" --libxprt-mode caller --zerocopy
run "caller mode with --nconnect 2 refused" 2 "one 9P session of its own" \
	"${A[@]}" --libxprt-mode caller --nconnect 2
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	run "--bs above 128 messages" 2 "largest transfer" \
		--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" \
		--aname "$XPRT_DIOD_ANAME" --rw write --bs 16m --size 16m
	run "--transport rdma" 1 "RDMA" --transport rdma \
		--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME"
fi
run "--help" 0 "" --help && grep -q -- "--alloc pool|malloc" "$work/out" &&
	ok "--help lists the 9P options" || bad "--help lacks --alloc"

echo "p9-bench: $fails failure(s)"
exit "$fails"
