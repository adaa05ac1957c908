#!/usr/bin/env bash
# make bench-rdma: nfs3-bench against the Linux kernel NFS client (fio,
# libaio, O_DIRECT) on the same kernel nfsd in the test guest, over RDMA
# and over TCP, side by side in one boot.
#
# usage: tests/rdma/bench-rdma.sh          # 5 repetitions of 5 s per point
#        QUICK=1 tests/rdma/bench-rdma.sh  # 1 repetition of 3 s
#        tests/rdma/bench-rdma.sh --fio    # make bench-fio-rdma
#
# --fio: four clients on the same points, back to back in each repetition,
# the order rotating: nfs3-bench, fio + libxprt's engine (the guest's fio,
# build/rdma/fio), and fio on the kernel client's mount with libaio and
# with psync; no registration-mode points, no system-call measurement.
# Results in build/bench-fio-rdma/ and build/plain/bench-fio-rdma.json
# (one table: every client's IOPS, CPU per I/O and ratio to the kernel
# client's libaio run of the same repetition).
#
#   1. image    the guest image plus fio and strace (its own cache folder,
#               .cache/rdmavm-bench, so check-rdma's image stays small)
#   2. compile  make rdma-tools (nfs3-bench linked for the guest)
#   3. vm       one boot running tests/rdma/bench-rdma-guest.sh: every
#               point REPS times, ours and the kernel's alternating; then
#               the system calls per 4 KiB READ in each registration mode
#   4. report   tests/rdma/bench-rdma-report.py: medians, ratios ours/kernel
#               (printed, and written to build/bench-rdma/results.md and
#               build/plain/bench-rdma.json, which scripts/bench-md.py
#               --record reads)
#
# The guest runs under TCG when the host has no usable KVM: absolute
# figures are meaningless there, the ratio is the result.  Bounded: the
# boot's budget is 1500 s (QUICK 400 s; --fio 2400 s, QUICK 700 s);
# override with RDMA_BENCH_BUDGET.
# SYS_N1/SYS_N2 set the READ counts of the system-call measurement,
# NO_SYSCALLS=1 skips it.
# REPS and RUNTIME override the repetitions and seconds per run;
# BENCH_TRANSPORTS ("rdma tcp"), BENCH_POINTS (NAME:RW:BS:DEPTH ...) and
# BENCH_CLIENTS (see bench-rdma-guest.sh) narrow it, RDMA_BENCH_BIN picks
# another build of nfs3-bench (default build/rdma).
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO" || exit 1
NAME=bench-rdma
REPORT_ARGS=()
budget=(1500 400) # full, QUICK
if [ "${1:-}" = --fio ]; then
	NAME=bench-fio-rdma
	REPORT_ARGS=(--clients)
	budget=(2400 700)
	BENCH_CLIENTS=${BENCH_CLIENTS:-ours engine kernel psync}
	BENCH_REG="" NO_SYSCALLS=1
fi
if [ -n "${QUICK:-}" ] && [ "${QUICK}" != 0 ]; then
	REPS=${REPS:-1} RUNTIME=${RUNTIME:-3} BUDGET=${RDMA_BENCH_BUDGET:-${budget[1]}}
	SYS_N1=${SYS_N1:-300} SYS_N2=${SYS_N2:-900}
else
	REPS=${REPS:-5} RUNTIME=${RUNTIME:-5} BUDGET=${RDMA_BENCH_BUDGET:-${budget[0]}}
fi
export RDMAVM_DIR=${RDMAVM_BENCH_DIR:-$REPO/.cache/rdmavm-bench}
export EXTRA_PKGS="${EXTRA_PKGS:-} fio strace"
export EXTRA_BINS="${EXTRA_BINS:-} /usr/bin/fio /usr/bin/strace"
RES=$REPO/build/$NAME
RAW=$RES/raw
T0=$(date +%s)

scripts/deps.sh --check rdma build >/dev/null 2>&1 || scripts/deps.sh rdma build || exit 1
if [ ! -d "$RDMAVM_DIR/debs" ] && [ -d "$REPO/.cache/rdmavm/debs" ]; then
	# the packages check-rdma already fetched: hard links, no download
	mkdir -p "$RDMAVM_DIR" && cp -al "$REPO/.cache/rdmavm/debs" "$RDMAVM_DIR/"
fi
"$HERE/build-image.sh" || { echo "bench-rdma: image build failed" >&2; exit 1; }
# nfs3-bench linked for the guest (no MPI) into build/rdma
make -s -j2 rdma-tools || { echo "bench-rdma: make rdma-tools failed" >&2; exit 1; }
rm -rf "$RAW"
mkdir -p "$RAW"
echo "$NAME: $REPS repetition(s) of ${RUNTIME}s per point, budget ${BUDGET}s" >&2
NB_DIR=${RDMA_BENCH_BIN:-$REPO/build/rdma}
"$HERE/run-vm.sh" --no-build -t "$BUDGET" \
	-e "RDMAVM_BIN=$REPO/build/rdma" -e "RDMAVM_BENCH=$NB_DIR" \
	${BENCH_POINTS:+-e "BENCH_POINTS=$BENCH_POINTS"} \
	${BENCH_TRANSPORTS:+-e "BENCH_TRANSPORTS=$BENCH_TRANSPORTS"} \
	${BENCH_CLIENTS:+-e "BENCH_CLIENTS=$BENCH_CLIENTS"} \
	${BENCH_REG+-e "BENCH_REG=$BENCH_REG"} \
	${SYS_N1:+-e "SYS_N1=$SYS_N1"} ${SYS_N2:+-e "SYS_N2=$SYS_N2"} \
	${NO_SYSCALLS:+-e "NO_SYSCALLS=$NO_SYSCALLS"} \
	"$HERE/bench-rdma-guest.sh" "$RAW" "$REPS" "$RUNTIME"
rc=$?
echo
echo "$NAME: ${BENCH_CLIENTS:-ours kernel} on the kernel nfsd, medians of $REPS run(s) of ${RUNTIME}s:"
mkdir -p "$REPO/build/plain"
python3 "$HERE/bench-rdma-report.py" "${REPORT_ARGS[@]}" "$RAW" "$RES/results.md" \
	"$REPO/build/plain/$NAME.json" || rc=1
echo "$NAME: $([ $rc = 0 ] && echo "done" || echo FAILED) in $(($(date +%s) - T0))s; raw reports in $RAW" >&2
exit $rc
