#!/usr/bin/env bash
# make bench-nfs3: nfs3-bench side by side with libnfs's async API
# (perf/peers/peer_libnfs.c) against ganesha, same file, same depth, in the
# same run.
#
# usage: scripts/bench-nfs3.sh [BUILD_DIR]    (default build/plain)
#   env: QUICK=1 (under a minute), ROUNDS=N, SECS=S (per run)
#
#   case                  ours (nfs3-bench)               peer (peer_libnfs)
#   randread-dD-jJ        --rw randread --bs 4k           --mode randread --bs 4k
#                         --iodepth D --numjobs J         --depth D, J processes
#   seqread-1m            --rw read --bs 1m --iodepth 4   --mode seqread --depth 4
#   seqwrite-1m           --rw write --bs 1m --iodepth 4  --mode seqwrite --depth 4
#
# D in 1 16 64 256, J in 1 4; reads share one 64 MiB file of random bytes
# in the server's page cache.  Our J jobs run over --nconnect J
# connections, as each of the J libnfs processes has its own: ganesha
# serves each connection from its own worker, so the connection count,
# not the client, decides its parallelism on this 2-core machine.  Both sides
# warm up 0.5 s unmeasured first.  Writes are UNSTABLE on both sides (our
# COMMIT comes after the measured time).
#
# The random reads also run nfs3-bench --libxprt-mode caller (client
# "caller": each job's thread drives its own client, --nconnect 1 each).
#
# Targets: at 16 deep >= 1.2x libnfs ops/s with <= 0.7x
# its client CPU per op, and caller-driven <= 0.7x libnfs's CPU per op and
# below threaded mode's in 4 of 5 rounds; 1 MiB READ >= 1.1x libnfs; no
# collapse as depth grows past the knee.  Results: a table, JSON on the last line, and
# BUILD_DIR/bench-nfs3.{json,md,tsv}.
set -euo pipefail
BL_NAME=bench-nfs3
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
O=${1:-build/plain}
[[ $O == /* ]] || O=$BL_TOP/$O
DEPTHS="1 16 64 256"
JOBS="1 4"
if [[ ${QUICK:-0} == 1 ]]; then
	ROUNDS=${ROUNDS:-2} SECS=${SECS:-1}
	DEPTHS="16 256"
else
	ROUNDS=${ROUNDS:-3} SECS=${SECS:-2.5}
fi
BENCH=$O/bench/nfs3-bench
PEER=$O/bench/peers/peer_libnfs
for b in "$BENCH" "$PEER"; do
	[[ -x $b ]] || bl_die "$b is missing (make bench-nfs3 builds it)"
done

BL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bench-nfs3.XXXXXX")
BL_ERRLOG=$O/bench-nfs3.err
: >"$BL_ERRLOG"
trap 'bl_servers_down; rm -rf "$BL_TMP"' EXIT
trap 'exit 130' INT TERM
bl_servers_up "$O/bench-nfs3-run"
TSV=$O/bench-nfs3.tsv
: >"$TSV"
bl_mkfile "$XPRT_NFS_EXPORT_DIR/bench64m.dat" 64
bl_log "ganesha NFS $XPRT_NFS_HOST:$XPRT_NFS_PORT; $ROUNDS rounds x ${SECS}s per run; load: $(cut -d' ' -f1-3 /proc/loadavg)"

SRV=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT")
# the engine's durations are integers with a unit
NB=(--time_based --runtime "$(awk -v s="$SECS" 'BEGIN { printf "%d", s * 1000 }')ms"
	--ramp_time 500ms --group_reporting --output-format json
	--eta never)
NP=(--host "$XPRT_NFS_HOST" --nfsport "$XPRT_NFS_PORT" --mountport "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT" --seconds "$SECS" --warmup 0.5)

# one CASE ROUND: ours and the peer, and for the random reads ours in
# caller-driven mode too, in an order that rotates from round to round
one() {
	local case=$1 r=$2 clients=(ours peer) i n
	[[ $case == randread-* ]] && clients+=(caller)
	n=${#clients[@]}
	for ((i = 0; i < n; i++)); do
		"run_${clients[(i + r) % n]}" "$case" "$r"
	done
}

run_ours() {
	local case=$1 r=$2 d j
	case $case in
	randread-*)
		d=${case#randread-d}; j=${d#*-j}; d=${d%-j*}
		bl_timed "$TSV" "$case" ours "$r" norm_bench "$BENCH" "${SRV[@]}" "${NB[@]}" \
			--filename bench64m.dat --size 64m --rw randread --bs 4k \
			--iodepth "$d" --numjobs "$j" --nconnect "$j"
		;;
	seqread-1m)
		bl_timed "$TSV" "$case" ours "$r" norm_bench "$BENCH" "${SRV[@]}" "${NB[@]}" \
			--filename bench64m.dat --size 64m --rw read --bs 1m --iodepth 4
		;;
	seqwrite-1m)
		bl_timed "$TSV" "$case" ours "$r" norm_bench "$BENCH" "${SRV[@]}" "${NB[@]}" \
			--filename ourwrite.dat --size 64m --rw write --bs 1m --iodepth 4
		;;
	esac
}

# caller-driven: each job's thread drives a client of its own, on one
# connection of its own (so J jobs, J connections, as above)
run_caller() {
	local case=$1 r=$2 d j
	d=${case#randread-d}; j=${d#*-j}; d=${d%-j*}
	bl_timed "$TSV" "$case" caller "$r" norm_bench "$BENCH" "${SRV[@]}" "${NB[@]}" \
		--filename bench64m.dat --size 64m --rw randread --bs 4k \
		--iodepth "$d" --numjobs "$j" --nconnect 1 --libxprt-mode caller
}

run_peer() {
	local case=$1 r=$2 d j
	case $case in
	randread-*)
		d=${case#randread-d}; j=${d#*-j}; d=${d%-j*}
		bl_timed "$TSV" "$case" libnfs "$r" norm_multi bl_parallel "$j" \
			"$PEER" "${NP[@]}" --mode randread --bs 4k --depth "$d" \
			--file /bench64m.dat
		;;
	seqread-1m)
		bl_timed "$TSV" "$case" libnfs "$r" norm_peer "$PEER" "${NP[@]}" \
			--mode seqread --bs 1m --depth 4 --file /bench64m.dat
		;;
	seqwrite-1m)
		bl_timed "$TSV" "$case" libnfs "$r" norm_peer "$PEER" "${NP[@]}" \
			--mode seqwrite --bs 1m --depth 4 --file /peerwrite.dat --size 64m
		;;
	esac
}

cases=()
for j in $JOBS; do
	[[ ${QUICK:-0} == 1 && $j == 4 ]] && continue
	for d in $DEPTHS; do cases+=("randread-d$d-j$j"); done
done
[[ ${QUICK:-0} == 1 ]] && cases+=("randread-d16-j4")
cases+=(seqread-1m seqwrite-1m)

for ((r = 1; r <= ROUNDS; r++)); do
	for c in "${cases[@]}"; do one "$c" "$r"; done
done

series="{"
for j in $JOBS; do
	list=""
	for d in $DEPTHS; do list+="'randread-d$d-j$j', "; done
	series+="'randread numjobs $j': [$list], "
done
series+="}"
bl_summary "$TSV" "NFSv3 against ganesha (TCP loopback): nfs3-bench vs libnfs, $ROUNDS x ${SECS}s" \
	"{'randread-d16-j1': [('rate', '>=', 1.2, 'ops >= 1.2x libnfs'),
	                      ('cpu', '<=', 0.7, 'CPU/op <= 0.7x libnfs'),
	                      ('caller_cpu', '<=', 0.7, 'caller CPU/op <= 0.7x libnfs'),
	                      ('caller_rounds', '>=', 0.8,
	                       'caller CPU/op below threaded in >= 4 of 5 rounds')],
	  'seqread-1m': [('rate', '>=', 1.1, 'READ 1 MiB >= 1.1x libnfs')]}" \
	"$O/bench-nfs3" "$series"
