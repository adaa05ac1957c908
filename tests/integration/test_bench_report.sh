#!/usr/bin/env bash
# The benches' text report is fio 3.33's: the same job run by real fio
# (psync, on a local file, --thread as the benches' jobs are threads) and
# by mem-bench, nfs3-bench (ganesha) and p9-bench (diod) gives the same
# lines in the same order and layout, values aside (fio_layout.py says
# what is normalised), the benches' own lines after fio's.  Jobs: one job
# with fsync and a description, two jobs reported apart, two with
# group_reporting, and a job file of two reporting groups.  About 40 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${XPRT_BUILD_DIR:-$top/build/plain}
py=/usr/bin/python3
: "${XPRT_NFS_HOST:?run through scripts/run-integration.sh (no servers.env)}"
command -v fio >/dev/null || {
	echo "FAIL - fio is not installed (make deps)"
	exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-report-test.XXXXXX")
ndir=report-$$
trap 'rm -rf "$work" "${XPRT_NFS_EXPORT_DIR:?}/$ndir" "${XPRT_DIOD_EXPORT_DIR:?}/$ndir"' EXIT
mkdir -p "$XPRT_NFS_EXPORT_DIR/$ndir" "$XPRT_DIOD_EXPORT_DIR/$ndir"
NFS=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT" --directory "$ndir")
P9=(--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME"
	--directory "$ndir")
fails=0 passes=0

# the file fio reads, laid out before so that fio's report is all there is
fio --name=layout --filename="$work/fio.dat" --size=4m --rw=write --bs=64k \
	--ioengine=psync >/dev/null 2>&1 || {
	echo "FAIL - fio cannot lay out its file"
	exit 1
}

# same NAME JOB_OPTIONS...: fio's and every bench's report
same() {
	local name=$1 rc
	shift
	fio --thread --ioengine=psync --filename="$work/fio.dat" "$@" \
		>"$work/fio.txt" 2>&1 || {
		echo "FAIL - $name: fio: $(tail -3 "$work/fio.txt")"
		fails=$((fails + 1))
		return
	}
	for bench in mem nfs3 p9; do
		local -a extra=()
		case $bench in
		nfs3) extra=("${NFS[@]}") ;;
		p9) extra=("${P9[@]}") ;;
		esac
		"$bdir/bench/$bench-bench" "$@" "${extra[@]}" --eta never \
			>"$work/$bench.txt" 2>"$work/$bench.err"
		rc=$?
		if ((rc)); then
			echo "FAIL - $name: $bench-bench exit $rc: $(tail -3 "$work/$bench.err")"
			fails=$((fails + 1))
		elif "$py" "$top/tests/integration/fio_layout.py" "$work/fio.txt" \
			"$work/$bench.txt" >"$work/diff" 2>&1; then
			echo "ok - $name: $bench-bench prints fio's report ($(wc -l <"$work/fio.txt") lines of fio)"
			passes=$((passes + 1))
		else
			echo "FAIL - $name: $bench-bench's report is not fio's:"
			sed 's/^/    /' "$work/diff"
			fails=$((fails + 1))
		fi
	done
}

same "one job, fsync" --name=golden --rw=randrw --bs=4k --size=4m \
	--runtime=2 --time_based --fsync=8 --description=fio-layout
same "two jobs, percentile_list" --name=per --rw=randread --bs=4k --size=4m \
	--runtime=2 --time_based --numjobs=2 --percentile_list=50:99.9:99.995
same "group_reporting" --name=grp --rw=randrw --bs=4k --size=4m \
	--runtime=2 --time_based --numjobs=2 --group_reporting

# a job file: two sections in group 0, a stonewall, a section of two jobs
# in group 1 (the jobs' lines first, then each group's status)
cat >"$work/jobs.fio" <<EOF
[global]
rw=randread
bs=4k
size=4m
runtime=1
time_based
[a]
[b]
rw=randwrite
[c]
stonewall
numjobs=2
EOF
same "job file, two groups" "$work/jobs.fio"

# the benches' own lines come after all of fio's, under their own heading
# (here the job file's: one heading per section)
last_fio=$(grep -n '^Run status group' "$work/mem.txt" | tail -1 | cut -d: -f1)
first_own=$(grep -n '^mem-bench (libxprt fio): back-end=mem' "$work/mem.txt" |
	head -1 | cut -d: -f1)
if [[ -n $last_fio && -n $first_own ]] && ((last_fio < first_own)) &&
	(($(grep -c '^mem-bench (libxprt fio): .*, section=[abc], group=[01]$' \
		"$work/mem.txt") == 3)); then
	echo "ok - the bench's own lines follow fio's report, one heading a section"
	passes=$((passes + 1))
else
	echo "FAIL - the bench's own lines are not after fio's, headed per section:"
	sed 's/^/    /' "$work/mem.txt"
	fails=$((fails + 1))
fi

echo "test_bench_report: $passes passed, $fails failed"
((fails == 0))
