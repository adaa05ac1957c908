#!/bin/sh
# Skipped tests: which skips a machine may have, and the judging of a
# test's log.  Sourced by scripts/run-unit.sh, scripts/run-integration.sh
# and tests/rdma/run-guest-tests.sh (POSIX sh: the guest has dash); run
# as a command it wraps one test (make check-mpi).
#
# A test that skips says why in one line of its output,
#
#   SKIP(KEY): what it needs and did not find
#
# and exits 77 (a script) or calls skip() (a cmocka test: the runners
# find cmocka's "[  SKIPPED ]" lines, the exit status is 0; Python's
# unittest: its "OK (skipped=N)").  A skip is allowed only when KEY is on
# this list AND this machine really is so (skip_lacks checks it here, not
# the test's word):
#
#   root         the run is not root: namespaces, mounts, another user
#   sys-admin    root without CAP_SYS_ADMIN (a container): no tmpfs mount
#   rdma-device  the host has an RDMA device and a server answers on it:
#                the tests of the no-device path do not apply
#
# Every other skip, a skip with no SKIP line, and a KEY this machine does
# not lack fail the run.  On the machines CI runs on (root, every
# capability, every package, no RDMA device: the RDMA tests run in the
# guest) nothing applies, so nothing may skip.  docs/reliability.md
# ("Skips") says the same.
#
#   scripts/skips.sh run CMD...   run CMD; its exit 77 passes only as an
#                                 allowed skip (the reason printed)

# skip_lacks KEY: true when this machine lacks what KEY names
skip_lacks() {
	case $1 in
	root) [ "$(id -u)" != 0 ] ;;
	sys-admin)
		[ "$(id -u)" = 0 ] || return 1
		cap=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
		[ -n "$cap" ] && [ $((0x$cap >> 21 & 1)) = 0 ]
		;;
	rdma-device) [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] ;;
	*) return 1 ;;
	esac
}

# skip_judge NAME LOG EXIT: the skips of test NAME, from its LOG and its
# EXIT status (77: the whole test; 0: cmocka's skipped tests, if any).
# Prints one line per skip with its reason; sets skip_n to the number of
# skips; returns 1 when one of them is not allowed here.
skip_judge() {
	skip_n=0
	skip_bad=0
	if [ "$3" = 77 ]; then
		skip_n=1
	elif [ "$3" = 0 ]; then
		# cmocka's skip(), and Python unittest's skipTest()
		skip_n=$(grep '^\[  SKIPPED \] [A-Za-z_]' "$2" | sort -u | wc -l)
		py=$(sed -n 's/^OK (.*skipped=\([0-9]*\).*/\1/p' "$2" | head -1)
		skip_n=$((skip_n + ${py:-0}))
	fi
	[ "$skip_n" -gt 0 ] || return 0
	said=$(grep -c 'SKIP([a-z-]*): ' "$2")
	if [ "$said" -lt "$skip_n" ]; then
		echo "skip $1: $skip_n skipped, $said SKIP(KEY) lines say why: not allowed"
		return 1
	fi
	grep -o 'SKIP([a-z-]*): .*' "$2" | sort -u | {
		while IFS= read -r r; do
			key=${r#SKIP(}
			key=${key%%)*}
			if skip_lacks "$key"; then
				echo "skip $1: $r (allowed here: scripts/skips.sh)"
			else
				echo "skip $1: $r: NOT ALLOWED here (scripts/skips.sh: a skip passes only for what this machine lacks)"
				skip_bad=1
			fi
		done
		[ $skip_bad = 0 ]
	}
}

if [ "${0##*/}" = skips.sh ] && [ "${1:-}" = run ]; then
	shift
	log=$(mktemp "${TMPDIR:-/tmp}/skips.XXXXXX")
	trap 'rm -f "$log" "$log.rc"' EXIT
	{
		"$@" 2>&1
		echo $? >"$log.rc"
	} | tee "$log"
	rc=$(cat "$log.rc")
	[ "$rc" = 77 ] || exit "$rc"
	skip_judge "${1##*/}" "$log" 77 || exit 1
fi
