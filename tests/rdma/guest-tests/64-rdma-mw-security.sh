#!/bin/sh
# budget: 90
# What a server can do with our chunk keys (tests/rdma/rdma_mw): a scripted
# RPC-over-RDMA server of our own, on the same connection as the library's
# client (a type 2 window is tied to its queue pair), keeps every key and
# uses it again.  RDMA Write and Read through a call's window work before
# its reply and fail with a remote access error once its done() runs:
# after local invalidation, after the server's Send With Invalidate, after
# a timeout, a cancel and a refused (malformed) reply; a key used with the wrong access fails; a resend binds a
# fresh window; a connection lost while the window was bound leaves
# nothing live by done(); a large reply (reply_hint above buf_size) lands
# in a Reply chunk over a reply buffer of its size, decoded from there,
# and that key too fails after done(), answered or timed out.
BIN=$RDMAVM_BIN/rdma_mw
[ -x "$BIN" ] || { echo "FAIL: $BIN not built (tests/rdma/check-rdma.sh builds it)"; exit 1; }
exec "$BIN" -a "$RDMAVM_IP" -p 20060
