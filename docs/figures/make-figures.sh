#!/usr/bin/env bash
# Regenerate the figures of docs/benchmarks.md ("Plots").
#
# usage: docs/figures/make-figures.sh [BUILDDIR] [RUN_DIR]
#   BUILDDIR  a build with mem-bench (and the MPI mode for the MPI figure;
#             skipped without it) [build/plain]
#   RUN_DIR   servers started by tests/servers/servers.sh up RUN_DIR: adds
#             the peer comparison (perf/peers against ganesha); skipped
#             when absent
# The numbers depend on the machine and its load: the figures show what
# the plots look like and what they are for, not reference results.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
o=${1:-build/plain}
[[ $o == /* ]] || o=$top/$o
run=${2:-}
out=${XPRT_FIG_DIR:-$top/docs/figures}
ext=${XPRT_FIG_EXT:-svg} # png to preview
bin=$o/bench/mem-bench
plot=$top/scripts/xprt-plot
tmp=$(mktemp -d /tmp/xprt-figures-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# 1. The engine's own latency (zero-latency back-end): 1 vs 32 in flight
"$bin" --rw randread --iodepth 1 --numjobs 1 --time_based --runtime 3 --eta never \
	--write_hist d1.hist >/dev/null
"$bin" --rw randread --iodepth 32 --numjobs 2 --time_based --runtime 3 --eta never \
	--write_hist d32.hist >/dev/null
"$plot" cdf --size 720x400 -t "mem-bench: the engine's own latency (zero-latency back-end)" \
	-o "$out/mem-engine-cdf.$ext" "depth 1=d1.hist" "depth 32 x 2 jobs=d32.hist"

# 2. A latency tail and its intervals: exact (virtual) latencies uniform
# in 100-300 us, the first 20000 I/Os of each job 5 ms
"$bin" --rw randrw --iodepth 8 --numjobs 2 --time_based --runtime 3 --mem-lat 100us:300us \
	--mem-slow 20000:5ms --mem-virtual --eta never --write_hist mix.hist \
	--write_log mix.tsv --log_interval 500ms >/dev/null
"$plot" cdf --tail --size 720x400 -t "randrw, 100-300 us, the first 20000 I/Os of each job 5 ms" \
	-o "$out/mem-tail-cdf.$ext" "mem=mix.hist"
"$plot" timeline --metric p99 --size 720x360 -t "p99 latency per 500 ms interval" \
	-o "$out/mem-p99-timeline.$ext" "mem=mix.tsv"

# 3. Four MPI ranks starting together
if [[ $(ldd "$bin") == *libmpi* ]]; then
	mpirun=(mpirun --oversubscribe)
	((EUID)) || mpirun+=(--allow-run-as-root)
	"${mpirun[@]}" -np 4 "$bin" --rw randread --iodepth 4 --numjobs 1 \
		--time_based --runtime 4 --ramp_time 500ms --mem-lat 200us --eta never \
		--write_log mpi.tsv --log_interval 250ms >/dev/null
	"$plot" timeline --metric iops --size 720x360 -t "mpirun -np 4 mem-bench: IOPS of each rank" \
		-o "$out/mpi-ranks-iops.$ext" rank0=mpi.0.tsv rank1=mpi.1.tsv \
		rank2=mpi.2.tsv rank3=mpi.3.tsv
fi

# 4. Peers against ganesha, side by side (and nfs3-bench, when built,
# on the same workloads and file)
if [[ -n $run && -f $run/servers.env ]]; then
	"$top/perf/peers/run-peers.sh" "$run" 3 "$o/bench/peers" >peers.txt
	grep -E 'op=(null|randread)' peers.txt | grep 'server=ganesha' >nfs.txt
	ours=()
	if [[ -x $o/bench/nfs3-bench ]]; then
		# shellcheck disable=SC1091
		. "$run/servers.env"
		n=("$o/bench/nfs3-bench" --server "$XPRT_NFS_HOST:$XPRT_NFS_PORT"
			--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT"
			--ramp_time 500ms --time_based --runtime 3 --eta never --output-format json)
		"${n[@]}" --rw null --iodepth 1 --output null1.json
		for d in 1 16; do
			"${n[@]}" --rw randread --bs 4k --iodepth $d \
				--filename bench64m.dat --size 64m --output "rr$d.json"
		done
		ours=("nfs3-bench null d1=null1.json"
			"nfs3-bench randread 4k d1=rr1.json"
			"nfs3-bench randread 4k d16=rr16.json")
	fi
	"$plot" compare --metric iops,p99,cpu -o "$out/peers-nfs-compare.$ext" \
		nfs.txt "${ours[@]}"
fi
ls -l "$out"/*."$ext"
