#!/usr/bin/env bash
# The benches' MPI mode on localhost, with mem-bench (no server needed):
# mpirun starts 4 ranks; rank 0's JSON must list every rank's jobs and an
# aggregate merged from their histograms; failures and usage errors on
# one rank must stop all of them.  Also run by
# tests/integration/test_bench_mpi.sh against real servers.
#
# usage: tests/bench/test_mpi_mem.sh BUILDDIR      (make check-mpi)
set -euo pipefail
o=${1:?usage: test_mpi_mem.sh BUILDDIR}
bin=$o/bench/mem-bench
tmp=$(mktemp -d /tmp/xprt-mpi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

libs=$(ldd "$bin")
if [[ $libs == *libtsan* ]]; then
	echo "test_mpi_mem: not in the TSan build: Open MPI's own threads are" \
		"not instrumented and trip ThreadSanitizer (use plain or asan)" >&2
	exit 1
fi
if [[ $libs != *libmpi* ]]; then
	echo "test_mpi_mem: $bin is built without MPI (make MPI=1)" >&2
	exit 1
fi
# Debian's Open MPI refuses root without this; CI runs as root
MPIRUN=(mpirun --oversubscribe)
((EUID)) || MPIRUN+=(--allow-run-as-root)
# sanitizer builds: Open MPI's own allocations are not our leaks
export ASAN_OPTIONS="${ASAN_OPTIONS:-} detect_leaks=0"

fail() { echo "test_mpi_mem: FAIL: $*" >&2; exit 1; }
step() { printf '  %-58s' "$1"; }
ok() { echo ok; }

# 1. 4 ranks x 2 jobs, two latencies (MPMD): the merged percentiles must
# come from the merged histogram (bimodal), not from averaging ranks.
step "4 ranks x 2 jobs, merged report and histograms"
common=(--rw randrw --time_based --runtime 1500ms --ramp_time 300ms --numjobs 2
	--iodepth 4 --mem-virtual --eta never --write_iops_log "$tmp/fl"
	--per_job_logs 0)
"${MPIRUN[@]}" -np 2 "$bin" "${common[@]}" --mem-lat 100us \
	--output-format json --output "$tmp/out.json" \
	--write_log "$tmp/log.tsv" --write_hist "$tmp/hist.tsv" \
	: -np 2 "$bin" "${common[@]}" --mem-lat 300us \
	--output-format json --output "$tmp/out.json" \
	--write_log "$tmp/log.tsv" --write_hist "$tmp/hist.tsv" \
	>"$tmp/stdout" 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "mpirun exited $?"; }
python3 - "$tmp" <<'PY' || fail "merged report"
import json, sys, os
t = sys.argv[1]
d = json.load(open(f"{t}/out.json"))
jobs, agg = d["jobs"], d["xprt"]["aggregate"]
assert d["xprt"]["mpi"]["ranks"] == 4 and d["xprt"]["mpi"]["jobs"] == 8, d["xprt"]["mpi"]
assert len(jobs) == 8 and agg["xprt"]["jobs"] == 8
assert sorted(j["xprt"]["jobid"] for j in jobs) == list(range(8))
assert [j["xprt"]["rank"] for j in jobs] == [0, 0, 1, 1, 2, 2, 3, 3]
assert len({j["xprt"]["filename"] for j in jobs}) == 8, "ranks share files"
for k in ("read", "write"):
    assert agg[k]["total_ios"] == sum(j[k]["total_ios"] for j in jobs)
    assert agg[k]["io_bytes"] == sum(j[k]["io_bytes"] for j in jobs)
    assert agg[k]["total_ios"] > 0
    # every job measured ~1.5 s after a common ramp
    for j in jobs:
        assert 1400 <= j[k]["runtime"] <= 1600, j[k]["runtime"]
    p = agg[k]["clat_ns"]["percentile"]
    n = [j[k]["total_ios"] for j in jobs]
    fast = sum(n[:4]) / sum(n)  # ranks 0-1: 100 us
    # the percentiles on each side of the fast ranks' share
    pf = {float(q): v for q, v in p.items()}
    below = [v for q, v in pf.items() if q < 100 * fast - 2]
    above = [v for q, v in pf.items() if q > 100 * fast + 2]
    assert all(99000 < v < 101000 for v in below), (k, below)
    assert all(299000 < v < 301000 for v in above), (k, above)
    # ...and they match the merged histogram dump
    rows = [l.split("\t") for l in open(f"{t}/hist.tsv").read().splitlines()[1:]]
    assert sum(int(r[3]) for r in rows if r[0] == k) == agg[k]["total_ios"]
ri = d["xprt"]["mpi"]["rank_info"]
assert [r["rank"] for r in ri] == [0, 1, 2, 3] and all(r["merged"] for r in ri)
assert d["xprt"]["status"]["ok"] is True
for r in range(4):
    lines = open(f"{t}/log.{r}.tsv").read().splitlines()
    assert lines[0].startswith("time_s\tjob\tphase") and len(lines) >= 2, r
assert not os.path.exists(f"{t}/log.tsv")
# fio's per-I/O logs: every rank its own (--per_job_logs 0: one file per
# rank, the rank before the extension), one line per I/O it completed
dropped = d["xprt"]["backend_stats"]["log_dropped"]
lines = [sum(1 for _ in open(f"{t}/fl_iops.{r}.log")) for r in range(4)]
assert all(n <= r["ops"] for n, r in zip(lines, ri)), (lines, ri)
assert sum(lines) + dropped == sum(r["ops"] for r in ri), (lines, dropped)
assert not os.path.exists(f"{t}/fl_iops.log")
PY
ok

# 2. ior over 3 ranks: tasks are all ranks' jobs, phase bytes add up
step "ior over 3 ranks"
"${MPIRUN[@]}" -np 3 "$bin" --workload ior --rw rw --size 1m --bs 64k \
	--numjobs 2 --repetitions 2 --mem-lat 1ms --iodepth 2 \
	--output-format json --output "$tmp/ior.json" --eta never \
	>"$tmp/stdout" 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "mpirun exited $?"; }
python3 - "$tmp/ior.json" <<'PY' || fail "ior report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["xprt"]["ior"]["tasks"] == 6
res = d["xprt"]["ior"]["results"]
assert len(res) == 4
for r in res:
    assert r["bytes"] == 6 << 20, r
    assert r["ops"] == 96, r
PY
ok

# 3. text report: one, from rank 0
step "text report printed once"
"${MPIRUN[@]}" -np 2 "$bin" --rw read --size 256k --numjobs 1 \
	--mem-virtual >"$tmp/text" 2>"$tmp/stderr" || fail "mpirun exited $?"
[[ $(grep -c '^Run status' "$tmp/text") == 1 ]] || fail "$(cat "$tmp/text")"
grep -q '^mem-bench (libxprt fio): .*, 2 MPI ranks$' "$tmp/text" || fail "no rank count in the bench's own lines"
grep -q 'job1: .*rank=1' "$tmp/text" || fail "rank 1's job missing"
ok

# 4. an I/O error on one rank fails every rank, and the report says where
step "an error on rank 1 fails the run"
set +e
"${MPIRUN[@]}" -np 1 "$bin" --rw write --size 1m --mem-virtual \
	--output-format json --output "$tmp/err.json" --eta never \
	: -np 1 "$bin" --rw write --size 1m --mem-virtual --mem-fail-at 20 \
	--output-format json --output "$tmp/err.json" --eta never \
	>"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
set -e
((rc != 0)) || fail "mpirun exited 0"
grep -q 'rank 1.*job1: write of .* failed' "$tmp/stderr" || fail "$(cat "$tmp/stderr")"
python3 - "$tmp/err.json" <<'PY' || fail "error report"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["xprt"]["status"]["ok"] is False
j1 = [j for j in d["jobs"] if j["xprt"]["job"] == "job1"][0]
assert j1["xprt"]["rank"] == 1 and j1["xprt"]["first_error"]["what"] == "I/O", j1
assert d["xprt"]["mpi"]["rank_info"][1]["errno"] == 5
PY
ok

# 5. a usage error: said once (rank 0), every rank exits 2
step "usage error reported once"
set +e
"${MPIRUN[@]}" -np 3 "$bin" --bogus >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
set -e
((rc != 0)) || fail "mpirun exited 0"
[[ $(grep -c "unknown option '--bogus'" "$tmp/stderr") == 1 ]] || fail "$(cat "$tmp/stderr")"
ok

# 6. a shared file over ranks: laid out once, read by all; --verify refused
step "shared --filename across ranks"
"${MPIRUN[@]}" -np 2 "$bin" --rw randread --filename shared --size 1m \
	--numjobs 2 --number_ios 100 --mem-virtual --output-format json \
	--output "$tmp/shared.json" --eta never >/dev/null 2>"$tmp/stderr" ||
	fail "$(cat "$tmp/stderr")"
python3 -c "
import json; d = json.load(open('$tmp/shared.json'))
assert {j['xprt']['filename'] for j in d['jobs']} == {'shared'}
assert d['xprt']['aggregate']['read']['total_ios'] == 400" || fail "shared file report"
set +e
"${MPIRUN[@]}" -np 2 "$bin" --rw randrw --filename shared --size 1m \
	--verify --mem-virtual >/dev/null 2>"$tmp/stderr"
rc=$?
set -e
((rc != 0)) && grep -q 'cannot with 2 MPI ranks' "$tmp/stderr" || fail "verify on a shared file was accepted"
ok

# 7. the same binary without mpirun: no MPI at all, same report shape
step "started alone: no MPI, no \"mpi\" key"
"$bin" --rw read --size 256k --mem-virtual --output-format json \
	--output "$tmp/alone.json" --eta never
python3 -c "
import json; d = json.load(open('$tmp/alone.json'))
assert 'mpi' not in d['xprt'] and 'rank' not in d['jobs'][0]['xprt']" || fail "alone report"
"${MPIRUN[@]}" -np 1 "$bin" --rw read --size 256k --mem-virtual \
	--output-format json --output "$tmp/one.json" --eta never
python3 -c "
import json; d = json.load(open('$tmp/one.json'))
assert d['xprt']['mpi']['ranks'] == 1 and d['jobs'][0]['xprt']['rank'] == 0
assert [r['rank'] for r in d['xprt']['mpi']['rank_info']] == [0]" || fail "-np 1 report"
ok
echo "test_mpi_mem: all passed"
