#!/usr/bin/env bash
# nfs3-bench against tests/hostile/rpc_hostile.py's nfs scenario, a server
# that mounts and answers FSINFO and then lies in one place; each run ends
# with exit status 1 (the server's fault, not the command line's) and a
# message that says what the server did:
#   type66: LOOKUP's attributes say type 66: "not a regular file (type
#     66)", at open and at --size 50% (stat);
#   rtmax1: FSINFO offers 1-byte transfers: said, exit 1 (not the usage
#     error's 2);
#   jukebox: NFS3ERR_JUKEBOX to every call: named as RFC 1813 does, not
#     with the library's LX_ prefix;
#   a portmapper answering GETPORT with port 70000 (in a network namespace
#     of its own, where it can have port 111): "a port above 65535", not
#     PROG_UNAVAIL.
# Needs no real server; about 8 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XPRT_BUILD_DIR:-$top/build/plain}/bench/nfs3-bench
[[ -x $bin ]] || { echo "FAIL - $bin not built (make bench)"; exit 1; }
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"
scratch_dir nfs3-bench-lies

# lie NAME VARIANT WANT_MSG BENCH_ARGS...: exit 1 and WANT_MSG on stderr
lie() {
	local name=$1 variant=$2 want=$3 rc
	shift 3
	stop_server
	start_port_server "$work/port" python3 \
		"$top/tests/hostile/rpc_hostile.py" --scenario nfs \
		--variant "$variant"
	timeout 120 "$bin" --server "127.0.0.1:$port" --mount-port "$port" \
		--export=/x --filename f --runtime 1s --eta never "$@" \
		>"$work/out" 2>"$work/err"
	rc=$?
	sed 's/^/#   /' "$work/err" | head -4
	check_exit "$name" 1 "$rc" "$want" "$work/err"
}

lie "type 66 at open" type66 \
	"f in /x on 127.0.0.1: not a regular file (type 66)" --rw read \
	--bs 4k --size 64k
lie "type 66 at stat" type66 \
	"f in /x on 127.0.0.1: not a regular file (type 66)" --rw read \
	--bs 4k --size 50%
lie "1-byte rtmax/wtmax" rtmax1 \
	"offers reads of at most 1 bytes and writes of at most 1" --rw read \
	--bs 4k --size 64k
lie "JUKEBOX to every call" jukebox \
	"FSINFO of the root on 127.0.0.1 failed: NFS3ERR_JUKEBOX" --rw read \
	--bs 4k --size 64k --jukebox-delay 100ms --jukebox-retries 3
grep -q "LX_" "$work/err" && bad "JUKEBOX: the library's prefix shown" ||
	ok "JUKEBOX: no LX_ prefix"

# the portmapper: port 111 in a network namespace of our own (root: a
# plain one, which a chroot allows too, where a user namespace cannot be
# made; anyone else: a user namespace with it)
stop_server
ns=(-rn)
((EUID == 0)) && ns=(-n)
if ! unshare "${ns[@]}" true 2>/dev/null; then
	bad "portmap: unshare ${ns[*]} (a network namespace) is not available"
	exit "$fails"
fi
unshare "${ns[@]}" bash -c '
	ip link set lo up || exit 3
	python3 "$1/tests/hostile/rpc_hostile.py" --scenario ok --port 111 \
		--results-hex 00011170 >/dev/null &
	for _ in $(seq 100); do
		python3 -c "import socket; socket.create_connection((\"127.0.0.1\", 111))" \
			2>/dev/null && break
		sleep 0.1
	done
	timeout 60 "$2" --server 127.0.0.1 --export=/x --rw null \
		--runtime 1s --eta never
	rc=$?
	kill %1
	exit $rc' _ "$top" "$bin" >"$work/out" 2>"$work/err"
rc=$?
sed 's/^/#   /' "$work/err" | head -4
check_exit "portmap port 70000" 1 "$rc" \
	"(rpcbind) on 127.0.0.1 port 111: it answered a port above 65535" "$work/err"
grep -q "PROG_UNAVAIL" "$work/err" && bad "portmap: says PROG_UNAVAIL" ||
	ok "portmap: not PROG_UNAVAIL"
exit "$fails"
