#!/usr/bin/env bash
# examples/loop_epoll against ganesha (NFSv3) and diod or ganesha (9P):
# one file read over both protocols from one epoll loop, both clients
# caller-driven; the byte counts must be the file's and the process must
# have kept its one thread (the example checks and prints it).
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -euo pipefail
ex=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/examples/loop_epoll
[[ -x $ex ]] || { echo "test_loop_epoll: $ex is not built (make examples)" >&2; exit 1; }
fail() { echo "test_loop_epoll: FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/integration/unpriv-lib.sh
. "$(dirname "$0")/unpriv-lib.sh"
if [[ -n ${XPRT_GANESHA_9P_PORT:-} ]]; then
	P9=(-p "$XPRT_GANESHA_9P_PORT" -A "$XPRT_GANESHA_9P_ANAME")
	dirs=("$XPRT_NFS_EXPORT_DIR")
else
	P9=(-p "$XPRT_DIOD_PORT" -A "$XPRT_DIOD_ANAME")
	dirs=("$XPRT_NFS_EXPORT_DIR" "$XPRT_DIOD_EXPORT_DIR")
fi
f=loop-epoll-$$
trap 'for d in "${dirs[@]}"; do rm -f "$d/$f"; done' EXIT
head -c 1000000 /dev/urandom >"/tmp/$f"
for d in "${dirs[@]}"; do cp "/tmp/$f" "$d/$f"; chmod a+r "$d/$f"; done
rm -f "/tmp/$f"

out=$(as_user "$ex" -n "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT" "${P9[@]}" \
	"$XPRT_NFS_HOST" "$XPRT_NFS_EXPORT" "$f") || fail "exited $?: $out"
echo "$out"
grep -qx 'nfs3: 1000000 bytes (.*), 9p: 1000000 bytes (.*), threads 1' <<<"$out" ||
	fail "not the file through both from one thread: $out"
rc=0
as_user "$ex" >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "no arguments: rc $rc"
echo "test_loop_epoll: all passed"
