#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# A run that stops making progress fails instead of hanging: the server
# is stopped (SIGSTOP: its sockets stay open, nothing answers) in the
# middle of a soft run with --timeo 5 --retrans 1.
#   nfs3-bench against ganesha: each call is sent twice (0.5 s, then 1 s)
#     and fails -ETIMEDOUT: exit 1 within 4 s of the stop (1.5 s seen),
#     "not responding, still trying" said once, then what failed;
#   p9-bench against diod: a call is flushed and fails after 0.5 s x 2
#     (9P never sends a call twice, so nothing is "still trying"): exit 1
#     within 6 s (1 s for the call, 1 s for its Tflush, 2 s for the
#     Tclunk of the job's file and its Tflush: 4 s seen), saying "did not
#     answer a call within 1.0 s" once.
# And first --hard (calls never time out): stopped for 3 s, then continued, in
# a 7 s run: "not responding, still trying" said once while it is
# stopped, "OK" once when it answers again, and the run ends by itself,
# exit status 0 (nfs3-bench: the retransmission timer says it; p9-bench:
# a watch on calls that wait without a reply for --timeo, since 9P
# calls are never sent again).
# p9-bench runs both cases again with --libxprt-mode caller, where the
# job's thread drives its own session, its timers and the watch.
# The server is continued afterwards.  Run by scripts/run-integration.sh
# (servers.env exported); the clients run as uid 65534 when we are root
# (tests/integration/unpriv-lib.sh).  About 25 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${XPRT_BUILD_DIR:-$top/build/plain}
: "${XPRT_NFS_HOST:?run through scripts/run-integration.sh (no servers.env)}"
# shellcheck source=tests/integration/unpriv-lib.sh
. "$top/tests/integration/unpriv-lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-stalled.XXXXXX")
chmod 755 "$work"
sub=stalled-test.$$
stopped=""
cleanup() {
	[[ -n $stopped ]] && kill -CONT "$stopped" 2>/dev/null
	rm -rf "$work"
	rm -rf "${XPRT_NFS_EXPORT_DIR:?}/$sub" "${XPRT_DIOD_EXPORT_DIR:?}/$sub"
}
trap cleanup EXIT
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# stall NAME PIDFILE MAX_S SAYS BENCH ARGS...: the bench runs for 1.5 s,
# then its server is stopped; it must end within MAX_S with exit status 1
# and SAYS (a fixed string) once on stderr
stall() {
	local name=$1 pidf=$2 maxt=$3 says=$4 spid pid rc t0 t i
	shift 4
	spid=$(cat "$pidf" 2>/dev/null)
	[[ -n $spid ]] || { bad "$name: no server pid in $pidf"; return; }
	(cd "$work" && exec "${AS[@]}" "$@") >"$work/out" 2>"$work/err" &
	pid=$!
	sleep 1.5
	kill -0 "$pid" 2>/dev/null || {
		bad "$name: ended before the server was stopped"
		sed 's/^/    | /' "$work/err" "$work/out" | tail -8
		return
	}
	kill -STOP "$spid" && stopped=$spid
	t0=$(date +%s.%N)
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		bad "$name: still running 30 s after its server stopped"
	fi
	wait "$pid"
	rc=$?
	kill -CONT "$spid" && stopped=""
	echo "# $name: exit $rc, ${t} s after the server stopped"
	sed 's/^/    | /' "$work/err" | grep -v '^    | *$' | tail -6
	check_exit "$name" 1 "$rc" "" "$work/err"
	(($(echo "$t < $maxt" | bc))) && ok "$name: ended ${t} s after the stop" ||
		bad "$name: ended ${t} s after the stop (bound $maxt s)"
	[[ $(grep -cF -- "$says" "$work/err") == 1 ]] &&
		ok "$name: '$says' said once" ||
		bad "$name: '$says' said $(grep -cF -- "$says" "$work/err") times"
}

# hard NAME PIDFILE BENCH ARGS...: a 7 s --hard run; its server stopped
# from 1.5 s to 4.5 s
hard() {
	local name=$1 pidf=$2 spid pid rc i
	shift 2
	spid=$(cat "$pidf" 2>/dev/null)
	[[ -n $spid ]] || { bad "$name: no server pid in $pidf"; return; }
	(cd "$work" && exec timeout 60 "${AS[@]}" "$@") >"$work/out" 2>"$work/err" &
	pid=$!
	sleep 1.5
	kill -STOP "$spid" && stopped=$spid
	sleep 3
	kill -0 "$pid" 2>/dev/null && ok "$name: still running, server stopped" ||
		bad "$name: ended while its server was stopped"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "$name: 'not responding' said once while stopped" ||
		bad "$name: 'not responding' said $(grep -c "not responding" "$work/err") times while stopped"
	kill -CONT "$spid" && stopped=""
	wait "$pid"
	rc=$?
	echo "# $name: exit $rc"
	sed 's/^/    | /' "$work/err" | grep -v '^    | *$' | tail -4
	check_exit "$name" 0 "$rc" "" "$work/err"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "$name: 'not responding' said once in all" ||
		bad "$name: 'not responding' said $(grep -c "not responding" "$work/err") times in all"
	[[ $(grep -c " OK\$" "$work/err") == 1 ]] && ok "$name: 'OK' said once" ||
		bad "$name: 'OK' said $(grep -c " OK\$" "$work/err") times"
}

mkdir -p "$XPRT_NFS_EXPORT_DIR/$sub" "$XPRT_DIOD_EXPORT_DIR/$sub"
unpriv_own "$XPRT_NFS_EXPORT_DIR/$sub" "$XPRT_DIOD_EXPORT_DIR/$sub"
hard "nfs3-bench --hard, ganesha stopped 3 s" "$XPRT_GANESHA_PIDFILE" \
	"$b/bench/nfs3-bench" --server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" \
	--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT" \
	--directory "$sub" --rw randread --bs 4k --size 1m --iodepth 4 \
	--runtime 7s --time_based --eta never --timeo 5 --hard
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	hard "p9-bench --hard, diod stopped 3 s" "$XPRT_DIOD_PIDFILE" \
		"$b/bench/p9-bench" --server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" \
		--aname "$XPRT_DIOD_ANAME" --directory "$sub" --rw randread \
		--bs 4k --size 1m --iodepth 4 --runtime 7s --time_based \
		--eta never --timeo 5 --hard
	hard "p9-bench --hard, caller mode, diod stopped 3 s" \
		"$XPRT_DIOD_PIDFILE" \
		"$b/bench/p9-bench" --server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" \
		--aname "$XPRT_DIOD_ANAME" --directory "$sub" --rw randread \
		--bs 4k --size 1m --iodepth 4 --runtime 7s --time_based \
		--eta never --timeo 5 --hard --libxprt-mode caller
fi

stall "nfs3-bench, ganesha stopped" "$XPRT_GANESHA_PIDFILE" 4 \
	"not responding, still trying" \
	"$b/bench/nfs3-bench" --server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" \
	--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT" \
	--directory "$sub" --rw randread --bs 4k --size 1m --iodepth 4 \
	--runtime 60s --time_based --eta never --timeo 5 --retrans 1
# diod 1.0.24 may not survive the soft case: after SIGCONT it was gone,
# in some runs, as it worked through the backlog of a closed connection
# (Treads, their Tflushes, a Tclunk): its own fault, nothing a client
# sends may end a server.  What comes after a soft case needs it:
# started again, on the same port.
diod_again() {
	local spid
	spid=$(cat "$XPRT_DIOD_PIDFILE" 2>/dev/null)
	if [[ -n $spid ]] && kill -0 "$spid" 2>/dev/null; then
		echo "# diod survived the stall"
	else
		echo "# diod died after the stall (its bug): started again"
	fi
	"$XPRT_SERVERS_SH" restart "$XPRT_SERVERS_RUN_DIR" diod >/dev/null 2>&1 ||
		bad "diod did not start again"
}

if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	for mode in threaded caller; do
		stall "p9-bench, $mode mode, diod stopped" "$XPRT_DIOD_PIDFILE" 6 \
			"did not answer a call within 1.0 s" \
			"$b/bench/p9-bench" --server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" \
			--aname "$XPRT_DIOD_ANAME" --directory "$sub" --rw randread \
			--bs 4k --size 1m --iodepth 4 --runtime 60s --time_based \
			--eta never --timeo 5 --retrans 1 --libxprt-mode "$mode"
		diod_again
	done
else
	bad "no diod in servers.env"
fi
exit "$fails"
