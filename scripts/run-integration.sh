#!/usr/bin/env bash
# Run integration tests against real servers started by the project's own
# harness (tests/servers): ganesha (NFSv3, MOUNT, 9P), diod (9P), rpcbind.
#
# usage: run-integration.sh BUILDDIR TEST...
#   Each TEST is a binary or a script; it finds the servers through the
#   XPRT_* variables of RUN_DIR/servers.env (exported here) and may use
#   XPRT_SERVERS_SH to stop/start them.  Servers are stopped on exit,
#   whatever happens.
set -uo pipefail
o=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
run=${XPRT_RUN_DIR:-$top/$o/servers-run}
logdir=$o/test-logs
mkdir -p "$logdir"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/tests/tsan.supp ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"

cleanup() { "$top/tests/servers/servers.sh" down "$run" >/dev/null 2>&1 || true; }
trap cleanup EXIT
if ! "$top/tests/servers/servers.sh" up "$run" >"$logdir/servers-up.log" 2>&1; then
	echo "integration: could not start the servers:" >&2
	tail -30 "$logdir/servers-up.log" >&2
	exit 1
fi
set -a
. "$run/servers.env"
set +a
export XPRT_SERVERS_SH="$top/tests/servers/servers.sh"
export XPRT_BUILD_DIR="$top/$o"

fail=0 n=0 skipped=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	start=$(date +%s.%N)
	rc=0
	timeout 900 "$t" >"$logdir/$name.log" 2>&1 || rc=$?
	if ((rc == 0)); then
		res=ok
	elif ((rc == 77)); then
		# not applicable to this build (said in its log); not a pass
		res=skip skipped=$((skipped + 1))
	else
		res=FAIL fail=$((fail + 1))
	fi
	printf '%-4s %-28s %6ss  (%s, integration)\n' "$res" "$name" \
		"$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" \
		"${o#build/}"
	[[ $res == FAIL ]] && sed 's/^/    | /' "$logdir/$name.log" | tail -60
done
echo "integration ($o): $((n - fail - skipped))/$n passed, $skipped skipped"
((fail == 0))
