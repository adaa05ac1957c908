#!/usr/bin/env bash
# shellcheck disable=SC2153 # the XPRT_* variables come from servers.env
# usage: verify.sh RUN_DIR
#
# Smoke-test the servers a `servers.sh up RUN_DIR` started, with clients
# that owe nothing to libxprt: rpcinfo (registrations), libnfs-utils
# (nfs-cp round trip of 1 MiB + 1 byte, nfs-ls) against ganesha NFSv3 on its
# non-standard ports, and p9probe.py against ganesha's and diod's 9P.
# Skips a server that RUN_DIR did not start. Exits non-zero on the first
# failure; prints "verify: all OK" at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[[ $# == 1 ]] || xs_die "usage: ${0##*/} RUN_DIR"
RUN=$(xs_run_dir "$1")
[[ -f $RUN/servers.env ]] || xs_die "no $RUN/servers.env: run servers.sh up $RUN first"
# shellcheck disable=SC1091,SC2153
. "$RUN/servers.env"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ -n ${XPRT_NFS_PORT:-} ]]; then
	echo "== ganesha NFSv3 on $XPRT_NFS_HOST:$XPRT_NFS_PORT (mount $XPRT_MNT_PORT)"
	[[ $(xs_rpcbind_port 100003 3) == "$XPRT_NFS_PORT" ]] ||
		xs_die "rpcbind does not map NFSv3 to $XPRT_NFS_PORT: $(rpcinfo -p 127.0.0.1 | grep '10000[35]' || true)"
	rpcinfo -n "$XPRT_NFS_PORT" -t "$XPRT_NFS_HOST" 100003 3
	rpcinfo -n "$XPRT_MNT_PORT" -t "$XPRT_NFS_HOST" 100005 3
	head -c 1048577 /dev/urandom >"$tmp/in.bin"
	# nfs-cp (libnfs 4.0) refuses to overwrite: use a fresh name
	name=verify-$$-$RANDOM.bin
	q="?nfsport=$XPRT_NFS_PORT&mountport=$XPRT_MNT_PORT"
	base="nfs://$XPRT_NFS_HOST$XPRT_NFS_EXPORT"
	nfs-cp "$tmp/in.bin" "$base/$name$q"
	nfs-ls "$base$q" | grep -q "$name" || xs_die "nfs-ls does not list $name"
	nfs-cp "$base/$name$q" "$tmp/out.bin"
	cmp "$tmp/in.bin" "$tmp/out.bin"
	cmp "$tmp/in.bin" "$XPRT_NFS_EXPORT_DIR/$name"
	echo "nfs-cp round trip OK (1 MiB + 1 byte, also identical on disk)"
	rm -f "$XPRT_NFS_EXPORT_DIR/$name"
	echo "== ganesha 9P2000.L on $XPRT_GANESHA_9P_HOST:$XPRT_GANESHA_9P_PORT aname $XPRT_GANESHA_9P_ANAME"
	python3 "$XS_HERE/p9probe.py" "$XPRT_GANESHA_9P_HOST" "$XPRT_GANESHA_9P_PORT" "$XPRT_GANESHA_9P_ANAME"
fi
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	echo "== diod 9P2000.L on $XPRT_DIOD_HOST:$XPRT_DIOD_PORT aname $XPRT_DIOD_ANAME"
	python3 "$XS_HERE/p9probe.py" "$XPRT_DIOD_HOST" "$XPRT_DIOD_PORT" "$XPRT_DIOD_ANAME"
fi
echo "verify: all OK"
