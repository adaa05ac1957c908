#!/usr/bin/env bash
# scripts/xprt-plot end to end: a mem-bench run writes its JSON report,
# interval log and histogram dump; every kind of figure is drawn from them
# (and from peers' RESULT lines) as SVG and PNG, and each file must be a
# valid image: the SVG parses as XML with an <svg> root and drawn paths,
# the PNG has its signature, the asked size and an IEND chunk.
#
# usage: tests/bench/test_plot.sh BUILDDIR      (make check-plot)
set -euo pipefail
o=${1:?usage: test_plot.sh BUILDDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$o/bench/mem-bench
plot=$top/scripts/xprt-plot
tmp=$(mktemp -d /tmp/xprt-plot-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "test_plot: FAIL: $*" >&2; exit 1; }
command -v gnuplot >/dev/null || fail "gnuplot is not installed (scripts/deps.sh mpi)"

"$bin" --rw randrw --time_based --runtime 2 --numjobs 2 --iodepth 4 --mem-lat 50us:400us \
	--write_log "$tmp/run.tsv" --log_per_job --log_interval 250ms \
	--write_hist "$tmp/run.hist" --output-format json --output "$tmp/a.json" \
	--eta never
"$bin" --rw randread --time_based --number_ios 20000 --mem-lat 100us --mem-virtual \
	--output-format json --output "$tmp/b.json" --eta never
cat >"$tmp/peers.txt" <<'R'
some other output
RESULT peer=libnfs op=randread depth=16 bs=4096 ops=231660 seconds=5.000 ops_per_s=46332 mib_per_s=181.0 cpu_us_per_op=5.65 usr_s=1.0 sys_s=0.3 p50_us=344.1 p90_us=400.0 p99_us=589.8 p999_us=700.0 max_us=900.0 errors=0 server=ganesha server_cpu_pct=104
RESULT peer=p9 op=read depth=1 bs=4096 ops=100000 seconds=5.000 ops_per_s=20000 mib_per_s=78.1 cpu_us_per_op=6.00 usr_s=0.5 sys_s=0.1 p50_us=45.0 p90_us=50.0 p99_us=80.0 p999_us=90.0 max_us=120.0 errors=0
R

figs=()
draw() { # OUT ARGS...
	local out=$tmp/$1
	shift
	"$plot" "$@" -o "$out" || fail "xprt-plot $* -o $out"
	figs+=("$out")
}
for ext in svg png; do
	draw "cdf-hist.$ext" cdf "ours=$tmp/run.hist"
	draw "cdf-json.$ext" cdf -t "two runs" "$tmp/a.json" "virtual=$tmp/b.json"
	draw "cdf-tail.$ext" cdf --tail --dir read "$tmp/run.hist" "$tmp/b.json"
	draw "iops.$ext" timeline --metric iops --jobs "$tmp/run.tsv"
	draw "p99.$ext" timeline --metric p99 --dir write "$tmp/run.tsv"
	draw "bw.$ext" timeline --metric bw --size 640x400 "$tmp/run.tsv"
	draw "cmp.$ext" compare --metric iops "ours=$tmp/a.json" "$tmp/b.json" "$tmp/peers.txt"
	draw "cmp3.$ext" compare --metric iops,p99,cpu "$tmp/a.json" "$tmp/peers.txt"
done

python3 - "${figs[@]}" <<'PY' || fail "a figure is not a valid image"
import struct, sys, zlib
import xml.etree.ElementTree as ET
for f in sys.argv[1:]:
    data = open(f, "rb").read()
    assert len(data) > 1000, (f, len(data))
    if f.endswith(".svg"):
        root = ET.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", (f, root.tag)
        drawn = [e for e in root.iter() if e.tag.endswith(("path", "polyline", "rect"))]
        assert len(drawn) > 10, (f, len(drawn))
        texts = "".join(e.text or "" for e in root.iter() if e.tag.endswith("text"))
        assert texts, f
    else:
        assert data[:8] == b"\x89PNG\r\n\x1a\n", f
        n, kind = struct.unpack(">I4s", data[8:16])
        assert kind == b"IHDR", f
        w, h = struct.unpack(">II", data[16:24])
        want = (640, 400) if "/bw." in f else (800, 860) if "cmp3" in f else (800, 480)
        assert (w, h) == want, (f, w, h, want)
        assert data[-8:-4] == b"IEND", f
        # every chunk's CRC is right
        off = 8
        while off < len(data):
            ln, = struct.unpack(">I", data[off:off + 4])
            body = data[off + 4:off + 8 + ln]
            crc, = struct.unpack(">I", data[off + 8 + ln:off + 12 + ln])
            assert zlib.crc32(body) == crc, (f, off)
            off += 12 + ln
print(f"{len(sys.argv) - 1} figures valid")
PY
if command -v file >/dev/null; then
	for f in "${figs[@]}"; do
		case $f in
		*.svg) [[ $(file -b "$f") == *SVG* ]] || fail "file(1): $f: $(file -b "$f")" ;;
		*.png) [[ $(file -b "$f") == *'PNG image data'* ]] || fail "file(1): $f: $(file -b "$f")" ;;
		esac
	done
fi
if command -v xmllint >/dev/null; then
	for f in "${figs[@]}"; do
		[[ $f == *.svg ]] && { xmllint --noout "$f" || fail "xmllint: $f"; }
	done
fi

# usage errors: exit 2 and a message, no figure
expect2() {
	local rc=0
	"$plot" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	((rc == 2)) || fail "xprt-plot $* exited $rc, not 2"
	grep -q '^xprt-plot: ' "$tmp/err" || fail "xprt-plot $*: no message"
}
expect2 cdf "$tmp/run.hist"                       # no -o
expect2 cdf -o "$tmp/x.jpg" "$tmp/run.hist"       # unknown format
expect2 cdf -o "$tmp/x.svg" "$tmp/missing.hist"   # unreadable
expect2 cdf -o "$tmp/x.svg" "$tmp/run.tsv"        # a log is not a dump
expect2 timeline -o "$tmp/x.svg" "$tmp/run.hist"  # nor the reverse
expect2 timeline -o "$tmp/x.svg" --metric nope "$tmp/run.tsv"
expect2 compare -o "$tmp/x.svg" --metric iops,bogus "$tmp/a.json"
expect2 compare -o "$tmp/x.svg" "$tmp/run.tsv"    # neither JSON nor RESULT
expect2 draw -o "$tmp/x.svg" "$tmp/a.json"        # unknown command
[[ ! -e $tmp/x.svg ]] || fail "a failed run left a figure"
help=$("$plot" --help)
[[ $help == *"usage: xprt-plot COMMAND"* ]] || fail "--help"
echo "test_plot: all passed"
