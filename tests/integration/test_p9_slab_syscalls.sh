#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# The 9P request-slab debate as a guard on system calls (run by
# scripts/run-integration.sh, which exports servers.env and
# XPRT_BUILD_DIR): the slab thread's small-write workload, 32 jobs on one
# session writing 32 bytes at a time to diod (p9-bench --preset ior-32b),
# once with the client's pooled buffers (--alloc pool) and once with two
# msize buffers malloc'd for every request (--alloc malloc), each under
# `strace -f -c`.  Over ROUNDS paired rounds (their order alternating),
# the median of each mode's system calls per Twrite, all of them and the
# futex calls alone, must not exceed malloc's by more than the noise: the
# futex calls by FUTEX_SLACK a Twrite (thread start-up and the first
# sends of 32 jobs vary by a few hundred calls a run), all calls by half
# malloc's figure plus SLACK (how many replies one read finds, and so how
# many sends batch, follows the machine's load: paired rounds on a loaded
# machine differ by a third).  A request that sleeps on
# the way (for a buffer, or for a reply another job's thread reads: the
# synchronous calls p9-bench makes only on a session of its own) costs a
# futex call or more a Twrite, and such jobs send without batching:
# synchronous calls here cost 2.4 futex and 3.3 calls in all a Twrite,
# against malloc's 0.005 and 0.25.
# Each check prints "ok - ..." or "FAIL - ..."; the exit status is the
# number of failures.  About 10-25 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/p9-bench
ROUNDS=3
SLACK=0.1
FUTEX_SLACK=0.05
JOBS=32
SIZE=16k # per job: 512 Twrites of 32 bytes
[[ -n ${XPRT_DIOD_PORT:-} ]] ||
	{ echo "FAIL - no diod in servers.env (run through scripts/run-integration.sh)"; exit 1; }
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
command -v strace >/dev/null ||
	{ echo "FAIL - strace not installed (scripts/deps.sh cost)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/p9-slab-test.XXXXXX")
sub=p9-slab-test.$$
cleanup() {
	rm -rf "$work"
	rm -rf "${XPRT_DIOD_EXPORT_DIR:?}/$sub"
}
trap cleanup EXIT
fails=0

# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

mkdir -p "$XPRT_DIOD_EXPORT_DIR/$sub"

# one ALLOC ROUND: p9-bench under strace; its report in $work/ALLOC.ROUND.json,
# strace's summary in $work/ALLOC.ROUND.st.  (LeakSanitizer cannot run
# under ptrace: in the ASan build the leak check is the other tests'.)
one() {
	local a=$1 r=$2 rc
	ASAN_OPTIONS="${ASAN_OPTIONS:-} detect_leaks=0" timeout 120 strace -f -c -o "$work/$a.$r.st" "$bin" --eta never \
		--server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT" \
		--aname "$XPRT_DIOD_ANAME" --directory "$sub" --msize 64k \
		--name slab --preset ior-32b --rw write --numjobs "$JOBS" \
		--size "$SIZE" --alloc "$a" --output-format json \
		>"$work/$a.$r.json" 2>"$work/$a.$r.err"
	rc=$?
	check_exit "--alloc $a, round $r" 0 "$rc" "" "$work/$a.$r.err"
}

for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2)); then
		one malloc "$r" && one pool "$r"
	else
		one pool "$r" && one malloc "$r"
	fi || { echo "FAIL - runs failed, no comparison"; exit "$fails"; }
done

# The medians per Twrite, and the verdicts; the figures go to the log.
python3 - "$work" "$ROUNDS" "$SLACK" "$JOBS" "$FUTEX_SLACK" <<'EOF'
import json, statistics, sys

work, rounds, slack, jobs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
futex_slack = float(sys.argv[5])


def counts(path):
    """system calls in all, futex calls: strace -c's summary"""
    total = futex = None
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[-1] == "total":
            total = int(f[3])
        elif len(f) >= 5 and f[-1] == "futex":
            futex = int(f[3])
    if total is None:
        print(f"FAIL - no strace summary in {path}")
        sys.exit(1)
    return total, futex or 0


per = {}
for a in ("pool", "malloc"):
    tot, fut = [], []
    for r in range(rounds):
        d = json.load(open(f"{work}/{a}.{r}.json"))
        writes = d["xprt"]["aggregate"]["write"]["total_ios"]
        if writes < jobs * 256 or d["xprt"]["aggregate"]["xprt"]["io_errors"]:
            print(f"FAIL - --alloc {a}, round {r}: {writes} Twrites "
                  "or I/O errors")
            sys.exit(1)
        t, f = counts(f"{work}/{a}.{r}.st")
        tot.append(t / writes)
        fut.append(f / writes)
    per[a] = (statistics.median(tot), statistics.median(fut))
    print(f"# --alloc {a}: per Twrite {per[a][0]:.3f} system calls, "
          f"{per[a][1]:.4f} futex (rounds: "
          + ", ".join(f"{x:.3f}/{y:.4f}" for x, y in zip(tot, fut)) + ")")
bad = 0
for i, what in ((0, "system calls"), (1, "futex calls")):
    p, m = per["pool"][i], per["malloc"][i]
    most = m + futex_slack if i else 1.5 * m + slack
    verdict = "ok" if p <= most else "FAIL"
    bad += verdict == "FAIL"
    print(f"{verdict} - {what} per Twrite, 32-byte writes of {jobs} jobs on "
          f"one session: pool {p:.4f}, malloc {m:.4f} (at most {most:.4f})")
sys.exit(bad)
EOF
fails=$((fails + $?))
exit "$fails"
