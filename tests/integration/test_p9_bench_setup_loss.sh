#!/usr/bin/env bash
# p9-bench against tests/hostile/p9_hostile.py drop_target: a server that
# answers Tversion and Tattach on every new session and drops it at its
# first call (a message whose size field is 5, or a reset).  Every retry
# loop of p9-bench's set-up must end within --reconnect-timeout of the
# first loss, with one line naming what the server did:
#   1. job_open() (Twalk), --reconnect-timeout 2s: exit 1 within 5 s;
#   2. the same with a reset instead of the short message;
#   3. stat() (--size 50%, Twalk), reset: exit 1 within 5 s;
#   4. job_sync() (--end_fsync 1, Tfsync dropped): exit 1 within 5 s;
#   5. job_open() with the default --reconnect-timeout (30 s): exit 1
#      within 30 s of the first loss, after at least 20 s;
#   6. job_open() and job_sync() with --libxprt-mode caller, where the
#      lost session is the job's own (set-up's served stat() only): as 1.
#      and 4.;
#   7. --hard: still trying after 8 s, exit 1 or 143 on SIGTERM, "not responding" and "still trying
#      (--hard)" said once each, and the run ends within 2 s of SIGTERM.
# Needs no real server; about 55 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/p9-bench
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"
scratch_dir p9-bench-setup-loss

# start_hostile ARGS...: drop_target with ARGS; its port in $port
start_hostile() {
	stop_server
	: >"$work/log"
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/p9_hostile.py" --scenario drop_target \
		--port 0 --log "$work/log" "$@"
}

# the monotonic time of the first connection (the first loss follows it
# within a few milliseconds)
first_conn() { awk '/^CONN/ {sub("t=", "", $3); print $3; exit}' "$work/log"; }
now() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }

# soft NAME MAXSECS WANT_MSG BENCH_ARGS...: the run ends with exit 1 and
# WANT_MSG on stderr within MAXSECS of the first loss
soft() {
	local name=$1 max=$2 want=$3 rc t
	shift 3
	timeout 120 "$bin" --server "127.0.0.1:$port" --aname /hostile \
		--msize 8192 --bs 1 --filename f --eta never --runtime 60s \
		"$@" >"$work/out" 2>"$work/err"
	rc=$?
	t=$(echo "$(now) - $(first_conn)" | bc)
	echo "# $name: exit $rc ${t} s after the first loss," \
		"$(grep -c '^CONN' "$work/log") sessions"
	grep -F "dropped each of" "$work/err" | sed 's/^/#   /'
	check_exit "$name" 1 "$rc" "$want" "$work/err"
	(($(echo "$t < $max" | bc))) && ok "$name: ended within $max s" ||
		bad "$name: ended ${t} s after the first loss, want < $max"
	[[ $(grep -c "dropped each of" "$work/err") == 1 ]] &&
		ok "$name: said once" ||
		bad "$name: said $(grep -c "dropped each of" "$work/err") times"
}

start_hostile
soft "job_open, short message" 5 \
	"the server dropped each of" --rw read --size 1 \
	--reconnect-timeout 2s
grep -qE "dropped each of [2-9][0-9]* new sessions at its first Twalk" \
	"$work/err" && ok "job_open: names Twalk and the count" ||
	bad "job_open: $(grep -F 'dropped each' "$work/err")"

start_hostile --reset
soft "job_open, reset" 5 "sessions at its first Twalk" --rw read \
	--size 1 --reconnect-timeout 2s
start_hostile --reset
soft "stat, reset" 5 "sessions at its first Twalk" --rw read \
	--size 50% --reconnect-timeout 2s

start_hostile --target Tfsync
soft "job_sync" 5 "sessions at its first Tfsync" --rw write --size 1 \
	--end_fsync 1 --reconnect-timeout 2s

start_hostile
soft "job_open, caller mode" 5 "sessions at its first Twalk" --rw read \
	--size 1 --reconnect-timeout 2s --libxprt-mode caller
start_hostile --target Tfsync
soft "job_sync, caller mode" 5 "sessions at its first Tfsync" --rw write \
	--size 1 --end_fsync 1 --reconnect-timeout 2s --libxprt-mode caller

start_hostile
soft "job_open, default --reconnect-timeout" 30 \
	"sessions at its first Twalk" --rw read --size 1
(($(echo "$(now) - $(first_conn) >= 20" | bc))) &&
	ok "default: tried for at least 20 s" ||
	bad "default: gave up before 20 s"

# 7. --hard
start_hostile
"$bin" --server "127.0.0.1:$port" --aname /hostile --msize 8192 --bs 1 \
	--filename f --eta never --runtime 60s --rw read --size 1 --hard \
	>"$work/out" 2>"$work/err" &
pid=$!
sleep 8
kill -0 "$pid" 2>/dev/null && ok "hard: still trying after 8 s" ||
	bad "hard: ended before 8 s: $(tail -2 "$work/err")"
t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
t=$(echo "$(date +%s.%N) - $t0" | bc)
echo "# hard: $(grep -c '^CONN' "$work/log") sessions in 8 s; ended ${t} s" \
	"after SIGTERM (exit $rc)"
# set-up runs before the bench catches signals: SIGTERM's own 143, or 1
# once caught (a sanitizer's exit status is neither)
((rc == 1 || rc == 143)) && ok "hard: exit $rc after SIGTERM" ||
	bad "hard: exit $rc after SIGTERM, want 1 or 143"
(($(echo "$t < 2" | bc))) && ok "hard: ended ${t} s after SIGTERM" ||
	bad "hard: ended ${t} s after SIGTERM"
for say in "not responding, still trying" \
	"new sessions at its first Twalk; still trying (--hard)"; do
	n=$(grep -cF "$say" "$work/err")
	((n == 1)) && ok "hard: '$say' said once" ||
		bad "hard: '$say' said $n times"
done
exit "$fails"
