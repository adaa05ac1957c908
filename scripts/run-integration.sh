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
# the same prefix themselves.  Root without setpriv, or XPRT_UNPRIV=0,
# runs them as root: said, and the run fails (a skip of the unprivileged
# check that no machine is allowed).  A build tree the user cannot reach
# (a 0700 home) is no reason either: such a binary runs from a copy in a
# directory the user can reach.
#
# A test that skips (exit 77, or cmocka's skip()) says why in a
# "SKIP(KEY): ..." line; each skip is printed with it, and one that this
# machine is not allowed (scripts/skips.sh) fails the run.  A test that
# does not apply to a build at all is listed in not_for_build below and
# not run ("n/a", with the reason).
set -uo pipefail
o=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)

# A tree the unprivileged user cannot reach (a clone in a 0700 home, as
# root's /root is): the servers' exports, the programs the clients run
# and the control FIFO would all be out of its reach.  The run then goes
# on under a path it can reach: the tree bound there in a mount namespace
# of the run's own (no one outside sees the mount; the path is removed
# at the end), every argument mapped onto it.
if [[ -z ${XPRT_TREE_ALIAS:-} ]] && ((EUID == 0)) &&
	[[ ${XPRT_UNPRIV:-1} != 0 ]] && command -v setpriv >/dev/null &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$top"; then
	alias=$(mktemp -d "${TMPDIR:-/tmp}/xprt-tree.XXXXXX") &&
		chmod 0755 "$alias" || exit 1
	# the build directory relative to the tree (as make passes it), the
	# tests onto the alias
	args=("$(realpath -m --relative-to="$top" "$o")")
	for a in "$@"; do
		a=$(realpath -m "$a")
		[[ $a == "$top"/* ]] && a=$alias/${a#"$top"/}
		args+=("$a")
	done
	echo "integration: uid 65534 cannot reach $top: the run goes on in" \
		"$alias (the tree bound there, in a mount namespace of its own)"
	rc=0
	unshare -m --propagation private bash -c \
		'mount --bind "$1" "$2" && cd "$2" && shift 2 && exec "$@"' \
		sh "$top" "$alias" env XPRT_TREE_ALIAS="$alias" \
		"$alias/scripts/run-integration.sh" "${args[@]}" || rc=$?
	rmdir "$alias"
	exit "$rc"
fi
# shellcheck source=scripts/skips.sh
. "$top/scripts/skips.sh"

# not_for_build NAME: why test NAME does not apply to this build, if so
not_for_build() {
	case ${o##*/}:$1 in
	tsan:test_bench_mpi.sh)
		echo "the TSan build links no MPI (Open MPI's own threads are not instrumented)"
		;;
	*) return 1 ;;
	esac
}
run=${XPRT_RUN_DIR:-$top/$o/servers-run}
logdir=$o/test-logs
mkdir -p "$logdir"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$top/tests/tsan.supp ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=1 ${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 ${UBSAN_OPTIONS:-}"

ctl_pid="" ctl="" ubin=""
cleanup() { # the servers, and the control server (below) with its answers
	[[ -n $ctl_pid ]] && kill "$ctl_pid" 2>/dev/null && rm -rf "$ctl"
	[[ -n $ubin ]] && rm -rf "$ubin"
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
unpriv_skip=""
if ((EUID == 0 && ${#AS[@]} == 0)); then
	if [[ ${XPRT_UNPRIV:-1} == 0 ]]; then
		unpriv_skip="SKIP(unpriv-off): XPRT_UNPRIV=0: the clients run as root"
	else
		unpriv_skip="SKIP(setpriv): no setpriv (util-linux): the clients run as root"
	fi
	echo "integration: $unpriv_skip"
fi
if ((${#AS[@]})); then
	ctl=$run/ctl
	"$top/tests/servers/servers-ctl.sh" serve "$ctl" "$run" "$UNPRIV_UID" \
		>"$logdir/servers-ctl.log" 2>&1 &
	ctl_pid=$!
	for d in "${XPRT_NFS_EXPORT_DIR:-}" "${XPRT_DIOD_EXPORT_DIR:-}"; do
		[[ -n $d ]] && unpriv_own "$d"
	done
fi

# unpriv_exe BIN: BIN, or a copy of it the user can execute (the test
# binaries link the library statically: they run from anywhere)
unpriv_exe() {
	if as_user test -x "$1"; then
		echo "$1"
		return
	fi
	if [[ -z $ubin ]]; then
		ubin=$(mktemp -d "${TMPDIR:-/tmp}/xprt-unpriv-bin.XXXXXX") &&
			chmod 755 "$ubin" || return 1
	fi
	cp "$1" "$ubin/" && chmod 755 "$ubin/${1##*/}" && echo "$ubin/${1##*/}"
}

fail=0 n=0 passed=0 skipped=0 na=0
for t in "$@"; do
	name=${t##*/}
	n=$((n + 1))
	if why=$(not_for_build "$name"); then
		printf '%-4s %-28s %6s   (%s, integration): %s\n' n/a "$name" "" \
			"${o#build/}" "$why"
		na=$((na + 1))
		continue
	fi
	start=$(date +%s.%N)
	rc=0 who=""
	case $t in
	*.sh | *.py) timeout 900 "$t" >"$logdir/$name.log" 2>&1 || rc=$? ;;
	*)
		if ((${#AS[@]})) && exe=$(unpriv_exe "$t"); then
			who=", uid $UNPRIV_UID"
			[[ $exe == "$t" ]] || who+=", from a copy: uid $UNPRIV_UID cannot reach the build tree"
			timeout 900 "${AS[@]}" env \
				XPRT_SERVERS_SH="$top/tests/servers/servers-ctl.sh" \
				XPRT_SERVERS_CTL="$ctl" "$exe" >"$logdir/$name.log" 2>&1 ||
				rc=$?
		else
			((EUID == 0)) && who=", root"
			timeout 900 "$t" >"$logdir/$name.log" 2>&1 || rc=$?
		fi
		;;
	esac
	res=ok
	((rc == 0 || rc == 77)) || res=FAIL
	skip_judge "$name" "$logdir/$name.log" "$rc" >"$logdir/$name.skips" ||
		res=FAIL
	skipped=$((skipped + skip_n))
	((rc == 77)) && [[ $res == ok ]] && res=skip
	case $res in
	ok) passed=$((passed + 1)) ;;
	FAIL) fail=$((fail + 1)) ;;
	esac
	printf '%-4s %-28s %6ss  (%s, integration%s)\n' "$res" "$name" \
		"$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')" \
		"${o#build/}" "$who"
	sed 's/^/     /' "$logdir/$name.skips"
	[[ $res == FAIL ]] && sed 's/^/    | /' "$logdir/$name.log" | tail -60
done
if [[ -n $unpriv_skip ]]; then
	echo "$unpriv_skip" >"$logdir/unprivileged.log"
	skip_judge "the unprivileged clients" "$logdir/unprivileged.log" 77 ||
		fail=$((fail + 1))
	skipped=$((skipped + 1))
fi
echo "integration ($o): $passed/$((n - na)) passed, $skipped skipped$( ((na)) && echo ", $na not for this build")"
((fail == 0))
