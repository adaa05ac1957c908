#!/usr/bin/env bash
# examples/nfs3cp against ganesha: a file copied up to the export and back
# must be byte for byte the original (and the export's own copy too), in
# UNSTABLE+COMMIT and FILE_SYNC modes, across rsize/wsize boundaries; a
# destination that exists is refused without -f; errors exit 1 with a
# message, usage errors 2.
# Run as root, nfs3cp runs as uid 65534 (tests/integration/unpriv-lib.sh:
# an installed tool needs no privilege) with its own AUTH_SYS
# identity, in directories of that user's on both sides.
# Runs under scripts/run-integration.sh (servers.env exported).
# shellcheck disable=SC2153 # XPRT_* come from servers.env
set -euo pipefail
nfs3cp=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/examples/nfs3cp
[[ -x $nfs3cp ]] || { echo "test_nfs3cp: $nfs3cp is not built (make examples)" >&2; exit 1; }
# shellcheck source=tests/integration/unpriv-lib.sh
. "$(dirname "$0")/unpriv-lib.sh"
cp=(as_user "$nfs3cp")
((${#AS[@]})) && echo "nfs3cp runs as: ${AS[*]}"
tmp=$(mktemp -d /tmp/xprt-nfs3cp-XXXXXX)
dir=nfs3cp-$$
trap 'rm -rf "$tmp" "$XPRT_NFS_EXPORT_DIR/$dir"' EXIT
mkdir "$XPRT_NFS_EXPORT_DIR/$dir"
unpriv_own "$tmp" "$XPRT_NFS_EXPORT_DIR/$dir"
S=(-s "$XPRT_NFS_HOST" -e "$XPRT_NFS_EXPORT" -p "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT")
fail() { echo "test_nfs3cp: FAIL: $*" >&2; exit 1; }

# an odd size: several 1 MiB calls, a short last piece
head -c $((5 * 1048576 + 12345)) /dev/urandom >"$tmp/src"
chmod 640 "$tmp/src"
unpriv_own "$tmp/src"

"${cp[@]}" "${S[@]}" -v "$tmp/src" ":$dir/up.dat" || fail "upload"
cmp "$tmp/src" "$XPRT_NFS_EXPORT_DIR/$dir/up.dat" || fail "the export's copy differs"
[[ $(stat -c %a "$XPRT_NFS_EXPORT_DIR/$dir/up.dat") == 640 ]] || fail "mode not kept"
"${cp[@]}" "${S[@]}" -v ":$dir/up.dat" "$tmp/down" || fail "download"
cmp "$tmp/src" "$tmp/down" || fail "the round trip differs"

# small calls, FILE_SYNC, two connections, replacing
"${cp[@]}" "${S[@]}" -S -b 100k -n 2 -f "$tmp/src" ":$dir/up.dat" || fail "-S -b 100k -f upload"
"${cp[@]}" "${S[@]}" -b 100k -f ":$dir/up.dat" "$tmp/down" || fail "-b 100k -f download"
cmp "$tmp/src" "$tmp/down" || fail "the small-call round trip differs"

# empty file
: >"$tmp/empty"
"${cp[@]}" "${S[@]}" "$tmp/empty" ":$dir/empty" || fail "empty upload"
"${cp[@]}" "${S[@]}" ":$dir/empty" "$tmp/empty2" || fail "empty download"
[[ ! -s $tmp/empty2 && ! -s $XPRT_NFS_EXPORT_DIR/$dir/empty ]] || fail "empty file grew"

# libnfs's URL instead of -s/-e/-p/-m and :PATH (the harness's own URL,
# the file put inside its path; the export is what precedes the last '/'
# unless -e says where it ends)
q=${XPRT_NFS_URL#*\?}
base=${XPRT_NFS_URL%%\?*}
"${cp[@]}" -f "$tmp/src" "$base/$dir/url.dat?$q&uid=0&gid=0&version=3" || fail "URL upload"
cmp "$tmp/src" "$XPRT_NFS_EXPORT_DIR/$dir/url.dat" || fail "the URL upload differs"
# the URL's ids are the AUTH_SYS identity, whoever runs nfs3cp: the file
# (mode 0640) is root's, so reading it back needs them too
[[ $(stat -c %u:%g "$XPRT_NFS_EXPORT_DIR/$dir/url.dat") == 0:0 ]] ||
	fail "uid=0&gid=0: the file belongs to $(stat -c %u:%g "$XPRT_NFS_EXPORT_DIR/$dir/url.dat")"
"${cp[@]}" -f -e "$XPRT_NFS_EXPORT" "$base/$dir/url.dat?$q&uid=0&gid=0" "$tmp/down" ||
	fail "URL download with -e"
cmp "$tmp/src" "$tmp/down" || fail "the URL round trip differs"

expect() { # RC WHAT ARGS...: exit status RC and a message on stderr
	local want=$1 what=$2 rc=0
	shift 2
	"${cp[@]}" "$@" 2>"$tmp/err" >/dev/null || rc=$?
	((rc == want)) || fail "$what: exit $rc, not $want"
	((want == 0)) || [[ -s $tmp/err ]] || fail "$what: no message"
}
expect 1 "existing destination" "${S[@]}" "$tmp/src" ":$dir/up.dat"
grep -q -- '-f replaces it' "$tmp/err" || fail "no hint about -f: $(cat "$tmp/err")"
expect 1 "existing local destination" "${S[@]}" ":$dir/up.dat" "$tmp/down"
expect 1 "missing remote file" "${S[@]}" ":$dir/nope" "$tmp/nope"
grep -qi 'no such file' "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
expect 1 "missing local file" "${S[@]}" "$tmp/nope" ":$dir/nope"
expect 1 "no such export" -s "$XPRT_NFS_HOST" -e /no/such/export \
	-p "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT" "$tmp/src" ":$dir/x"
expect 2 "two local paths" "${S[@]}" "$tmp/src" "$tmp/x"
expect 2 "two remote paths" "${S[@]}" ":a" ":b"
expect 2 "no server" -e /export "$tmp/src" ":x"
expect 2 "URL of NFS version 4" "$base/$dir/url.dat?$q&version=4" "$tmp/x"
expect 2 "URL with an unknown parameter" "$base/$dir/url.dat?$q&bogus=1" "$tmp/x"
expect 0 "help" -h
echo "test_nfs3cp: all passed"
