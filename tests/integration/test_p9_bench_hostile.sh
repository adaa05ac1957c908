#!/usr/bin/env bash
# p9-bench against tests/hostile/p9_hostile.py close_on_read: a server that
# answers Tversion, Tattach, Twalk... and drops the connection at every
# Tread.  Each session is lost early (before an I/O was answered), so
# p9-bench waits before the next one, from 100 ms doubling to 30 s:
#   1. soft (the default): the read fails after 3 early losses, exit
#      status 1, within 3 s, with a message saying the server closed the
#      session each time, "not responding" said once, at most 6
#      connections;
#   2. --hard: still trying after 10 s, then SIGTERM; at most 10
#      connections in those 10 s, "not responding" said once, and the
#      run ends within 2 s of the signal (the backoff is interruptible).
#   3. --hard against reset_on_accept (set-up never gets through): tried
#      again as a hard mount is, from 100 ms doubling: still trying after
#      5 s, at most 7 connections, "not responding" said once, and the
#      run ends within 2 s of SIGTERM, killed by it (exit status 143: the
#      run's own handler, exit 1 as in 2, is installed once set-up is
#      done; a sanitizer's report, 66, or an abort, 134, is not that).
#   4. --libxprt-mode caller, where the job's own thread re-establishes
#      its session: 1. again (one connection more: set-up's session),
#      and 2. for 5 s.
# Needs no real server (runs from scripts/run-integration.sh with the
# others); about 30 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/p9-bench
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/p9-bench-hostile.XXXXXX")
srv=
cleanup() {
	[[ -n $srv ]] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# start the hostile server with scenario $1; its port in $port.  Up to 30 s
# for Python to start: on a loaded 2-core machine 5 s was once too few.
start_hostile() {
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/p9_hostile.py" --scenario "$1" --port 0 \
		--log "$work/log"
}

start_hostile close_on_read
ARGS=(--server "127.0.0.1:$port" --aname /hostile --msize 8192 --rw read
	--bs 1 --size 1 --filename f --eta never --runtime 60s)

conns() { grep -c '^CONN ' "$work/log"; }

# soft WHAT MAXCONNS ARGS...: 1. (WHAT names it in the checks)
soft() {
	local what=$1 max=$2 rc t n
	shift 2
	: >"$work/log"
	t0=$(date +%s.%N)
	timeout 30 "$bin" "${ARGS[@]}" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	n=$(conns)
	echo "# $what: exit $rc after ${t} s, $n connections"
	check_exit "$what: fails" 1 "$rc" "closed the session each time" "$work/err"
	(($(echo "$t < 3" | bc))) && ok "$what: within 3 s (${t} s)" ||
		bad "$what: took ${t} s"
	((n <= max)) && ok "$what: $n connections" || bad "$what: $n connections"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "$what: 'not responding' said once" ||
		bad "$what: 'not responding' said $(grep -c "not responding" "$work/err") times"
}

# hard WHAT SECS MINCONNS MAXCONNS WANT_RC ARGS...: 2., stopped by
# SIGTERM after SECS, its exit status WANT_RC
hard() {
	local what=$1 secs=$2 min=$3 max=$4 want=$5 pid rc t n
	shift 5
	: >"$work/log"
	"$bin" "${ARGS[@]}" --hard "$@" >"$work/out" 2>"$work/err" &
	pid=$!
	sleep "$secs"
	if kill -0 "$pid" 2>/dev/null; then
		ok "$what: still trying after $secs s"
	else
		bad "$what: ended before $secs s: $(tail -2 "$work/err")"
	fi
	n=$(conns)
	t0=$(date +%s.%N)
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	echo "# $what: $n connections in $secs s; ended ${t} s after SIGTERM (exit $rc)"
	awk '/^CONN/ {split($3, a, "="); if (!t0) t0 = a[2];
		printf "#   connection at %.2f s\n", a[2] - t0}' "$work/log"
	((n <= max && n >= min)) && ok "$what: $n connections in $secs s" ||
		bad "$what: $n connections in $secs s"
	(($(echo "$t < 2" | bc))) && ok "$what: ended ${t} s after SIGTERM" ||
		bad "$what: ended ${t} s after SIGTERM"
	# the sanitizers' exit statuses (66 for TSan) are never WANT_RC
	((rc == want)) && ok "$what: exit $rc after SIGTERM" ||
		bad "$what: exit $rc after SIGTERM, want $want: $(grep -m1 -E 'WARNING|ERROR' "$work/err")"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "$what: 'not responding' said once" ||
		bad "$what: 'not responding' said $(grep -c "not responding" "$work/err") times"
}

# 1. soft
soft soft 6
# 2. hard, stopped by SIGTERM after 10 s: the run's handler, exit 1
hard hard 10 4 10 1
# 4. the same in caller mode
soft "caller mode, soft" 7 --libxprt-mode caller
hard "caller mode, hard" 5 3 9 1 --libxprt-mode caller

# 3. hard, and set-up never gets through: killed by SIGTERM (143), the
# run's own handler is not installed yet
kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
start_hostile reset_on_accept
ARGS[1]=127.0.0.1:$port
hard "hard set-up" 5 3 7 143
exit "$fails"
