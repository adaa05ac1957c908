#!/usr/bin/env bash
# With the NFS server down or its host unreachable, nfs3-bench and nfs3cp
# say what they tried and what failed, in the words of that failure:
#   refused       nothing listens on 127.0.0.1:111: "portmapper (rpcbind)
#                 on 127.0.0.1 port 111: connection refused", at once;
#   unregistered  a portmapper that answers "not registered" to every
#                 GETPORT (rpcbind up, the NFS server down): says that,
#                 and only then suggests --mount-port (nfs3-bench);
#   silent        a portmapper port whose accept queue is full, so SYNs
#                 are dropped as for a host that does not answer: "no
#                 answer", after one connect timeout (5 s), not two.
# None of them says "give --mount-port" unless the portmapper answered,
# nor "Protocol family not supported" (PROG_UNAVAIL read as libc's
# EPFNOSUPPORT), nor "port 0".
# Runs in its own network namespace (unshare -rn: the loopback there is
# ours alone, and no packet leaves it), with tests/integration/
# rpcbind_down.py playing the portmapper; no real server is used.  The
# clients run as uid 65534 when we are root (tests/integration/
# unpriv-lib.sh).
# Run by scripts/run-integration.sh (or alone: tests/integration/
# test_nfs3_down.sh [BUILDDIR]).  About 12 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${XPRT_BUILD_DIR:-${1:-$top/build/plain}}
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

if [[ ${1:-} != --in-netns ]]; then
	for p in "$b/bench/nfs3-bench" "$b/examples/nfs3cp"; do
		[[ -x $p ]] || { echo "FAIL - $p is not built"; exit 1; }
	done
	command -v unshare >/dev/null || { echo "FAIL - no unshare"; exit 1; }
	# root: a plain namespace, so that the clients can run as the
	# unprivileged user; anyone else: a user namespace with it
	ns=(-rn)
	((EUID == 0)) && ns=(-n)
	XPRT_BUILD_DIR=$b exec unshare "${ns[@]}" "$0" --in-netns
fi
# shellcheck source=tests/integration/unpriv-lib.sh
. "$top/tests/integration/unpriv-lib.sh"

ip link set lo up || { echo "FAIL - cannot bring up lo in the namespace"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nfs3-down.XXXXXX")
chmod 755 "$work"
srv=""
cleanup() {
	[[ -n $srv ]] && kill "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# portmapper MODE: rpcbind_down.py MODE on port 111, $srv its pid
portmapper() {
	"$top/tests/integration/rpcbind_down.py" "$1" >"$work/pm" 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		grep -q READY "$work/pm" && return 0
		sleep 0.1
	done
	bad "rpcbind_down.py $1 did not start: $(cat "$work/pm")"
	exit 1
}
stop_portmapper() {
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=""
}

# run NAME MAX_S SAYS NOT... -- CMD...: CMD exits 1 within MAX_S seconds,
# its stderr holds SAYS and none of the NOT strings
run() {
	local name=$1 maxt=$2 says=$3 t0 t rc n
	local -a nots=()
	shift 3
	while [[ $1 != -- ]]; do
		nots+=("$1")
		shift
	done
	shift
	t0=$(date +%s.%N)
	timeout 60 "${AS[@]}" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	t=$(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	check_exit "$name" 1 "$rc" "$says" "$work/err" || return
	for n in "${nots[@]}"; do
		if grep -qF -- "$n" "$work/err"; then
			bad "$name: says '$n'"
			sed 's/^/    | /' "$work/err"
			return
		fi
	done
	if awk -v t="$t" -v m="$maxt" 'BEGIN { exit !(t > m) }'; then
		bad "$name: took $t s, more than $maxt s"
		return
	fi
	ok "$name: $(head -1 "$work/err") ($t s)"
}

bench=("$b/bench/nfs3-bench" --server 127.0.0.1 --export /export --rw null
	--runtime 1 --eta never)
cp=("$b/examples/nfs3cp" -s 127.0.0.1 -e /export :/f "$work/f")
never=("Protocol family not supported" "port 0:")
pm="portmapper (rpcbind) on 127.0.0.1 port 111"

run "nfs3-bench, refused" 2 "$pm: connection refused" "${never[@]}" \
	"--mount-port" -- "${bench[@]}"
run "nfs3cp, refused" 2 "$pm: connection refused" "${never[@]}" -- "${cp[@]}"

portmapper unregistered
run "nfs3-bench, not registered" 2 \
	"$pm answered: MOUNT v3 over TCP is not registered" "${never[@]}" -- \
	"${bench[@]}"
grep -qF -- "--mount-port" "$work/err" ||
	bad "nfs3-bench, not registered: no --mount-port suggested"
run "nfs3cp, not registered" 2 \
	"$pm answered: MOUNT v3 over TCP is not registered" "${never[@]}" -- \
	"${cp[@]}"
stop_portmapper

portmapper silent
run "nfs3-bench, no answer" 8 "$pm: no answer" "${never[@]}" \
	"--mount-port" -- "${bench[@]}"
run "nfs3cp, no answer" 8 "$pm: no answer" "${never[@]}" -- "${cp[@]}"
stop_portmapper

((fails == 0)) && echo "test_nfs3_down: all passed"
exit $((fails > 0))
