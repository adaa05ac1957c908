#!/bin/sh
# budget: 150
# The 9P client library over RDMA (lx_p9_create with transport RDMA) through
# tests/rdma/p9relay in front of diod, checked against diod's files on the
# guest's disk (tests/rdma/p9_lib_rdma): one call of every kind diod
# serves, lx_p9_pwrite/lx_p9_pread of 4 MiB (the file on disk compared), 4 KiB
# reads 16 in flight, READDIR of 500 entries (inode numbers compared),
# removal; then a session where the server lowers msize (the client swaps
# its RDMA-registered pool after Tversion); then, through a relay that
# swallows one Rread, a call that times out, is flushed over RDMA, and the
# session going on with the receive the lost reply left posted.  Last,
# p9-bench --transport rdma --verify through the relay.  Each relay must
# have stopped with its summary and every connection's line, none with
# a framing error.
BIN=$RDMAVM_BIN
IP=${RDMAVM_IP:-10.0.2.15}
EXP=/p9export
P9B=$RDMAVM_BENCH/p9-bench
for b in "$BIN/p9relay" "$BIN/p9_lib_rdma" "$P9B"; do
	[ -x "$b" ] || { echo "FAIL: $b not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
done
command -v diod >/dev/null || { echo "FAIL: diod not in the image"; exit 1; }
pids=""
RELAYS="/tmp/p9lib-relay.log /tmp/p9lib-relay-x.log"
# stop what we started and wait for it: a relay prints its connections'
# lines and its summary as it stops
cleanup() {
	for p in $pids; do kill $p 2>/dev/null; done
	for p in $pids; do wait $p 2>/dev/null; done
	pids=""
	for f in $RELAYS; do
		[ -f $f ] && sed 's/^/  /' $f
	done
}
fail() {
	echo "FAIL: $*"
	cleanup
	exit 1
}
mkdir -p $EXP
# diod may still run from an earlier test: ports of our own
diod -f -n -c /dev/null -l 127.0.0.1:5651 -e $EXP -t 8 -L /tmp/diod-p9lib.log &
pids="$pids $!"
"$BIN/p9relay" -p 5650 -t 127.0.0.1:5651 >/tmp/p9lib-relay.log 2>&1 &
pids="$pids $!"
"$BIN/p9relay" -p 5652 -X 117 -t 127.0.0.1:5651 >/tmp/p9lib-relay-x.log 2>&1 &
pids="$pids $!"
sleep 1

"$BIN/p9_lib_rdma" -a "$IP" -p 5650 -A $EXP -s 4194304 -d 16 -n 500 ||
	fail "p9_lib_rdma (status $?)"
echo "--- msize lowered by the server: the pool follows"
"$BIN/p9_lib_rdma" -a "$IP" -p 5650 -A $EXP -s 1048576 -d 8 -n 50 -m 1048576 ||
	fail "p9_lib_rdma -m 1048576 (status $?)"
echo "--- a call the server never answers: flushed over RDMA"
"$BIN/p9_lib_rdma" -a "$IP" -p 5652 -A $EXP -x || fail "p9_lib_rdma -x (status $?)"

echo "--- p9-bench --transport rdma --verify"
"$P9B" --server "$IP:5650" --aname $EXP --transport rdma \
	--rw randrw --bs 16k --size 4m --iodepth 8 --numjobs 2 \
	--verify --runtime 5 --eta never >/tmp/p9b.log 2>&1 ||
	{ rc=$?; cat /tmp/p9b.log; fail "p9-bench --verify (status $rc)"; }
grep -E '^ *(READ|WRITE):|[Vv]erif' /tmp/p9b.log
cleanup
# each relay: its summary, one "closed" line per connection it counted
# (at least one), no framing error on any
for f in $RELAYS; do
	n=$(sed -n 's/^p9relay: stopped after \([0-9]*\) connection(s)$/\1/p' $f)
	[ -n "$n" ] || { echo "FAIL: $f: the relay never printed its summary"; exit 1; }
	[ "$n" -ge 1 ] || { echo "FAIL: $f: no connection reached the relay"; exit 1; }
	if grep '^p9relay: conn [0-9]* closed: ' $f | grep -qv ' 0 framing errors$'; then
		echo "FAIL: $f: a relay saw framing errors"
		exit 1
	fi
	closed=$(sed -n 's/^p9relay: conn \([0-9]*\) closed: .*/\1/p' $f | sort -u | wc -l)
	[ "$closed" = "$n" ] || {
		echo "FAIL: $f: $n connections, $closed of them said they closed"
		exit 1
	}
done
echo "PASS: the 9P library over RDMA through the relay"
