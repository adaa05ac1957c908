#!/bin/sh
# Runs INSIDE the RDMA test guest (started by run-vm.sh): every test script
# of tests/rdma/guest-tests/ in name order, or the ones named.
#
#   run-guest-tests.sh [NAME_OR_PATH...]
#
# A test is a /bin/sh (dash) script.  Exit 0 = PASS, 77 = SKIP (with a
# "SKIP(KEY): why" line, printed again with the verdict), anything else =
# FAIL.  A skip the machine is not allowed (scripts/skips.sh: the guest
# has root, every capability and its RDMA device, so none) FAILs.  A
# line "# budget: SECONDS" sets its time limit (default 60); a test over
# budget is killed and FAILs.  The run fails if any test fails.  Tests see RDMAVM_REPO, RDMAVM_BIN (host-built helpers, default
# $RDMAVM_REPO/build/rdma), RDMAVM_BENCH (nfs3-bench and p9-bench built
# for the guest, default $RDMAVM_BIN), RDMAVM_IP, RDMAVM_DEV and
# RDMAVM_NETDEV, and start from the repository root.
HERE=$(cd "$(dirname "$0")" && pwd)
export RDMAVM_REPO=${RDMAVM_REPO:-$(cd "$HERE/../.." && pwd)}
export RDMAVM_BIN=${RDMAVM_BIN:-$RDMAVM_REPO/build/rdma}
export RDMAVM_BENCH=${RDMAVM_BENCH:-$RDMAVM_BIN}
TDIR=$HERE/guest-tests
# shellcheck source=scripts/skips.sh
. "$RDMAVM_REPO/scripts/skips.sh"
log=$(mktemp "${TMPDIR:-/tmp}/guest-test.XXXXXX")
trap 'rm -f "$log" "$log.rc"' EXIT

if [ $# -eq 0 ]; then
	set -- "$TDIR"/[0-9]*.sh
	[ -e "$1" ] || { echo "no tests in $TDIR"; exit 1; }
fi
up() { cut -d' ' -f1 /proc/uptime; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

pass=0 fail=0 skip=0 failed=""
start=$(up)
echo "guest-tests: kernel $(uname -r), rdma ${RDMAVM_DEV:-none} on ${RDMAVM_IP:-?}, uptime ${start}s"
for t in "$@"; do
	case $t in
	*/*) ;;
	*) [ -e "$TDIR/$t" ] && t=$TDIR/$t || t=$TDIR/$t.sh ;;
	esac
	name=$(basename "$t" .sh)
	if [ ! -r "$t" ]; then
		echo "--- FAIL $name: no such test ($t)"
		fail=$((fail + 1))
		failed="$failed $name"
		continue
	fi
	budget=$(sed -n 's/^# budget: *\([0-9][0-9]*\).*/\1/p' "$t" | head -1)
	budget=${budget:-60}
	echo "=== RUN  $name (budget ${budget}s)"
	t0=$(up)
	# the output shown as it comes and kept for the skip's reason; the
	# status through a file (dash has no pipefail)
	{
		(cd "$RDMAVM_REPO" && exec timeout -s KILL "$budget" sh "$t")
		echo $? >"$log.rc"
	} 2>&1 | tee "$log"
	rc=$(cat "$log.rc")
	dt=$(secs "$t0" "$(up)")
	if [ $rc = 0 ]; then
		echo "--- PASS $name (${dt}s)"
		pass=$((pass + 1))
	elif [ $rc = 77 ] && skip_judge "$name" "$log" 77; then
		echo "--- SKIP $name (${dt}s)"
		skip=$((skip + 1))
	elif [ $rc = 77 ]; then
		echo "--- FAIL $name (${dt}s, a skip not allowed here)"
		fail=$((fail + 1))
		failed="$failed $name"
	else
		why="exit status $rc"
		[ $rc = 137 ] && why="killed: over its ${budget}s budget"
		echo "--- FAIL $name (${dt}s, $why)"
		fail=$((fail + 1))
		failed="$failed $name"
	fi
done
echo "guest-tests: $pass passed, $fail failed, $skip skipped in $(secs "$start" "$(up)")s${failed:+ (failed:$failed)}"
[ $fail = 0 ]
