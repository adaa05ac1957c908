#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# The clients need no privilege: nfs3-bench against ganesha and
# p9-bench against diod run as an unprivileged user (uid/gid 65534, no
# supplementary groups, through setpriv), the servers staying root.  Each
# writes with --verify in a directory of the export owned by that user,
# then reads it back; rpcping runs the same way.  (The library's
# integration binaries, p9ls, nfs3cp and shared_read run as that user in
# their own tests: scripts/run-integration.sh, tests/integration/
# unpriv-lib.sh.)
# Run by scripts/run-integration.sh (servers.env exported).  Exit status
# 77 (skipped, with a SKIP line: scripts/skips.sh) when not run as root
# (no other user to become) or without setpriv.  A build tree the user
# cannot reach (a 0700 home) is no reason to skip: the programs (linked
# with the library statically) run from copies.  About 10 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${XPRT_BUILD_DIR:-$top/build/plain}
: "${XPRT_NFS_HOST:?run through scripts/run-integration.sh (no servers.env)}"
if (($(id -u) != 0)); then
	echo "SKIP(root): needs root to become uid 65534"
	exit 77
fi
if ! command -v setpriv >/dev/null; then
	echo "SKIP(setpriv): needs setpriv (util-linux) to become uid 65534"
	exit 77
fi
UID_N=65534
AS=(setpriv "--reuid=$UID_N" "--regid=$UID_N" --clear-groups)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-unpriv.XXXXXX")
chmod 755 "$work"
sub=unpriv-test.$$
cleanup() {
	rm -rf "$work"
	[[ -n ${XPRT_NFS_EXPORT_DIR:-} ]] && rm -rf "${XPRT_NFS_EXPORT_DIR:?}/$sub"
	[[ -n ${XPRT_DIOD_EXPORT_DIR:-} ]] && rm -rf "${XPRT_DIOD_EXPORT_DIR:?}/$sub"
}
trap cleanup EXIT
fails=0
# shellcheck source=tests/integration/check-lib.sh
. "$top/tests/integration/check-lib.sh"

# the user can reach the binaries at all (a build tree under a 0700 home
# would make every check below fail for a reason that is not ours): if
# not, copies of them in $work
if ! "${AS[@]}" test -x "$b/bench/nfs3-bench"; then
	echo "uid $UID_N cannot execute $b/bench/nfs3-bench (directory permissions): running copies"
	mkdir -p "$work/bin/bench" "$work/bin/examples"
	for p in bench/nfs3-bench bench/p9-bench examples/rpcping; do
		[[ -x $b/$p ]] && cp "$b/$p" "$work/bin/$p"
	done
	chmod -R a+rX "$work/bin"
	b=$work/bin
fi

# run NAME ARGS...: run ARGS as the user, expect exit status 0
run() {
	local name=$1 rc
	shift
	(cd "$work" && timeout 120 "${AS[@]}" "$@") >"$work/out" 2>"$work/err"
	rc=$?
	check_exit "$name (uid $UID_N)" 0 "$rc" "" "$work/err"
}

# owned by the user: whoever the server checks, it is that uid
owned_dir() {
	mkdir -p "$1/$sub" && chown "$UID_N:$UID_N" "$1/$sub" && chmod 755 "$1/$sub"
}

# ------------------------------------------------------------ nfs3-bench
owned_dir "$XPRT_NFS_EXPORT_DIR"
NFS=("$b/bench/nfs3-bench" --server "$XPRT_NFS_HOST:$XPRT_NFS_PORT"
	--mount-port "$XPRT_MNT_PORT" --export "$XPRT_NFS_EXPORT"
	--directory "$sub" --eta never)
run "nfs3-bench write --verify" "${NFS[@]}" --rw write --bs 64k --size 4m \
	--iodepth 4 --verify
run "nfs3-bench randread" "${NFS[@]}" --rw randread --bs 4k --size 4m \
	--iodepth 8 --runtime 1s
owner=$(stat -c %u "$XPRT_NFS_EXPORT_DIR/$sub"/* 2>/dev/null | sort -u)
[[ $owner == "$UID_N" ]] && ok "nfs3-bench's files belong to uid $UID_N" ||
	bad "nfs3-bench's files belong to '$owner', want $UID_N"
run "nfs3-bench null" "${NFS[@]}" --rw null --runtime 1s
if [[ -x $b/examples/rpcping ]]; then
	run "rpcping" "$b/examples/rpcping" -p "$XPRT_NFS_PORT" -c 10 \
		"$XPRT_NFS_HOST" 100003 3
else
	bad "$b/examples/rpcping not built (make examples)"
fi

# -------------------------------------------------------------- p9-bench
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	owned_dir "$XPRT_DIOD_EXPORT_DIR"
	P9=("$b/bench/p9-bench" --server "$XPRT_DIOD_HOST:$XPRT_DIOD_PORT"
		--aname "$XPRT_DIOD_ANAME" --directory "$sub" --eta never)
	run "p9-bench write --verify" "${P9[@]}" --rw write --bs 64k \
		--size 4m --iodepth 4 --verify
	run "p9-bench randread" "${P9[@]}" --rw randread --bs 4k --size 4m \
		--iodepth 8 --runtime 1s
	owner=$(stat -c %u "$XPRT_DIOD_EXPORT_DIR/$sub"/* 2>/dev/null | sort -u)
	[[ $owner == "$UID_N" ]] && ok "p9-bench's files belong to uid $UID_N" ||
		bad "p9-bench's files belong to '$owner', want $UID_N"
else
	bad "no diod in servers.env"
fi
exit "$fails"
