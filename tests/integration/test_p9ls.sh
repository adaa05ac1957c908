#!/usr/bin/env bash
# examples/p9ls against diod and ganesha's 9P: a directory made here must
# be listed sorted, with sizes, modes and a link's target in -l, the same
# through both servers; errors exit 1 with a message, usage errors 2.
# Run as root, p9ls runs as uid 65534 (tests/integration/unpriv-lib.sh:
# an installed tool needs no privilege), its 9P user too.
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -euo pipefail
p9ls=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/examples/p9ls
[[ -x $p9ls ]] || { echo "test_p9ls: $p9ls is not built (make examples)" >&2; exit 1; }
# shellcheck source=tests/integration/unpriv-lib.sh
. "$(dirname "$0")/unpriv-lib.sh"
ls9() { as_user "$p9ls" "$@"; }
((${#AS[@]})) && echo "p9ls runs as: ${AS[*]}"
d=p9ls-$$
tmp=$(mktemp -d /tmp/xprt-p9ls-XXXXXX)
trap 'rm -rf "$tmp" "$XPRT_DIOD_EXPORT_DIR/$d" "$XPRT_NFS_EXPORT_DIR/$d"' EXIT
fail() { echo "test_p9ls: FAIL: $*" >&2; exit 1; }

for srv in diod ganesha; do
	if [[ $srv == diod ]]; then
		S=(-p "$XPRT_DIOD_PORT" -A "$XPRT_DIOD_ANAME" "$XPRT_DIOD_HOST")
		root=$XPRT_DIOD_EXPORT_DIR/$d
	else
		S=(-p "$XPRT_GANESHA_9P_PORT" -A "$XPRT_GANESHA_9P_ANAME" "$XPRT_GANESHA_9P_HOST")
		root=$XPRT_NFS_EXPORT_DIR/$d
	fi
	mkdir -p "$root/sub"
	printf 'hello' >"$root/b.txt"
	head -c 100000 /dev/zero >"$root/a.bin"
	chmod 640 "$root/a.bin"
	ln -sf b.txt "$root/link"

	ls9 "${S[@]}" "$d" >"$tmp/out" || fail "$srv: p9ls exited $?"
	printf 'a.bin\nb.txt\nlink\nsub\n' | diff - "$tmp/out" || fail "$srv: plain listing"
	# the same server as a 9p:// URL (libxprt's parser): port, aname, msize
	ls9 "9p://${S[-1]}:${S[1]}${S[3]}?msize=64k" "$d" >"$tmp/out" || fail "$srv: URL exited $?"
	printf 'a.bin\nb.txt\nlink\nsub\n' | diff - "$tmp/out" || fail "$srv: URL listing"
	ls9 -F "${S[@]}" "$d" >"$tmp/out" || fail "$srv: -F"
	printf 'a.bin\nb.txt\nlink@\nsub/\n' | diff - "$tmp/out" || fail "$srv: -F listing"
	ls9 -a "${S[@]}" "$d" >"$tmp/out" || fail "$srv: -a"
	grep -qx '\.\.' "$tmp/out" && grep -qx '\.' "$tmp/out" || fail "$srv: -a without . and .."
	ls9 -l "${S[@]}" "$d" >"$tmp/out" || fail "$srv: -l"
	grep -Eq '^-rw-r----- +1 +[0-9]+ +[0-9]+ +100000 .* a\.bin$' "$tmp/out" || fail "$srv: -l a.bin: $(cat "$tmp/out")"
	grep -Eq '^-rw-r--r-- .* 5 .* b\.txt$' "$tmp/out" || fail "$srv: -l b.txt: $(cat "$tmp/out")"
	grep -Eq '^l.* link -> b\.txt$' "$tmp/out" || fail "$srv: -l link: $(cat "$tmp/out")"
	grep -Eq '^d.* sub$' "$tmp/out" || fail "$srv: -l sub: $(cat "$tmp/out")"
	# a file lists itself; several paths get headers
	ls9 "${S[@]}" "$d/b.txt" "$d/sub" >"$tmp/out" || fail "$srv: file + dir"
	printf '%s:\n%s\n\n%s:\n' "$d/b.txt" "$d/b.txt" "$d/sub" | diff - "$tmp/out" || fail "$srv: file + dir listing"
	rc=0
	ls9 "${S[@]}" "$d/nope" >/dev/null 2>"$tmp/err" || rc=$?
	((rc == 1)) && grep -qi 'no such file' "$tmp/err" || fail "$srv: missing path: rc $rc, $(cat "$tmp/err")"
	echo "ok $srv"
done
rc=0
ls9 -p 1 127.0.0.1 >/dev/null 2>"$tmp/err" || rc=$?
((rc == 1)) && grep -q 'refused' "$tmp/err" || fail "no server: rc $rc, $(cat "$tmp/err")"
rc=0
ls9 >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "no host: rc $rc"
rc=0
ls9 '9p://127.0.0.1/x?msize=1k' >/dev/null 2>"$tmp/err" || rc=$?
((rc == 2)) && grep -q 'msize=1k' "$tmp/err" || fail "bad URL: rc $rc, $(cat "$tmp/err")"
[[ $(ls9 -h) == "usage: "* ]] || fail "-h"
echo "test_p9ls: all passed"
