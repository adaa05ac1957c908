#!/usr/bin/env bash
# make bench-rpc: NFSv3 NULL calls against ganesha, our SunRPC client side
# by side with libtirpc and libnfs, on the same server in the same run.
#
# usage: scripts/bench-rpc.sh [BUILD_DIR]     (default build/plain)
#   env: QUICK=1 (under a minute), ROUNDS=N, SECS=S (per run)
#
#   case     ours                         peer
#   null-1   rpcping -S (lx_rpc_null: sync)  peer_tirpc_null (clnt_call)
#   null-16  rpcping -d 16 (async)        peer_libnfs --mode null --depth 16
#   null-64  rpcping -d 64 (async)        peer_libnfs --mode null --depth 64
#
# All AUTH_SYS, one TCP connection each.  Targets: at 1
# outstanding >= 1.0x libtirpc's calls/s with <= 0.6x its client CPU per
# call; at 16 outstanding >= 1.2x libnfs's calls/s.  Results: a table,
# JSON on the last line, and BUILD_DIR/bench-rpc.{json,md,tsv}.
set -euo pipefail
BL_NAME=bench-rpc
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
O=${1:-build/plain}
[[ $O == /* ]] || O=$BL_TOP/$O
if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-3} SECS=${SECS:-1.5}
else
	ROUNDS=${ROUNDS:-7} SECS=${SECS:-2}
fi
PING=$O/examples/rpcping
PEERS=$O/bench/peers
for b in "$PING" "$PEERS/peer_tirpc_null" "$PEERS/peer_libnfs"; do
	[[ -x $b ]] || bl_die "$b is missing (make bench-rpc builds it)"
done

BL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-rpc.XXXXXX")
BL_ERRLOG=$O/bench-rpc.err
: >"$BL_ERRLOG"
trap 'bl_servers_down; rm -rf "$BL_TMP"' EXIT
trap 'exit 130' INT TERM
bl_servers_up "$O/bench-rpc-run"
TSV=$O/bench-rpc.tsv
: >"$TSV"
H=$XPRT_NFS_HOST
bl_log "ganesha NFS $H:$XPRT_NFS_PORT; $ROUNDS rounds x ${SECS}s per run; load: $(cut -d' ' -f1-3 /proc/loadavg)"

ours() { # CASE ROUND DEPTH
	local mode=(-d "$3")
	[[ $3 == 1 ]] && mode=(-S)
	bl_timed "$TSV" "$1" ours "$2" norm_rpcping \
		"$PING" "${mode[@]}" -a sys -j -t "$SECS" -p "$XPRT_NFS_PORT" "$H" 100003 3
}

peer() { # CASE ROUND DEPTH
	if [[ $3 == 1 ]]; then
		bl_timed "$TSV" "$1" tirpc "$2" norm_peer \
			"$PEERS/peer_tirpc_null" --host "$H" --port "$XPRT_NFS_PORT" \
			--auth sys --seconds "$SECS" --warmup 0.3
	else
		bl_timed "$TSV" "$1" libnfs "$2" norm_peer \
			"$PEERS/peer_libnfs" --host "$H" --nfsport "$XPRT_NFS_PORT" \
			--mountport "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT" \
			--mode null --depth "$3" --seconds "$SECS" --warmup 0.3
	fi
}

for ((r = 1; r <= ROUNDS; r++)); do
	for d in 1 16 64; do
		# alternate who goes first, so drift in the machine's load does
		# not always favour the same side
		if ((r % 2)); then
			ours "null-$d" "$r" "$d"
			peer "null-$d" "$r" "$d"
		else
			peer "null-$d" "$r" "$d"
			ours "null-$d" "$r" "$d"
		fi
	done
done

bl_summary "$TSV" "NFSv3 NULL against ganesha (TCP loopback, AUTH_SYS), $ROUNDS x ${SECS}s" \
	"{'null-1': [('rate', '>=', 1.0, 'rate >= 1.0x libtirpc'),
	             ('cpu', '<=', 0.6, 'CPU/call <= 0.6x libtirpc')],
	  'null-16': [('rate', '>=', 1.2, 'rate >= 1.2x libnfs')]}" \
	"$O/bench-rpc"
