#!/usr/bin/env bash
# The benches' MPI mode against real servers: mpirun starts 4 ranks of
# nfs3-bench against ganesha and of p9-bench against diod and ganesha's
# 9P; rank 0's report must hold every rank's jobs, each job's own file
# must exist on the server with its size, and an ior pass with --verify
# over 3 ranks must find every rank's data intact (no two ranks share a
# file).  A bench that is not built, or built without MPI (make MPI=0),
# fails the test.  (The TSan build links no MPI: scripts/run-integration.sh
# does not run this test there.)
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -euo pipefail
b=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/bench
tmp=$(mktemp -d /tmp/xprt-bench-mpi-XXXXXX)
d=mpi-$$
trap 'rm -rf "$tmp" "$XPRT_NFS_EXPORT_DIR/$d" "$XPRT_DIOD_EXPORT_DIR/$d"' EXIT
MPIRUN=(mpirun --oversubscribe)
((EUID)) || MPIRUN+=(--allow-run-as-root)
export ASAN_OPTIONS="${ASAN_OPTIONS:-} detect_leaks=0" # Open MPI's own
fail() { echo "test_bench_mpi: FAIL: $*" >&2; exit 1; }
ran=0

usable() { # BIN: built, and with MPI
	if [[ ! -x $1 ]]; then
		echo "cannot run ${1##*/}: not built"
		return 1
	fi
	if [[ $(ldd "$1") != *libmpi* ]]; then
		echo "cannot run ${1##*/}: built without MPI"
		return 1
	fi
	command -v mpirun >/dev/null || { echo "cannot run ${1##*/}: no mpirun"; return 1; }
}

# check JSON NRANKS JOBS_PER_RANK EXPORT_DIR: report shape and the files
check() {
	python3 - "$@" <<'PY' || fail "report $1"
import json, os, sys
path, nr, per, root = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = json.load(open(path))
jobs, agg = d["jobs"], d["xprt"]["aggregate"]
assert d["xprt"]["status"]["ok"] is True, d["xprt"]["status"]
assert d["xprt"]["mpi"]["ranks"] == nr and len(jobs) == nr * per == agg["xprt"]["jobs"]
assert sorted(j["xprt"]["jobid"] for j in jobs) == list(range(nr * per))
assert sorted({j["xprt"]["rank"] for j in jobs}) == list(range(nr))
for k in ("read", "write"):
    assert agg[k]["total_ios"] == sum(j[k]["total_ios"] for j in jobs)
files = {j["xprt"]["filename"] for j in jobs}
assert len(files) == nr * per, "ranks shared files"
size = d["xprt"]["options"]["size"]
for f in files:
    st = os.stat(os.path.join(root, f))
    assert st.st_size >= size, (f, st.st_size)
PY
}

nfs=$b/nfs3-bench
if usable "$nfs"; then
	mkdir -p "$XPRT_NFS_EXPORT_DIR/$d"
	N=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
		--export "$XPRT_NFS_EXPORT" --directory "$d" --eta never)
	"${MPIRUN[@]}" -np 4 "$nfs" "${N[@]}" --rw randrw --bs 4k --size 1m \
		--numjobs 2 --iodepth 4 --ramp_time 500ms --time_based --runtime 2 \
		--output-format json --output "$tmp/nfs.json" 2>"$tmp/err" ||
		fail "nfs3-bench under mpirun: $(cat "$tmp/err")"
	check "$tmp/nfs.json" 4 2 "$XPRT_NFS_EXPORT_DIR"
	"${MPIRUN[@]}" -np 3 "$nfs" "${N[@]}" --name ior --workload ior --rw rw \
		--bs 64k --size 2m --numjobs 2 --verify --output-format json \
		--output "$tmp/nfs-ior.json" 2>"$tmp/err" ||
		fail "nfs3-bench ior --verify under mpirun: $(cat "$tmp/err")"
	python3 -c "
import json; d = json.load(open('$tmp/nfs-ior.json'))
assert d['xprt']['ior']['tasks'] == 6 and d['xprt']['aggregate']['xprt']['verify_errors'] == 0
assert all(r['bytes'] == 6 * 2 << 20 for r in d['xprt']['ior']['results'])" ||
		fail "nfs3-bench ior report"
	echo "ok nfs3-bench: 4 ranks randrw, 3 ranks ior --verify"
	ran=$((ran + 1))
fi

p9=$b/p9-bench
if usable "$p9"; then
	mkdir -p "$XPRT_DIOD_EXPORT_DIR/$d"
	for srv in diod ganesha; do
		if [[ $srv == diod ]]; then
			S=(--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME")
			root=$XPRT_DIOD_EXPORT_DIR
		else
			S=(--server "$XPRT_GANESHA_9P_HOST:$XPRT_GANESHA_9P_PORT"
				--aname "$XPRT_GANESHA_9P_ANAME")
			root=$XPRT_NFS_EXPORT_DIR
			mkdir -p "$root/$d"
		fi
		"${MPIRUN[@]}" -np 4 "$p9" "${S[@]}" --directory "$d" --name "p9$srv" \
			--rw randrw --bs 4k --size 1m --numjobs 2 --iodepth 4 \
			--ramp_time 500ms --time_based --runtime 2 --eta never --output-format json \
			--output "$tmp/p9-$srv.json" 2>"$tmp/err" ||
			fail "p9-bench ($srv) under mpirun: $(cat "$tmp/err")"
		check "$tmp/p9-$srv.json" 4 2 "$root"
		echo "ok p9-bench against $srv: 4 ranks randrw"
	done
	ran=$((ran + 1))
fi
echo "test_bench_mpi: $ran of 2 benches run under mpirun"
((ran == 2)) || fail "both benches must run under mpirun in this build"
