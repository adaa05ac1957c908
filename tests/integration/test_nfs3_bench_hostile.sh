#!/usr/bin/env bash
# nfs3-bench against tests/hostile/rpc_hostile.py at its first step (MNT),
# soft, --timeo 5 --retrans 1: each misbehaving server ends the run with
# exit status 1 within its bound, a message naming MNT, the server and
# what was seen, "not responding" said once, and few connections:
#   reset_on_accept, garbage, endless_fragments: the connection is lost
#     each time, 3 connections at most, within 2 s;
#   unknown_xid_forever, no_read: no reply, 0.5 s + 1 s, one connection,
#     within 4 s.
# Then the examples that are tools say the same through the library's log
# hook: rpcping -c 1 against reset_on_accept exits 1 within 2 s, saying
# "rpcping: server 127.0.0.1:P not responding, still trying" once.
# Needs no real server; about 7 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/nfs3-bench
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nfs3-bench-hostile.XXXXXX")
srv=
cleanup() {
	[[ -n $srv ]] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# case SCENARIO MSG MAX_CONNS MAX_SECS
case_() {
	local sc=$1 msg=$2 maxc=$3 maxt=$4 rc t n
	: >"$work/log"
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/rpc_hostile.py" --scenario "$sc" \
		--log "$work/log"
	local t0
	t0=$(date +%s.%N)
	timeout 60 "$bin" --server "127.0.0.1:$port" --mount-port "$port" \
		--export=/x --rw null --runtime 5s --eta never --timeo 5 \
		--retrans 1 >"$work/out" 2>"$work/err"
	rc=$?
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	n=$(grep -c '^CONN ' "$work/log")
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
	echo "# $sc: exit $rc after ${t} s, $n connections"
	check_exit "$sc" 1 "$rc" "$msg" "$work/err" || return
	grep -qF "MNT /x on 127.0.0.1:$port failed" "$work/err" &&
		ok "$sc: names MNT and the server" ||
		bad "$sc: no 'MNT /x on 127.0.0.1:$port failed'"
	(($(echo "$t < $maxt" | bc))) && ok "$sc: within $maxt s" ||
		bad "$sc: took ${t} s (bound $maxt)"
	((n >= 1 && n <= maxc)) && ok "$sc: $n connections" ||
		bad "$sc: $n connections (at most $maxc)"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "$sc: 'not responding' said once" ||
		bad "$sc: 'not responding' said $(grep -c "not responding" "$work/err") times"
}

case_ reset_on_accept "closed the connection each time" 3 2
case_ garbage "cannot be a reply" 3 2
case_ endless_fragments "fragment chain past the size limit" 3 2
case_ unknown_xid_forever "for calls we did not make" 1 4
case_ no_read "no reply in" 1 4

# rpcping: the library's messages reach its stderr (its log hook)
ping=${XPRT_BUILD_DIR:-$top/build/plain}/examples/rpcping
if [[ -x $ping ]]; then
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/rpc_hostile.py" --scenario reset_on_accept \
		--log "$work/log"
	t0=$(date +%s.%N)
	timeout 60 "$ping" -p "$port" -c 1 127.0.0.1 100003 3 >"$work/out" \
		2>"$work/err"
	rc=$?
	t=$(echo "$(date +%s.%N) - $t0" | bc)
	echo "# rpcping reset_on_accept: exit $rc after ${t} s"
	check_exit "rpcping reset_on_accept" 1 "$rc" \
		"rpcping: server 127.0.0.1:$port not responding, still trying" \
		"$work/err"
	[[ $(grep -c "not responding, still trying" "$work/err") == 1 ]] &&
		ok "rpcping: 'not responding' said once" ||
		bad "rpcping: 'not responding' said $(grep -c "not responding" "$work/err") times"
	(($(echo "$t < 2" | bc))) && ok "rpcping: within 2 s" ||
		bad "rpcping: took ${t} s (bound 2)"
else
	bad "$ping not built (make examples)"
fi
exit "$fails"
