#!/usr/bin/env bash
# libnfs and libxprt in one program against ganesha:
# tests/integration/side_main.c linked with libxprt.so before libnfs,
# with libnfs before libxprt.so, and with libxprt.a.  Each must mount
# through both libraries and run libnfs's nfs_access() & co (calls that
# would bind to same-named exports of ours, were there any) next to
# lx_nfs3_access() on one file.
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -uo pipefail
o=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/tests/integration
fails=0
for v in xprt-nfs nfs-xprt static; do
	bin=$o/side-$v
	if [[ ! -x $bin ]]; then
		echo "FAIL - $bin not built (make integration)"
		fails=$((fails + 1))
		continue
	fi
	if out=$(timeout 60 "$bin" "$XPRT_NFS_URL" 2>&1); then
		echo "ok - side-$v"
	else
		echo "FAIL - side-$v (exit $?)"
		fails=$((fails + 1))
	fi
	sed 's/^/    | /' <<<"$out"
done
echo "test_libnfs_side: $fails failure(s)"
exit $((fails > 0))
