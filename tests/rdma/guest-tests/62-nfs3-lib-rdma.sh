#!/bin/sh
# budget: 180
# The NFSv3 client library over RPC-over-RDMA (lx_nfs3_create with transport
# RDMA: MOUNT over TCP, NFS over RDMA on 20049) against the kernel nfsd,
# checked against the export on the guest's disk (tests/rdma/nfs3_lib_rdma):
# every NFSv3 procedure and the errors a client must tell apart, every
# MOUNT procedure, the async forms, 8 MiB through lx_nfs3_file_pwrite (Read
# chunks) and lx_nfs3_file_pread (Write chunks) compared with the file on
# disk, a small READ inline, READDIRPLUS and READDIR of 2000 entries
# (Reply chunks; names, inode numbers, sizes and modes compared with
# stat(2)); READDIRPLUS and READDIR of 3000 entries with dircount/maxcount
# 256 KiB, far above buf_size (each reply through a Reply chunk in a
# buffer of its size, no window left live), and a 1000-byte READLINK over
# a 1 KiB inline threshold.  Then nfs3-bench --transport rdma --verify on a file large
# enough for Read and Write chunks (make rdma-tools builds it: not built
# fails).
BIN=$RDMAVM_BIN/nfs3_lib_rdma
NB=$RDMAVM_BENCH/nfs3-bench
IP=${RDMAVM_IP:-10.0.2.15}
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
[ -x "$NB" ] || { echo "FAIL: $NB not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
rdmavm-nfsd-start >/dev/null || { echo "FAIL: nfsd did not start"; exit 1; }
"$BIN" -a "$IP" -e /export -s 8388608 -n 2000 || exit 1
echo "--- nfs3-bench --transport rdma --verify"
mkdir -p /export/nb-verify
"$NB" --server "$IP:20049" --export /export --mount-port 20048 \
	--transport rdma --directory nb-verify \
	--rw randrw --bs 256k --size 8m --iodepth 4 --numjobs 2 \
	--verify --runtime 5 --eta never >/tmp/nb.log 2>&1
rc=$?
# the whole report only when it failed
[ $rc = 0 ] || { cat /tmp/nb.log; echo "FAIL: nfs3-bench (status $rc)"; exit 1; }
grep -E '^ *(READ|WRITE):|[Vv]erif' /tmp/nb.log
rm -rf /export/nb-verify
