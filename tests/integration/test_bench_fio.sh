#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# shellcheck disable=SC2015 # "A && ok ... || bad ...": ok never fails
# fio's users at home, against the real servers (run by
# scripts/run-integration.sh):
#   1. fio's JSON: nfs3-bench's json+ has every key of a real fio 3.33
#      run's (fio itself, sync engine, on a local file), but for the
#      allow-list below; fio_jsonplus_clat2csv reads ours; xprt-plot
#      draws fio's JSON beside ours;
#   2. fio's logs: fio2gnuplot and fiologparser_hist.py read ours;
#   3. job files: the seed experiments of examples/fio/ on both benches,
#      server options as job-file keys, and every job of Debian's
#      fio-examples that examples/fio/fio-examples.list says runs;
#   4. nfs:// and 9p:// URLs in --server and --filename, fio's libnfs
#      engine's --ioengine=nfs --nfs_url (command line and job file);
#   5. --size=P% and --offset=P% of a file's real size (the back-ends'
#      stat: LOOKUP attributes, Twalk + Tgetattr), fio's figures;
#   6. rw=read:SIZE holes: the offsets of a live fio run (--write_iolog)
#      are those of our --log_offset=1 latency logs;
#   7. --rate_min: a job held under it fails as fio's does.
# fio's tools run with Debian's python3 (/usr/bin/python3: pandas, six),
# installed by `make deps` (scripts/deps.sh servers).  About 60-90 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bdir=${XPRT_BUILD_DIR:-$top/build/plain}
nfs=$bdir/bench/nfs3-bench
p9=$bdir/bench/p9-bench
py=/usr/bin/python3
: "${XPRT_NFS_HOST:?run through scripts/run-integration.sh (no servers.env)}"
for t in fio fio_jsonplus_clat2csv fio2gnuplot gnuplot "$py"; do
	command -v "$t" >/dev/null || {
		echo "FAIL - $t is not installed (make deps)"
		exit 1
	}
done
"$py" -c 'import pandas, six' 2>/dev/null || {
	echo "FAIL - python3-pandas or python3-six missing (make deps)"
	exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-fio-test.XXXXXX")
ndir=fio-compat-$$
trap 'rm -rf "$work" "${XPRT_NFS_EXPORT_DIR:?}/$ndir" "${XPRT_DIOD_EXPORT_DIR:?}/$ndir"' EXIT
mkdir -p "$XPRT_NFS_EXPORT_DIR/$ndir" "$XPRT_DIOD_EXPORT_DIR/$ndir"
NFS=(--server "$XPRT_NFS_HOST:$XPRT_NFS_PORT" --mount-port "$XPRT_MNT_PORT"
	--export "$XPRT_NFS_EXPORT")
P9=(--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" --aname "$XPRT_DIOD_ANAME")
fails=0 passes=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"
ok() {
	echo "ok - $*"
	passes=$((passes + 1))
}

# run NAME BIN ARGS...: exit 0 wanted; stderr kept in $work/err
run() {
	local name=$1 rc
	shift
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	check_exit "$name" 0 "$rc" "" "$work/err" && passes=$((passes + 1))
}

# ------------------------------------------------------------ 1. JSON
cd "$work" || exit 1
fio --name=ref --ioengine=sync --filename="$work/ref.dat" --size=4m \
	--bs=4k --rw=randrw --time_based --runtime=1 --output-format=json+ \
	--output="$work/fio.json" >/dev/null 2>"$work/fio.err" &&
	ok "fio 3.33 wrote the reference JSON" || bad "fio: $(cat "$work/fio.err")"
run "nfs3-bench json+" "$nfs" "${NFS[@]}" --directory "$ndir" --rw randrw \
	--size 4m --time_based --runtime 2 --iodepth 4 --output-format json+ \
	--output "$work/ours.json" --eta never
# Keys fio has and we do not, and why (the documented allow-list):
#   disk_util  fio's view of the local disks; a network client has none
allow='disk_util'
"$py" - "$work/fio.json" "$work/ours.json" "$allow" <<'PY' &&
import json, sys
ref, ours = (json.load(open(p)) for p in sys.argv[1:3])
allow = set(sys.argv[3].split())
# objects keyed by values (options, percentiles, bins): only their presence
VALUES = {"job options", "percentile", "bins"}
def keys(d, p=""):
    out = set()
    if isinstance(d, dict):
        for k, v in d.items():
            q = p + "/" + k
            out.add(q)
            if k not in VALUES:
                out |= keys(v, q)
    elif isinstance(d, list) and d:
        out |= keys(d[0], p + "[]")
    return out
def allowed(k):
    return k.strip("/").split("/")[0].rstrip("[]") in allow
missing = sorted(k for k in keys(ref) - keys(ours) if not allowed(k))
extra = sorted(k for k in keys(ours) - keys(ref)
               if "/xprt" not in k and not k.startswith("/global options"))
if missing or extra:
    print("missing:", missing, "\nextra outside xprt:", extra)
    sys.exit(1)
j = ours["jobs"][0]
for k in ("iodepth", "bs", "rw"):
    assert isinstance(j["job options"][k], str), k
assert j["read"]["clat_ns"]["bins"] and j["read"]["iops_samples"] > 0
PY
	ok "every key of fio's JSON is in ours (allow-list: $allow); ours only under xprt" ||
	bad "the JSON keys differ from fio's"
if (cd "$work" && fio_jsonplus_clat2csv ours.json ours.csv >"$work/csv.log" 2>&1) &&
	head -1 "$work"/ours*_job0.csv | grep -q read_clat_ns_count &&
	(($(wc -l <"$work"/ours*_job0.csv) > 10)); then
	ok "fio_jsonplus_clat2csv reads our json+ ($(wc -l <"$work"/ours*_job0.csv) rows)"
else
	bad "fio_jsonplus_clat2csv: $(cat "$work/csv.log")"
fi
if "$top/scripts/xprt-plot" cdf -o "$work/cdf.svg" fio="$work/fio.json" \
	ours="$work/ours.json" >"$work/plot.log" 2>&1 &&
	"$top/scripts/xprt-plot" compare -o "$work/cmp.svg" --metric iops,p99 \
		fio="$work/fio.json" ours="$work/ours.json" >>"$work/plot.log" 2>&1 &&
	"$py" -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' \
		"$work/cdf.svg" "$work/cmp.svg"; then
	ok "xprt-plot draws fio's JSON beside ours (cdf, compare)"
else
	bad "xprt-plot: $(tail -3 "$work/plot.log")"
fi
run "terse and normal together" "$nfs" "${NFS[@]}" --directory "$ndir" \
	--rw read --size 1m --output-format=terse,normal --eta never
grep -q '^3;fio-3.33;' "$work/out" && grep -q 'Run status' "$work/out" &&
	ok "--output-format=terse,normal writes both" || bad "no terse line or text"

# ------------------------------------------------------------ 2. logs
mkdir -p "$work/logs"
run "fio logs from nfs3-bench" "$nfs" "${NFS[@]}" --directory "$ndir" \
	--rw randrw --size 4m --time_based --runtime 2 --iodepth 4 \
	--write_lat_log="$work/logs/r" --write_bw_log="$work/logs/r" \
	--write_iops_log="$work/logs/r" --write_hist_log="$work/logs/r" \
	--log_hist_msec=250 --eta never
n=$(wc -l <"$work/logs/r_lat.1.log")
[[ $n -gt 100 && -s $work/logs/r_bw.1.log && -s $work/logs/r_iops.1.log ]] &&
	ok "per-I/O lat, bw and iops logs ($n lines)" || bad "logs: $n lat lines"
if (cd "$work/logs" && fio2gnuplot -b -g -d "$work/logs/gp" >"$work/gp.log" 2>&1) &&
	ls "$work"/logs/gp/*.png >/dev/null 2>&1; then
	ok "fio2gnuplot plots our bandwidth logs"
else
	bad "fio2gnuplot: $(tail -3 "$work/gp.log")"
fi
zcat /usr/share/doc/fio/fiologparser_hist.py.gz >"$work/fiologparser_hist.py"
if "$py" "$work/fiologparser_hist.py" "$work/logs/r_clat_hist.1.log" \
	>"$work/hist.out" 2>&1 && grep -qE '^[0-9]+, [0-9]+,' "$work/hist.out"; then
	ok "fiologparser_hist.py reads our histogram log ($(($(wc -l <"$work/hist.out") - 1)) intervals)"
else
	bad "fiologparser_hist.py: $(tail -3 "$work/hist.out")"
fi

# ------------------------------------------------------------ 3. job files
short=(--runtime=1 --size=4m --numjobs=4 --directory="$ndir"
	--output-format=json --eta=never)
for f in "$top"/examples/fio/*.fio; do
	run "nfs3-bench $(basename "$f")" "$nfs" "${NFS[@]}" "$f" "${short[@]}"
	run "p9-bench $(basename "$f")" "$p9" "${P9[@]}" "$f" "${short[@]}"
done
run "sbitmap sweep" "$nfs" "${NFS[@]}" "$top/examples/fio/sbitmap-depth-sweep.fio" \
	"${short[@]}"
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert [j["groupid"] for j in d["jobs"]] == list(range(6)), d["jobs"]
assert [j["job options"]["iodepth"] for j in d["jobs"]] == ["2", "4", "8", "16", "32", "64"]
assert all(s["status"]["ok"] for s in d["xprt"]["sections"])' "$work/out" &&
	ok "the sweep ran six groups, iodepth 2..64, one after the other" ||
	bad "sweep report: $(head -c 300 "$work/out")"
cat >"$work/server.fio" <<'EOF'
; the server in the job file, from the environment
[global]
server=${FIO_NFS_SERVER}
mount-port=${FIO_NFS_MOUNT}
export=/export
rw=randread
bs=4k
size=1m
time_based
runtime=1

[reader]
iodepth=8
EOF
FIO_NFS_SERVER=$XPRT_NFS_HOST:$XPRT_NFS_PORT FIO_NFS_MOUNT=$XPRT_MNT_PORT \
	run "server options as job-file keys" "$nfs" "$work/server.fio" \
	--directory="$ndir" --eta=never
ex=/usr/share/doc/fio/examples
[[ -d $ex ]] || bad "$ex missing (Debian's fio-examples: make deps)"
while read -r f what extra; do
	[[ $f == \#* || -z $f || $what != run ]] && continue
	# shellcheck disable=SC2086 # extra: options, split on purpose
	run "fio-examples $f (nfs3-bench)" "$nfs" "${NFS[@]}" "$ex/$f" \
		"${short[@]}" $extra
	# shellcheck disable=SC2086
	run "fio-examples $f (p9-bench)" "$p9" "${P9[@]}" "$ex/$f" \
		"${short[@]}" $extra
done <"$top/examples/fio/fio-examples.list"
n=$(grep -vc '^#' "$top/examples/fio/fio-examples.list")
[[ $n == $(find "$ex" -name '*.fio' | wc -l) ]] &&
	ok "fio-examples.list covers all $n job files" ||
	bad "fio-examples.list has $n lines for $(find "$ex" -name '*.fio' | wc -l) files"

# ------------------------------------------------------------ 4. URLs
q="nfsport=$XPRT_NFS_PORT&mountport=$XPRT_MNT_PORT"
run "nfs3-bench --server nfs://" "$nfs" \
	--server "nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT?$q&version=3" \
	--directory "$ndir" --rw write --size 1m --eta never
run "nfs3-bench --filename nfs://" "$nfs" \
	--filename "nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT/$ndir/url.dat?$q&uid=0&gid=0" \
	--rw write --size 1m --eta never
[[ $(stat -c %s "$XPRT_NFS_EXPORT_DIR/$ndir/url.dat" 2>/dev/null) == 1048576 ]] &&
	ok "the --filename URL's file is on the export" || bad "no url.dat on the export"
run "p9-bench --server 9p://" "$p9" \
	--server "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME?msize=64k" \
	--directory "$ndir" --rw write --size 1m --eta never
run "p9-bench --filename 9p://" "$p9" \
	--filename "9p://$XPRT_DIOD_HOST:$XPRT_DIOD_PORT$XPRT_DIOD_ANAME/$ndir/url9.dat" \
	--rw write --size 1m --eta never
[[ $(stat -c %s "$XPRT_DIOD_EXPORT_DIR/$ndir/url9.dat" 2>/dev/null) == 1048576 ]] &&
	ok "the 9p:// --filename's file is in diod's export" || bad "no url9.dat"
# fio's libnfs engine's names: --ioengine=nfs and nfs_url for the server
# and export, on the command line and in a job file
run "nfs3-bench --ioengine=nfs --nfs_url" "$nfs" --ioengine=nfs \
	--nfs_url "nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT?$q" \
	--filename "$ndir/nfsurl.dat" --rw write --size 1m --eta never
[[ $(stat -c %s "$XPRT_NFS_EXPORT_DIR/$ndir/nfsurl.dat" 2>/dev/null) == 1048576 ]] &&
	ok "--nfs_url's export holds the job's file" || bad "no nfsurl.dat on the export"
cat >"$work/nfsurl.fio" <<EOF
[global]
ioengine=nfs
nfs_url=nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT?$q
[w]
filename=$ndir/nfsurl-job.dat
rw=write
size=512k
EOF
run "nfs3-bench job file with ioengine=nfs, nfs_url" "$nfs" "$work/nfsurl.fio" \
	--eta never
[[ $(stat -c %s "$XPRT_NFS_EXPORT_DIR/$ndir/nfsurl-job.dat" 2>/dev/null) == 524288 ]] &&
	ok "the job file's nfs_url export holds its file" || bad "no nfsurl-job.dat on the export"
"$p9" --nfs_url "nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT" --rw write \
	>/dev/null 2>"$work/err"
check_exit "p9-bench --nfs_url" 2 $? "is not an nfs://SERVER/EXPORT URL" \
	"$work/err" && passes=$((passes + 1))
"$nfs" --server "nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT?$q&version=4" \
	>/dev/null 2>"$work/err"
check_exit "nfs:// with version=4" 2 $? "NFS version 3 only" "$work/err" &&
	passes=$((passes + 1))

# ------------------------------------------------------------ 5. P%
# a 1 MiB file (written by the bench); fio 3.33 on such a file reads
# 524288 bytes for size=50% and 76 blocks of 4k for size=30% offset=33%
# jbytes FILE: the read bytes of the JSON report's first job
jbytes() {
	"$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["io_bytes"])' "$1"
}
for be in nfs3 p9; do
	if [[ $be == nfs3 ]]; then bin=$nfs args=("${NFS[@]}"); else bin=$p9 args=("${P9[@]}"); fi
	run "$be-bench: a 1m file for the percentages" "$bin" "${args[@]}" \
		--filename "$ndir/pct.dat" --rw write --size 1m --eta never
	run "$be-bench --size 50%" "$bin" "${args[@]}" --filename "$ndir/pct.dat" \
		--rw read --bs 4k --size 50% --eta never --output-format json \
		--output "$work/pct.json"
	[[ $(jbytes "$work/pct.json") == 524288 ]] &&
		ok "$be-bench --size 50% read half the file" ||
		bad "$be-bench --size 50% read $(jbytes "$work/pct.json") bytes"
	run "$be-bench --size 30% --offset 33%" "$bin" "${args[@]}" \
		--filename "$ndir/pct.dat" --rw read --bs 4k --size 30% \
		--offset 33% --eta never --output-format json --output "$work/pct.json"
	[[ $(jbytes "$work/pct.json") == $((76 * 4096)) ]] &&
		ok "$be-bench --size 30% --offset 33%: fio's 76 blocks" ||
		bad "$be-bench --size 30% --offset 33% read $(jbytes "$work/pct.json") bytes"
	"$bin" "${args[@]}" --filename "$ndir/nosuch.dat" --rw read --size 50% \
		--eta never >/dev/null 2>"$work/err"
	check_exit "$be-bench --size 50% of a missing file" 1 $? \
		"you need to specify size=" "$work/err" && passes=$((passes + 1))
done

# ------------------------------------------------------------ 6. holes
# fioffs IOLOG: the offsets of an iolog's reads and writes, one a line
fioffs() { awk '$3 == "read" || $3 == "write" { print $4 }' "$1"; }
# ouroffs LATLOG: the offset column of a --log_offset=1 log
ouroffs() { awk -F', ' '{ print $5 }' "$1"; }
for spec in "read:4k 64k 0" "write:8k 64k 0" "read:12k 64k 0" "write:12k 256k 8k" \
	"read:-12k 64k 0"; do
	read -r mode size off <<<"$spec"
	rm -f "$work/hole.dat" "$work/hole.iolog"
	fio --name=hole --ioengine=psync --filename="$work/hole.dat" \
		--rw="$mode" --bs=4k --size="$size" --offset="$off" \
		--write_iolog="$work/hole.iolog" >/dev/null 2>&1
	fioffs "$work/hole.iolog" >"$work/hole.fio"
	for be in nfs3 p9; do
		if [[ $be == nfs3 ]]; then bin=$nfs args=("${NFS[@]}"); else bin=$p9 args=("${P9[@]}"); fi
		rm -f "$work"/hole_*.log
		run "$be-bench --rw $mode" "$bin" "${args[@]}" --filename "$ndir/hole.dat" \
			--rw "$mode" --bs 4k --size "$size" --offset "$off" --eta never \
			--write_lat_log "$work/hole" --log_offset=1
		ouroffs "$work/hole_lat.1.log" >"$work/hole.ours"
		if [[ -s $work/hole.fio ]] && cmp -s "$work/hole.fio" "$work/hole.ours"; then
			ok "$be-bench --rw $mode --offset $off: fio's $(wc -l <"$work/hole.fio") offsets"
		else
			bad "$be-bench --rw $mode: offsets differ from fio's"
			diff "$work/hole.fio" "$work/hole.ours" | head -5 | sed 's/^/    | /'
		fi
	done
done

# offset_increment: two jobs' regions of one shared file, against fio's
rm -f "$work/oi.dat" "$work"/oi_lat.*.log
fio --name=oi --ioengine=psync --filename="$work/oi.dat" --rw=read --bs=16k \
	--size=64k --numjobs=2 --offset_increment=64k --offset=16k \
	--write_lat_log="$work/oi" --log_offset=1 >/dev/null 2>&1
for be in nfs3 p9; do
	if [[ $be == nfs3 ]]; then bin=$nfs args=("${NFS[@]}"); else bin=$p9 args=("${P9[@]}"); fi
	rm -f "$work"/oio_lat.*.log
	run "$be-bench --offset_increment" "$bin" "${args[@]}" --filename "$ndir/oi.dat" \
		--rw read --bs 16k --size 64k --numjobs 2 --offset_increment 64k \
		--offset 16k --eta never --write_lat_log "$work/oio" --log_offset=1
	same=1
	for k in 1 2; do
		ouroffs "$work/oi_lat.$k.log" | sort -n >"$work/oi.fio"
		ouroffs "$work/oio_lat.$k.log" | sort -n >"$work/oi.ours"
		[[ -s $work/oi.fio ]] && cmp -s "$work/oi.fio" "$work/oi.ours" || same=0
	done
	((same)) && ok "$be-bench --offset_increment: each job's offsets are fio's" ||
		bad "$be-bench --offset_increment: offsets differ from fio's"
done

# ------------------------------------------------------------ 7. rate_min
# thinktime 10ms holds a job under 400 KB/s: rate_min=10m is missed after
# fio's 2 s settle and a 200 ms cycle; fio 3.33 says "NAME: rate_min=...
# not met, got ...B/s" and the job fails with EIO
for be in nfs3 p9; do
	if [[ $be == nfs3 ]]; then bin=$nfs args=("${NFS[@]}"); else bin=$p9 args=("${P9[@]}"); fi
	"$bin" "${args[@]}" --filename "$ndir/pct.dat" --rw read --bs 4k \
		--size 1m --time_based --runtime 20 --thinktime 10ms \
		--rate_min 10m --ratecycle 200 --eta never >/dev/null 2>"$work/err"
	check_exit "$be-bench --rate_min missed" 1 $? \
		"job0: rate_min=10485760B/s not met, got" "$work/err" &&
		passes=$((passes + 1))
done

echo "test_bench_fio: $passes passed, $fails failed"
exit $((fails > 0))
