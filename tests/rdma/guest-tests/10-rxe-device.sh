#!/bin/sh
# budget: 20
# The soft-RoCE device exists and is usable: rxe0 ACTIVE on the netdev,
# the user-verbs and RDMA-CM character devices present, and a RoCEv2 GID
# for the guest's IPv4 address (what rdma_cm resolves to).
DEV=${RDMAVM_DEV:-rxe0}
IP=${RDMAVM_IP:-10.0.2.15}
fail() { echo "FAIL: $*"; exit 1; }
rdma link show | grep -q "^link $DEV/1 state ACTIVE" ||
	fail "$DEV not ACTIVE: $(rdma link show)"
for f in /dev/infiniband/uverbs0 /dev/infiniband/rdma_cm; do
	[ -c $f ] || fail "no $f"
done
ibv_devinfo -d "$DEV" | grep -q 'state:.*PORT_ACTIVE' || fail "ibv_devinfo: port not active"
# RoCEv2 GID of an IPv4 address: ::ffff:a.b.c.d
want=$(echo "$IP" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
grep -qx "$want" /sys/class/infiniband/"$DEV"/ports/1/gids/* ||
	fail "no GID $want for $IP"
echo "PASS: $DEV active, GID $want for $IP"
