#!/bin/sh
# Runs INSIDE the RDMA guest (started by scripts/bench-cost.py, the RDMA
# part of make bench-cost): every run of a plan under callgrind or strace,
# against the kernel nfsd over RPC-over-RDMA or a perftest server.
#
#   bench-cost-guest.sh PLAN OUT
#
# PLAN: one run per line, fields separated by tabs:
#   TAG  TOOL  SERVER  COMMAND...
# TOOL is callgrind or strace (strace -f -c), its output file OUT/TAG;
# SERVER is "-" or a command started
# in the background first and stopped after the run (ib_send_lat's server
# side).  COMMAND is split at spaces.  Each run's output goes to
# OUT/TAG.log and its exit status to OUT/TAG.rc; a run that fails is run
# once more (the first try's output in OUT/TAG.try1.log).
#
# Valgrind comes from the host: its tool folder shared at
# /usr/libexec/valgrind (run-vm.sh -s), its launcher binary at
# $BENCH_COST_VALGRIND (a copy of the host's /usr/bin/valgrind.bin).
# The kernel nfsd exports a tmpfs /export holding bench16m.dat.
set -u
PLAN=$1
OUT=$2
VG=${BENCH_COST_VALGRIND:?BENCH_COST_VALGRIND not set}
TAB=$(printf '\t')

[ -x "$VG" ] || { echo "bench-cost-guest: no valgrind at $VG"; exit 1; }
command -v ib_send_lat >/dev/null || { echo "bench-cost-guest: no ib_send_lat in the image"; exit 1; }
command -v strace >/dev/null || { echo "bench-cost-guest: no strace in the image"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "bench-cost-guest: nfsd did not start"; exit 1; }
dd if=/dev/urandom of=/export/bench16m.dat bs=1M count=16 2>/dev/null ||
	{ echo "bench-cost-guest: making the test file"; exit 1; }
mkdir -p "$OUT"
echo "bench-cost-guest: kernel $(uname -r), $(nproc) vCPUs"

fails=0
# One run of TAG: its server first when it has one.  Sets rc.
run_one() {
	spid=""
	if [ "$srv" != - ]; then
		# shellcheck disable=SC2086 # the command is split at spaces
		$srv >"$OUT/$tag.server.log" 2>&1 &
		spid=$!
		sleep 2 # the server's TCP side channel must listen first
	fi
	case $tool in
	callgrind)
		# shellcheck disable=SC2086
		VALGRIND_LIB=/usr/libexec/valgrind "$VG" --tool=callgrind \
			--callgrind-out-file="$OUT/$tag" $cmd \
			>"$OUT/$tag.log" 2>&1
		;;
	strace)
		# shellcheck disable=SC2086
		strace -f -c -o "$OUT/$tag" $cmd >"$OUT/$tag.log" 2>&1
		;;
	*) echo "unknown tool $tool" >"$OUT/$tag.log"; false ;;
	esac
	rc=$?
	if [ -n "$spid" ]; then
		# a client that failed leaves its server waiting
		sleep 1
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
}
while IFS="$TAB" read -r tag tool srv cmd; do
	[ -n "$tag" ] || continue
	t0=$(date +%s)
	run_one
	if [ $rc != 0 ]; then
		# once more: under emulation and valgrind a connection's set-up
		# can miss its timeout (the first try's log is kept)
		mv "$OUT/$tag.log" "$OUT/$tag.try1.log"
		echo "bench-cost-guest: $tag rc=$rc, once more"
		run_one
	fi
	echo $rc >"$OUT/$tag.rc"
	[ $rc = 0 ] || fails=$((fails + 1))
	echo "bench-cost-guest: $tag rc=$rc $(($(date +%s) - t0))s"
done <"$PLAN"
[ $fails = 0 ]
