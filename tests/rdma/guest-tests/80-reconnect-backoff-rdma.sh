#!/bin/sh
# budget: 120
# Reconnect backoff over RDMA: a server that fails every
# session at its first I/O.  tests/rdma/p9relay in front of diod, with
# -C 116, drops the RDMA connection at the first Tread of each session
# (set-up and the file's layout go through).  Each session is lost before
# an I/O was answered, so p9-bench --transport rdma --hard must wait
# longer before each next one: still trying after 10 s, at most 10
# connections made in those 10 s, "not responding, still trying" said
# once, and the run ends within 5 s of SIGTERM with exit status 1: the
# run's own handler ("interrupted"; a sanitizer's 66 or an abort's 134 is
# not that).  (The TCP counterpart is
# tests/integration/test_p9_bench_hostile.sh.)
# Then the same for RPC: nfs3-bench --transport rdma --hard, MOUNT from
# the kernel's mountd over TCP, NFS over RDMA to a relay with no 9P
# server behind it, which drops each connection at its first message (an
# RPC-over-RDMA call is not 9P framing): the same bounds, but exit
# status 143: no NFS call ever completes, so the run is still in its
# set-up (lx_nfs3_create()'s FSINFO), before the run installs its handler,
# and SIGTERM's default action ends it (as in the TCP test's set-up case).
BIN=$RDMAVM_BIN
IP=${RDMAVM_IP:-10.0.2.15}
P9B=$RDMAVM_BENCH/p9-bench
NB=$RDMAVM_BENCH/nfs3-bench
[ -x "$BIN/p9relay" ] || { echo "FAIL: $BIN/p9relay not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
[ -x "$P9B" ] || { echo "FAIL: $P9B not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
[ -x "$NB" ] || { echo "FAIL: $NB not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
command -v diod >/dev/null || { echo "FAIL: diod not in the image"; exit 1; }
EXP=/p9backoff
pids=""
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	rm -rf /tmp/bo-relay.log /tmp/bo-relay2.log /tmp/bo.out /tmp/bo.err "$EXP"
}
fail() {
	echo "FAIL: $*"
	sed 's/^/  relay | /' /tmp/bo-relay.log
	[ -f /tmp/bo-relay2.log ] && sed 's/^/  relay2 | /' /tmp/bo-relay2.log
	sed 's/^/  bench | /' /tmp/bo.err
	cleanup
	exit 1
}
up() { cut -d' ' -f1 /proc/uptime; }
# ports of our own: relays and diods of other tests may still run
mkdir -p "$EXP"
diod -f -n -c /dev/null -l 127.0.0.1:5681 -e "$EXP" -t 4 -L /tmp/diod-bo.log &
pids="$pids $!"
"$BIN/p9relay" -p 5680 -C 116 -t 127.0.0.1:5681 >/tmp/bo-relay.log 2>&1 &
pids="$pids $!"
sleep 1
# observe NAME RELAYLOG WANT CMD...: CMD (a bench, --hard) in the
# background, 10 s, SIGTERM; the connections it made, said once, ended
# promptly with exit status WANT
observe() {
	name=$1 rlog=$2 want=$3
	shift 3
	"$@" >/tmp/bo.out 2>/tmp/bo.err &
	bench=$!
	sleep 10
	kill -0 $bench 2>/dev/null || fail "$name ended before 10 s"
	n=$(grep -c 'established' "$rlog")
	t0=$(up)
	kill -TERM $bench
	i=0
	while kill -0 $bench 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	dt=$(awk -v a="$t0" -v b="$(up)" 'BEGIN { printf "%.2f", b - a }')
	kill -0 $bench 2>/dev/null && { kill -KILL $bench; fail "$name still running 10 s after SIGTERM"; }
	wait $bench
	rc=$?
	echo "# $name: $n RDMA connections in 10 s; ended ${dt} s after SIGTERM (exit $rc)"
	grep -E 'not responding|OK' /tmp/bo.err | sed 's/^/  | /'
	[ "$n" -ge 3 ] || fail "$name: $n connections in 10 s: the server was not tried again"
	[ "$n" -le 10 ] || fail "$name: $n connections in 10 s (at most 10): no backoff"
	[ "$(grep -c 'not responding, still trying' /tmp/bo.err)" = 1 ] ||
		fail "$name: 'not responding, still trying' said $(grep -c 'not responding' /tmp/bo.err) times, want once"
	awk -v t="$dt" 'BEGIN { exit !(t < 5) }' || fail "$name: ended ${dt} s after SIGTERM (bound 5 s)"
	[ "$rc" = "$want" ] || fail "$name: exit status $rc after SIGTERM, want $want"
}

observe p9-bench /tmp/bo-relay.log 1 "$P9B" --server "$IP:5680" --aname "$EXP" \
	--transport rdma --hard --rw read --bs 4k --size 64k --filename f \
	--eta never --runtime 60s
closed=$(grep -c 'closing at a type 116' /tmp/bo-relay.log)
[ "$closed" -ge 2 ] || fail "$closed sessions reached a Tread: the fixture did not work"
p9n=$n p9dt=$dt

# RPC: a relay whose 9P server is absent is no matter, it never gets that
# far: the first RPC-over-RDMA message fails its 9P framing check
rdmavm-nfsd-start >/dev/null || fail "nfsd did not start"
"$BIN/p9relay" -p 5682 -t 127.0.0.1:5681 >/tmp/bo-relay2.log 2>&1 &
pids="$pids $!"
sleep 1
observe nfs3-bench /tmp/bo-relay2.log 143 "$NB" --server "$IP:5682" --export /export \
	--mount-port 20048 --transport rdma --hard --rw null --runtime 60s \
	--eta never
grep -q 'size field' /tmp/bo-relay2.log || fail "the relay did not drop the RPC connections"
cleanup
echo "PASS: RDMA reconnects back off: 9P $p9n and RPC $n connections in 10 s, said once, ended ${p9dt} s and ${dt} s after SIGTERM"
