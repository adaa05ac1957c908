#!/usr/bin/env bash
# examples/shared_read against ganesha: one file read over NFSv3 and over
# 9P at once by the same asynchronous code, both clients on one shared
# pool; the two copies must be the file on disk, and the pool's counters
# must show both clients' size classes, nothing left in use and (TCP) no
# registration.  Keeps the example from rotting.
# Run as root, the example runs as uid 65534 (tests/integration/unpriv-lib.sh).
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -euo pipefail
ex=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/examples/shared_read
[[ -x $ex ]] || { echo "test_shared_read: $ex is not built (make examples)" >&2; exit 1; }
fail() { echo "test_shared_read: FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/integration/unpriv-lib.sh
. "$(dirname "$0")/unpriv-lib.sh"
if [[ -n ${XPRT_GANESHA_9P_PORT:-} ]]; then
	P9=(-p "$XPRT_GANESHA_9P_PORT" -A "$XPRT_GANESHA_9P_ANAME")
	dirs=("$XPRT_NFS_EXPORT_DIR")
else
	P9=(-p "$XPRT_DIOD_PORT" -A "$XPRT_DIOD_ANAME")
	dirs=("$XPRT_NFS_EXPORT_DIR" "$XPRT_DIOD_EXPORT_DIR")
fi
f=shared-read-$$
trap 'for d in "${dirs[@]}"; do rm -f "$d/$f"; done' EXIT
head -c 3000000 /dev/urandom >"/tmp/$f"
for d in "${dirs[@]}"; do cp "/tmp/$f" "$d/$f"; done
rm -f "/tmp/$f"

out=$(as_user "$ex" -n "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT" "${P9[@]}" \
	"$XPRT_NFS_HOST" "$XPRT_NFS_EXPORT" "$f") || fail "exited $?: $out"
echo "$out"
grep -qx 'nfs3: 3000000 bytes (.*), 9p: 3000000 bytes (.*), same data' <<<"$out" ||
	fail "not the file through both: $out"
grep -Eq '^pool: classes 2, gets ([0-9]+), puts \1, in use 0, registrations 0$' <<<"$out" ||
	fail "pool counters: $out"
rc=0
as_user "$ex" -n "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT" "${P9[@]}" \
	"$XPRT_NFS_HOST" "$XPRT_NFS_EXPORT" nope-$$ >/dev/null 2>&1 || rc=$?
((rc == 1)) || fail "a missing file: rc $rc"
rc=0
as_user "$ex" >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "no arguments: rc $rc"
echo "test_shared_read: all passed"
