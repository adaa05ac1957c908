#!/bin/sh
# budget: 150
# 9P over RDMA, framed as Linux's trans_rdma.  tests/rdma/p9relay (an
# RDMA-CM server on 5640 forwarding whole 9P messages to diod over TCP) is
# first checked with the kernel's own 9P client: mount with trans=rdma,
# copy a file in and out, compare, and the relay must have seen no
# framing error.  Then our client's raw 9P over RDMA through the same
# relay (tests/rdma/p9_rdma), and the excess-receive accounting through a
# second relay that swallows one Rread.
#
# The kernel's 9P client connects with a zeroed rdma_conn_param: a
# transport retry count of 0 for its queue pair and, through the CM
# request, for the relay's.  On rxe its ACK timeout is about a second, so
# when the emulated guest stalls that long on a busy host, the first
# missing ACK ends the connection for good (rxe counts a
# retry_exceeded_err) and the mount hangs.  That is the kernel client's
# setting, not something of ours or the relay's: only then, and only
# once, the kernel part runs again on a fresh mount and connection.
# Our own client's parts are never retried.
BIN=$RDMAVM_BIN
IP=${RDMAVM_IP:-10.0.2.15}
EXP=/p9export
MNT=/mnt/p9-rdma
for b in p9relay p9_rdma; do
	[ -x "$BIN/$b" ] || { echo "FAIL: $BIN/$b not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
done
command -v diod >/dev/null || { echo "FAIL: diod not in the image"; exit 1; }
pids=""
cleanup() {
	umount -l $MNT 2>/dev/null
	for p in $pids; do kill $p 2>/dev/null; done
	sleep 0.3
	for f in /tmp/p9relay.log /tmp/p9relay-x.log; do
		[ -f $f ] && sed 's/^/  /' $f
	done
}
HWC=/sys/class/infiniband/${RDMAVM_DEV:-rxe0}/ports/1/hw_counters
fail() {
	echo "FAIL: $*"
	# a kernel client whose Send ran out of retries (the emulated guest
	# stalled longer than its ACK timeout on a busy host) shows here
	echo "rxe: retry_exceeded_err $(cat $HWC/retry_exceeded_err 2>/dev/null)," \
		"rcvd_seq_err $(cat $HWC/rcvd_seq_err 2>/dev/null)"
	cleanup
	exit 1
}
# bounded SECONDS CMD...: run CMD, give up after SECONDS without waiting
# for it (a hung kernel 9P client leaves its process unkillable)
bounded() {
	t=$(($1 * 5))
	shift
	"$@" &
	bp=$!
	while kill -0 $bp 2>/dev/null; do
		sleep 0.2
		t=$((t - 1))
		[ $t -gt 0 ] || return 124
	done
	wait $bp
}
mkdir -p $EXP $MNT
diod -f -n -c /dev/null -l 127.0.0.1:5641 -e $EXP -t 8 -L /tmp/diod.log &
pids="$pids $!"
"$BIN/p9relay" -t 127.0.0.1:5641 >/tmp/p9relay.log 2>&1 &
pids="$pids $!"
"$BIN/p9relay" -p 5642 -X 117 -t 127.0.0.1:5641 >/tmp/p9relay-x.log 2>&1 &
pids="$pids $!"
sleep 1
modprobe 9pnet_rdma || fail "modprobe 9pnet_rdma"

# kernel_round MNT: the kernel's client through the relay, mounted on MNT;
# on failure sets $why and returns 1
kernel_round() {
	m=$1
	mkdir -p $m
	bounded 30 mount -t 9p -o trans=rdma,port=5640,version=9p2000.L,aname=$EXP,msize=65536 \
		"$IP" $m || { why="kernel mount -t 9p trans=rdma (status $?)"; return 1; }
	bounded 40 cp /tmp/blob $m/blob || { why="copy into the mount (status $?)"; return 1; }
	bounded 20 sync || { why="sync (status $?)"; return 1; }
	[ "$(md5sum <$EXP/blob)" = "$want" ] || { why="diod's copy differs"; return 1; }
	echo 3 >/proc/sys/vm/drop_caches
	bounded 40 sh -c "md5sum <$m/blob >/tmp/p9-md5" ||
		{ why="read back through the mount (status $?)"; return 1; }
	[ "$(cat /tmp/p9-md5)" = "$want" ] || { why="read back through the mount differs"; return 1; }
	bounded 20 ls $m >/tmp/p9-ls || { why="listing through the mount"; return 1; }
	grep -q '^blob$' /tmp/p9-ls || { why="listing through the mount lacks blob"; return 1; }
	bounded 20 umount $m || { why="umount"; return 1; }
	return 0
}
rexc() { cat $HWC/retry_exceeded_err 2>/dev/null || echo 0; }
dd if=/dev/urandom of=/tmp/blob bs=64k count=16 2>/dev/null
want=$(md5sum </tmp/blob)
r0=$(rexc)
if ! kernel_round $MNT; then
	r1=$(rexc)
	[ "$r1" -gt "$r0" ] || fail "$why"
	echo "# kernel 9P client: $why, its connection ran out of transport" \
		"retries (rxe retry_exceeded_err $r0 -> $r1): once more on a fresh mount"
	umount -l $MNT 2>/dev/null
	rm -f $EXP/blob
	MNT=$MNT-again
	kernel_round $MNT || fail "$why (the second time)"
fi
sleep 0.3
grep -q ' 0 framing errors' /tmp/p9relay.log || fail "relay saw framing errors"
echo "ok: kernel 9P client over RDMA through the relay: 1 MiB in and out, framing clean"

# our client, raw 9P over RDMA
bounded 60 "$BIN/p9_rdma" -a "$IP" -A $EXP -s 1048576 -d 8 -n 1000 || fail "p9_rdma (status $?)"
cmp -s $EXP/p9rdma.bin /dev/null && fail "p9rdma.bin is empty"
[ "$(stat -c %s $EXP/p9rdma.bin)" = 1048576 ] || fail "p9rdma.bin has the wrong size"
bounded 30 "$BIN/p9_rdma" -a "$IP" -p 5642 -A $EXP -x || fail "p9_rdma excess receives (status $?)"
cleanup
if grep -h 'framing errors' /tmp/p9relay.log /tmp/p9relay-x.log |
	grep -qv ' 0 framing errors'; then
	echo "FAIL: a relay saw framing errors"
	exit 1
fi
echo "PASS: 9P over RDMA: kernel client and ours through the relay"
