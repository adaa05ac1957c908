#!/usr/bin/env bash
# Run integration tests against real servers started by the project's own
# harness (tests/servers): ganesha (NFSv3, MOUNT, 9P), diod (9P), rpcbind.
#
# usage: run-integration.sh BUILDDIR TEST...
#   Each TEST is a binary or a script; it finds the servers through the
#   XPRT_* variables of RUN_DIR/servers.env (exported here) and may use
#   XPRT_SERVERS_SH to stop/start them.  Servers are stopped on exit,
#   whatever happens.
#
# Run as root, the tests that are programs (the library's integration
# binaries: clients and nothing else) run as uid 65534 through setpriv
# (tests/integration/unpriv-lib.sh; XPRT_UNPRIV=0 keeps them root): the
# library must never need privilege.  The servers stay root;
# the export directories belong to that user, as a user's own export
# would (the tests check the server's files on disk and make some there),
# and such a test stops or restarts a server through
# tests/servers/servers-ctl.sh (XPRT_SERVERS_SH points at it), which root
# serves from here.  The scripts run as root and run their tools through
# the same prefix themselves.
set -uo pipefail
o=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
run=${XPRT_RUN_DIR:-$top/$o/servers-run}
logdir=$o/test-logs
mkdir -p "$logdir"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/tests/tsan.supp ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"

ctl_pid="" ctl=""
cleanup() { # the servers, and the control server (below) with its answers
	[[ -n $ctl_pid ]] && kill "$ctl_pid" 2>/dev/null && rm -rf "$ctl"
	"$top/tests/servers/servers.sh" down "$run" >/dev/null 2>&1 || true
}
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

# shellcheck source=tests/integration/unpriv-lib.sh
. "$top/tests/integration/unpriv-lib.sh"
if ((${#AS[@]})); then
	ctl=$run/ctl
	"$top/tests/servers/servers-ctl.sh" serve "$ctl" "$run" "$UNPRIV_UID" \
		>"$logdir/servers-ctl.log" 2>&1 &
	ctl_pid=$!
	for d in "${XPRT_NFS_EXPORT_DIR:-}" "${XPRT_DIOD_EXPORT_DIR:-}"; do
		[[ -n $d ]] && unpriv_own "$d"
	done
fi

fail=0 n=0 skipped=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	start=$(date +%s.%N)
	rc=0 who=""
	case $t in
	*.sh | *.py) timeout 900 "$t" >"$logdir/$name.log" 2>&1 || rc=$? ;;
	*)
		if ((${#AS[@]})) && as_user test -x "$t"; then
			who=", uid $UNPRIV_UID"
			timeout 900 "${AS[@]}" env \
				XPRT_SERVERS_SH="$top/tests/servers/servers-ctl.sh" \
				XPRT_SERVERS_CTL="$ctl" "$t" >"$logdir/$name.log" 2>&1 ||
				rc=$?
		else
			# a build tree the user cannot reach: said, not hidden
			((${#AS[@]})) && who=", root: uid $UNPRIV_UID cannot run it"
			timeout 900 "$t" >"$logdir/$name.log" 2>&1 || rc=$?
		fi
		;;
	esac
	if ((rc == 0)); then
		res=ok
	elif ((rc == 77)); then
		# not applicable to this build (said in its log); not a pass
		res=skip skipped=$((skipped + 1))
	else
		res=FAIL fail=$((fail + 1))
	fi
	printf '%-4s %-28s %6ss  (%s, integration%s)\n' "$res" "$name" \
		"$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" \
		"${o#build/}" "$who"
	[[ $res == FAIL ]] && sed 's/^/    | /' "$logdir/$name.log" | tail -60
done
echo "integration ($o): $((n - fail - skipped))/$n passed, $skipped skipped"
((fail == 0))
