#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# p9-bench's session recovery against diod killed mid-run (run by
# scripts/run-integration.sh, which exports servers.env, XPRT_SERVERS_SH
# and XPRT_BUILD_DIR):
#   1. random reads and writes of 128 KiB (two Twrite/Tread each) over two
#      sessions, --verify, while diod is SIGKILLed and started again
#      twice: exit 0, both sessions re-established each time, I/Os
#      resubmitted, none completed twice, no I/O error, verify clean;
#   2. sequential --verify writes of 4 jobs, one in flight each, with
#      --alloc malloc across a restart, then the files on diod's disk
#      against the pattern (scripts/check-pattern.py --sequential);
#   3. getattr round trips across a restart (the Tgetattr resend path);
#   4. diod down longer than --reconnect-timeout 2s: exit 1 and a
#      message saying the session was not re-established;
#   5. --reconnect-timeout 0 (recovery off): a kill fails the run;
#   6. --libxprt-mode caller (each job's thread drives a session of its
#      own and re-establishes it itself): 1. again, and diod down longer
#      than --reconnect-timeout 2s ends the run with exit 1 and the
#      message within a few seconds of the kill.
# diod is running again whatever happens.  Each check prints "ok - ..."
# or "FAIL - ..."; the exit status is the number of failures (77: no
# diod).  About 60 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/p9-bench
srv=${XPRT_SERVERS_SH:-$top/tests/servers/servers.sh}
if [[ -z ${XPRT_DIOD_PORT:-} || -z ${XPRT_SERVERS_RUN_DIR:-} ]]; then
	echo "SKIP(servers): no diod in servers.env (run through scripts/run-integration.sh)"
	exit 77
fi
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/p9-reconnect-test.XXXXXX")
sub=p9-reconnect-test.$$
dir=$XPRT_DIOD_EXPORT_DIR/$sub
mkdir -p "$dir"
cleanup() {
	diod_start
	rm -rf "$work" "${dir:?}"
}
trap cleanup EXIT
fails=0
P9=(--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME"
	--directory "$sub" --eta never --output-format json)

# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

diod_kill() { "$srv" kill "$XPRT_SERVERS_RUN_DIR" diod >>"$work/servers.log" 2>&1; }
diod_start() {
	"$srv" status "$XPRT_SERVERS_RUN_DIR" 2>/dev/null | grep -q 'diod.*running' ||
		"$srv" start "$XPRT_SERVERS_RUN_DIR" diod >>"$work/servers.log" 2>&1
}

# wait_session PID: until a p9-bench (PID is the timeout(1) around it)
# has a connection to diod established (at most 30 s, or until PID ends): on a loaded machine the bench's start
# can take longer than the pause before a kill, and a kill before the
# session exists tests nothing
wait_session() {
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		ss -Htnp state established "( dport = :$XPRT_DIOD_PORT )" 2>/dev/null |
			grep -q '"p9-bench"' && return 0
		sleep 0.1
	done
}

# bounce PID DOWN [DOWN...]: for each DOWN, once PID's session is up let
# the run go on for 1.5 s, then kill diod and start it again DOWN seconds
# later
bounce() {
	local d pid=$1
	shift
	for d in "$@"; do
		wait_session "$pid"
		sleep 1.5
		diod_kill
		sleep "$d"
		diod_start || bad "diod did not start again"
	done
}

# run NAME WANT_RC WANT_MSG BOUNCE ARGS...: run p9-bench (JSON report in
# $work/out) while `bounce BOUNCE` runs (BOUNCE: its words, quoted as
# one), check its exit status and that stderr has WANT_MSG
run() {
	local name=$1 want=$2 msg=$3 downs=$4 rc
	shift 4
	timeout 120 "$bin" "${P9[@]}" "$@" >"$work/out" 2>"$work/err" &
	local pid=$!
	# shellcheck disable=SC2086 # BOUNCE is a list of words
	bounce "$pid" $downs
	wait "$pid"
	rc=$?
	diod_start
	check_exit "$name" "$want" "$rc" "$msg" "$work/err"
}

# expect NAME EXPR: the Python expression over the report d is true
expect() {
	local out
	out=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
b = d["xprt"]["backend_stats"]
print(eval(sys.argv[2]), "(reconnects %d, resubmitted %d, completed_twice %d)"
      % (b["reconnects"], b["resubmitted"], b["completed_twice"]))' \
		"$work/out" "$2" 2>&1)
	if [[ $out == True* ]]; then
		ok "$1 ${out#True }"
	else
		bad "$1: $2 is not true: $out"
	fi
}

run "randrw 128k, 2 sessions, --verify, diod killed twice" 0 "" "1 0.5" \
	--name r --rw randrw --bs 128k --size 8m --iodepth 8 --numjobs 2 \
	--nconnect 2 --time_based --runtime 6 --verify &&
	expect "randrw: both sessions back after each kill, I/Os resent" \
		'b["reconnects"] >= 4 and b["resubmitted"] > 0 and b["completed_twice"] == 0 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0 and d["xprt"]["status"]["ok"]'

# one I/O in flight per job: the staircase check-pattern.py expects
run "sequential writes, 4 jobs, --alloc malloc, --verify, diod killed" 0 "" \
	"1" --name w --rw write --bs 64k --size 4m --iodepth 1 --numjobs 4 \
	--alloc malloc --time_based --runtime 4 --verify &&
	expect "write: session back, I/Os resent" \
		'b["reconnects"] >= 1 and b["resubmitted"] > 0 and b["completed_twice"] == 0'
if out=$("$top/scripts/check-pattern.py" "$dir" $((4 << 20)) --sequential 65536 \
	w.0.0 w.1.0 w.2.0 w.3.0); then
	ok "sequential writes on disk: $(tr '\n' ';' <<<"$out")"
else
	bad "sequential writes on disk: $(grep -v ': ok: ' <<<"$out" | head -2)"
fi

run "getattr, iodepth 4, diod killed" 0 "" "1" \
	--name r --rw getattr --iodepth 4 --numjobs 2 --time_based --runtime 4 &&
	expect "getattr: session back, calls resent" \
		'b["reconnects"] >= 1 and b["resubmitted"] > 0 and d["xprt"]["aggregate"]["xprt"]["other"]["total_ios"] > 0'

run "diod down 5 s, --reconnect-timeout 2s" 1 "not re-established" "5" \
	--name r --rw randread --bs 4k --size 1m --iodepth 4 --time_based --runtime 10 \
	--reconnect-timeout 2s

run "--reconnect-timeout 0, diod killed" 1 "" "0.5" \
	--name r --rw randread --bs 4k --size 1m --iodepth 4 --time_based --runtime 4 \
	--reconnect-timeout 0 &&
	expect "no recovery tried" 'b["reconnects"] == 0 and b["resubmitted"] == 0'

# ---------------------------------------------- 6. --libxprt-mode caller
run "caller mode: randrw 128k, --verify, diod killed twice" 0 "" "1 0.5" \
	--name c --rw randrw --bs 128k --size 8m --iodepth 8 --numjobs 2 \
	--time_based --runtime 6 --verify --libxprt-mode caller &&
	expect "caller mode: each job's own session back after each kill, I/Os resent" \
		'b["sessions"] == 3 and b["reconnects"] >= 4 and b["resubmitted"] > 0 and b["completed_twice"] == 0 and d["xprt"]["aggregate"]["xprt"]["io_errors"] == 0 and d["xprt"]["status"]["ok"]'

# diod killed and left down: the jobs' threads give up after 2 s of
# trying; the run's end within 10 s of the kill (2 s, and room for a
# loaded machine) shows that nothing waits past the bound
timeout 120 "$bin" "${P9[@]}" --name c --rw randread --bs 4k --size 1m \
	--iodepth 4 --numjobs 2 --time_based --runtime 30 \
	--reconnect-timeout 2s --libxprt-mode caller >"$work/out" 2>"$work/err" &
pid=$!
wait_session "$pid"
sleep 1.5
diod_kill
t0=$(date +%s%N)
while kill -0 "$pid" 2>/dev/null && (($(date +%s%N) - t0 < 60000000000)); do
	sleep 0.1
done
dt=$((($(date +%s%N) - t0) / 1000000))
wait "$pid"
rc=$?
diod_start
if check_exit "caller mode: diod down, --reconnect-timeout 2s" 1 $rc \
	"not re-established" "$work/err"; then
	((dt <= 10000)) &&
		ok "caller mode: the run ended $dt ms after the kill" ||
		bad "caller mode: the run ended $dt ms after the kill (want <= 10 s)"
fi

echo "p9 reconnect: $fails failure(s)"
exit "$fails"
