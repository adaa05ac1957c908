#!/usr/bin/env bash
# Real-verbs check: the CI entry for everything RDMA.
#
# usage: tests/rdma/check-rdma.sh [GUEST-TEST...]
#
#   1. deps     scripts/deps.sh rdma build (installs only what is missing)
#   2. image    tests/rdma/build-image.sh (cached in .cache/rdmavm)
#   3. compile  build/rdma/verbs_smoke and the library's test programs
#               (make rdma-tools: rdma_null, nfs3_rdma, nfs3_lib_rdma,
#               p9relay, p9_rdma, p9_lib_rdma, and nfs3-bench and p9-bench
#               linked without MPI, which the guest lacks; a fio for the
#               guest and libxprt's fio engine built against it)
#               on the host; RDMA_BUILD=asan builds them with ASan/UBSan
#   4. vm       one boot of the guest (Debian kernel, rdma_rxe, kernel nfsd
#               with an RDMA listener) running tests/rdma/run-guest-tests.sh:
#               every tests/rdma/guest-tests/*.sh in order, or those named
#
# Each step has a budget in seconds; a step over budget fails the check with
# a message naming it.  Override with RDMA_BUDGET_DEPS, RDMA_BUDGET_IMAGE,
# RDMA_BUDGET_COMPILE, RDMA_BUDGET_VM.  Exit 0 only if every step and every
# guest test passed.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO" || exit 1
# test programs per build variant (RDMA_BUILD=asan: ASan/UBSan)
BIN=$REPO/build/rdma${RDMA_BUILD:+-$RDMA_BUILD}
[ "${RDMA_BUILD:-plain}" = plain ] && BIN=$REPO/build/rdma
B_DEPS=${RDMA_BUDGET_DEPS:-600}
B_IMAGE=${RDMA_BUDGET_IMAGE:-600}
B_COMPILE=${RDMA_BUDGET_COMPILE:-300}
B_VM=${RDMA_BUDGET_VM:-300}

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
T0=$(now)
times=""

# step NAME BUDGET CMD...: run CMD under a budget, record its time, stop
# the whole check on failure.
step() {
	local name=$1 budget=$2 t rc
	shift 2
	echo "check-rdma: [$name] $* (budget ${budget}s)" >&2
	t=$(now)
	timeout -k 10 "$budget" "$@"
	rc=$?
	times="$times $name $(secs "$t" "$(now)")s,"
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "check-rdma: FAIL: step '$name' exceeded its budget of ${budget}s" >&2
	elif [ $rc != 0 ]; then
		echo "check-rdma: FAIL: step '$name' failed (exit status $rc)" >&2
	fi
	if [ $rc != 0 ]; then
		echo "check-rdma: FAIL after $(secs "$T0" "$(now)")s (${times%,} )" >&2
		exit 1
	fi
}

compile() {
	mkdir -p "$BIN"
	# the project's warning set (Makefile WARN/CSTD)
	cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
		-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
		-O2 -g -pthread -o "$BIN/verbs_smoke.tmp" "$HERE/verbs_smoke.c" \
		$(pkg-config --cflags --libs libibverbs librdmacm) &&
		mv "$BIN/verbs_smoke.tmp" "$BIN/verbs_smoke" &&
		make -s -j2 BUILD="${RDMA_BUILD:-plain}" RDMA_BIN="$BIN" rdma-tools
}

step deps "$B_DEPS" scripts/deps.sh rdma build
step image "$B_IMAGE" "$HERE/build-image.sh"
export BIN HERE
export -f compile # timeout runs programs, so the function goes via bash
step compile "$B_COMPILE" bash -c compile
# run-vm.sh enforces the VM budget itself (and reports the console tail);
# the outer timeout only guards against run-vm.sh hanging
step vm $((B_VM + 30)) "$HERE/run-vm.sh" --no-build -t "$B_VM" \
	-e "RDMAVM_BIN=$BIN" "$HERE/run-guest-tests.sh" "$@"
echo "check-rdma: PASS in $(secs "$T0" "$(now)")s (${times%,} )" >&2
