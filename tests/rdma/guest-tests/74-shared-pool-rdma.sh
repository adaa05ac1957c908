#!/bin/sh
# budget: 120
# One buffer pool shared by an NFSv3 client and a 9P session over RDMA:
# examples/shared_read -r reads one file of the
# export through the kernel nfsd (NFS over RDMA on 20049, MOUNT over TCP)
# and through tests/rdma/p9relay in front of diod serving the same
# directory, both clients on one pool with the same asynchronous code.
# The two copies must be the file on disk, and the pool must have been
# registered once for both clients (registrations 1), whatever its size
# classes.  The example is host-built (make examples: build/plain).
EX=${RDMAVM_REPO:-.}/build/${RDMA_BUILD:-plain}/examples/shared_read
BIN=$RDMAVM_BIN
IP=${RDMAVM_IP:-10.0.2.15}
[ -x "$EX" ] || { echo "FAIL: $EX not built (make examples)"; exit 1; }
[ -x "$BIN/p9relay" ] || { echo "FAIL: $BIN/p9relay not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
command -v diod >/dev/null || { echo "FAIL: diod not in the image"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
pids=""
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	rm -f /export/shared-read.dat
}
fail() {
	echo "FAIL: $*"
	[ -f /tmp/sp-relay.log ] && sed 's/^/  /' /tmp/sp-relay.log
	cleanup
	exit 1
}
head -c 3000000 /dev/urandom >/export/shared-read.dat
# ports of our own: diod and relays of other tests may still run
diod -f -n -c /dev/null -l 127.0.0.1:5661 -e /export -t 8 -L /tmp/diod-sp.log &
pids="$pids $!"
"$BIN/p9relay" -p 5660 -t 127.0.0.1:5661 >/tmp/sp-relay.log 2>&1 &
pids="$pids $!"
sleep 1
out=$("$EX" -r -m 20048 -p 5660 -A /export "$IP" /export shared-read.dat) ||
	fail "shared_read -r exited $?: $out"
echo "$out"
echo "$out" | grep -q '^nfs3: 3000000 bytes (.*), 9p: 3000000 bytes (.*), same data$' ||
	fail "not the file through both"
echo "$out" | grep -Eq '^pool: classes [1-9][0-9]*, gets ([0-9]+), puts \1, in use 0, registrations 1$' ||
	fail "the shared pool was not registered exactly once"
cleanup
echo "PASS: NFSv3 and 9P over RDMA on one pool, registered once"
