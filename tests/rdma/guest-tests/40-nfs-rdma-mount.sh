#!/bin/sh
# budget: 90
# Sanity of the server fixture with an independent client: the kernel's own
# NFSv3 client mounts the nfsd export with proto=rdma and moves a few MiB
# each way; the bytes must match and the transport must really be RDMA.
IP=${RDMAVM_IP:-10.0.2.15}
MNT=/mnt/nfs-rdma
MIB=4
fail() { echo "FAIL: $*"; umount -f $MNT 2>/dev/null; exit 1; }
rdmavm-nfsd-start || fail "nfsd did not start"
mkdir -p $MNT
timeout 30 mount.nfs "$IP:/export" $MNT -o vers=3,proto=rdma,port=20049,nolock ||
	fail "mount vers=3 proto=rdma"
grep -A40 "mounted on $MNT " /proc/self/mountstats | grep -q 'xprt:[[:space:]]*rdma' ||
	fail "transport of $MNT is not rdma"
dd if=/dev/urandom of=/tmp/blob bs=1M count=$MIB 2>/dev/null
want=$(md5sum </tmp/blob)
t0=$(cut -d' ' -f1 /proc/uptime)
# write through the mount, then read back after dropping the page cache so
# the data crosses RDMA both ways
dd if=/tmp/blob of=$MNT/blob bs=1M conv=fsync 2>/dev/null || fail "write through the mount"
[ "$(md5sum </export/blob)" = "$want" ] || fail "server copy differs"
echo 3 >/proc/sys/vm/drop_caches
[ "$(md5sum <$MNT/blob)" = "$want" ] || fail "read back through the mount differs"
t1=$(cut -d' ' -f1 /proc/uptime)
grep -A40 "mounted on $MNT " /proc/self/mountstats | grep -m1 'xprt:' | cut -c1-100
rm -f $MNT/blob
umount $MNT || fail "umount"
echo "PASS: $MIB MiB written and read back over NFSv3/RDMA in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')s"
