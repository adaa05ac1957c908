#!/bin/sh
# budget: 150
# 9P over RDMA, framed as Linux's trans_rdma.  tests/rdma/p9relay (an
# RDMA-CM server on 5640 forwarding whole 9P messages to diod over TCP) is
# first checked with the kernel's own 9P client: mount with trans=rdma,
# copy a file in and out, compare, and the relay must have seen no
# framing error.  (On a saturated host the emulated guest can stall longer
# than the kernel client's ACK timeout; its Send then fails for good and
# the failure message shows rxe's retry_exceeded_err.)  Then our client's raw 9P over RDMA through the same
# relay (tests/rdma/p9_rdma), and the excess-receive accounting through a
# second relay that swallows one Rread.
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

# the kernel's client through the relay
bounded 30 mount -t 9p -o trans=rdma,port=5640,version=9p2000.L,aname=$EXP,msize=65536 \
	"$IP" $MNT || fail "kernel mount -t 9p trans=rdma"
dd if=/dev/urandom of=/tmp/blob bs=64k count=16 2>/dev/null
want=$(md5sum </tmp/blob)
bounded 40 cp /tmp/blob $MNT/blob || fail "copy into the mount (status $?)"
bounded 20 sync || fail "sync (status $?)"
[ "$(md5sum <$EXP/blob)" = "$want" ] || fail "diod's copy differs"
echo 3 >/proc/sys/vm/drop_caches
bounded 40 sh -c "md5sum <$MNT/blob >/tmp/p9-md5" || fail "read back through the mount (status $?)"
[ "$(cat /tmp/p9-md5)" = "$want" ] || fail "read back through the mount differs"
bounded 20 ls $MNT >/tmp/p9-ls || fail "listing through the mount"
grep -q '^blob$' /tmp/p9-ls || fail "listing through the mount lacks blob"
bounded 20 umount $MNT || fail "umount"
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
