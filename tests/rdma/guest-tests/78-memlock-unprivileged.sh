#!/bin/sh
# budget: 120
# RDMA without root: nfs3-bench over RDMA against the
# kernel nfsd as user nobody (uid 65534, no CAP_IPC_LOCK, so every page
# it registers is charged to RLIMIT_MEMLOCK).
#   1. with `ulimit -l 64` (KiB) the run must fail within 30 s, with a
#      non-zero exit status and a message naming `ulimit -l` (what
#      lx_xprt_memlock_explain says), not a bare "Cannot allocate memory";
#   2. with the limit raised (by root, before dropping to the user) the
#      same user's run writes and verifies a file: nothing else needs root;
#   3. p9-bench over RDMA (through p9relay in front of diod) under the
#      same 64 KiB fails the same way, naming `ulimit -l`.
NB=$RDMAVM_BENCH/nfs3-bench
IP=${RDMAVM_IP:-10.0.2.15}
[ -x "$NB" ] || { echo "FAIL: $NB not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
D=/export/nb-unpriv
mkdir -p "$D" && chown 65534:65534 "$D" || { echo "FAIL: cannot make $D"; exit 1; }
trap 'rm -rf "$D" /tmp/ml.out' EXIT
# (one line: it goes through su -c, where a newline ends the command)
ARGS="--server $IP:20049 --export /export --mount-port 20048 --transport rdma --directory nb-unpriv --eta never"
up() { cut -d' ' -f1 /proc/uptime; }
# as_nobody LIMIT_KIB CMD: CMD as nobody under that locked-memory limit
# (busybox su: root needs no password; the limit is set as root first so
# that "unlimited" can be granted, then inherited)
as_nobody() {
	(ulimit -l "$1" && exec su -s /bin/sh nobody -c "$2")
}

# 1. too low: a clear refusal, in bounded time
t0=$(up)
as_nobody 64 "id -u; ulimit -l; exec timeout 60 $NB $ARGS --rw write --bs 64k --size 1m" \
	>/tmp/ml.out 2>&1
rc=$?
dt=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')
sed 's/^/  | /' /tmp/ml.out
[ "$(head -1 /tmp/ml.out)" = 65534 ] || { echo "FAIL: not run as uid 65534"; exit 1; }
[ "$(sed -n 2p /tmp/ml.out)" = 64 ] || { echo "FAIL: the limit is not 64 KiB"; exit 1; }
[ $rc != 0 ] || { echo "FAIL: nfs3-bench succeeded under a 64 KiB RLIMIT_MEMLOCK"; exit 1; }
[ $rc != 124 ] || { echo "FAIL: nfs3-bench hung (killed after 60 s)"; exit 1; }
grep -q 'ulimit -l' /tmp/ml.out || { echo "FAIL: exit $rc without a message naming ulimit -l"; exit 1; }
awk -v t="$dt" 'BEGIN { exit !(t < 30) }' || { echo "FAIL: took ${dt}s (bound 30 s)"; exit 1; }
# a figure, when it gives one (the transport's creation does; the first
# call's registration does not know it), is what did not fit: more than
# the limit
need=$(sed -n 's/.*registers about \([0-9]*\) KiB.*/\1/p' /tmp/ml.out | head -1)
if [ -n "$need" ] && [ "$need" -le 64 ]; then
	echo "FAIL: says it registers $need KiB, which a 64 KiB limit holds"
	exit 1
fi
echo "ok: ulimit -l 64 as uid 65534: exit $rc in ${dt}s, the message names ulimit -l${need:+ and $need KiB}"

# 2. enough: the same user's run works
as_nobody unlimited "exec timeout 90 $NB $ARGS --rw write --bs 64k --size 2m --verify" \
	>/tmp/ml.out 2>&1
rc=$?
[ $rc = 0 ] || { sed 's/^/  | /' /tmp/ml.out; echo "FAIL: nfs3-bench as uid 65534 with ulimit -l unlimited: exit $rc"; exit 1; }
owner=$(stat -c %u "$D"/* 2>/dev/null | sort -u)
[ "$owner" = 65534 ] || {
	sed 's/^/  | /' /tmp/ml.out
	ls -laR "$D"
	echo "FAIL: the files belong to '$owner', want 65534"
	exit 1
}
grep -E '^ *WRITE:|[Vv]erif' /tmp/ml.out

# 3. 9P: p9-bench over RDMA (tests/rdma/p9relay in front of diod) as
#    nobody under the same 64 KiB: the same kind of refusal
P9B=$RDMAVM_BENCH/p9-bench
if [ -x "$P9B" ] && [ -x "$RDMAVM_BIN/p9relay" ] && command -v diod >/dev/null; then
	mkdir -p /p9ml && chown 65534:65534 /p9ml
	diod -f -n -c /dev/null -l 127.0.0.1:5691 -e /p9ml -t 4 -L /tmp/diod-ml.log &
	dpid=$!
	"$RDMAVM_BIN/p9relay" -p 5690 -t 127.0.0.1:5691 >/tmp/ml-relay.log 2>&1 &
	rpid=$!
	sleep 1
	t0=$(up)
	as_nobody 64 "exec timeout 60 $P9B --server $IP:5690 --aname /p9ml --transport rdma --rw write --bs 64k --size 1m --eta never" \
		>/tmp/ml.out 2>&1
	rc=$?
	dt=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')
	kill $rpid $dpid 2>/dev/null
	sed 's/^/  | /' /tmp/ml.out
	[ $rc != 0 ] && [ $rc != 124 ] || { echo "FAIL: p9-bench under 64 KiB: exit $rc"; exit 1; }
	grep -q 'ulimit -l' /tmp/ml.out || { echo "FAIL: p9-bench: exit $rc without a message naming ulimit -l"; exit 1; }
	awk -v t="$dt" 'BEGIN { exit !(t < 30) }' || { echo "FAIL: p9-bench took ${dt}s (bound 30 s)"; exit 1; }
	for need in $(sed -n 's/.*registers about \([0-9]*\) KiB.*/\1/p' /tmp/ml.out); do
		[ "$need" -gt 64 ] || { echo "FAIL: p9-bench says it registers $need KiB, which a 64 KiB limit holds"; exit 1; }
	done
	[ "$(grep -c 'registers about' /tmp/ml.out)" -le 1 ] ||
		{ echo "FAIL: p9-bench gives more than one figure"; exit 1; }
	echo "ok: p9-bench, ulimit -l 64 as uid 65534: exit $rc in ${dt}s, the message names ulimit -l"
	rm -rf /p9ml
else
	echo "FAIL: p9-bench, p9relay or diod missing"
	exit 1
fi
echo "PASS: RDMA as uid 65534: refused with ulimit -l named when too low (NFS and 9P), works when raised"
