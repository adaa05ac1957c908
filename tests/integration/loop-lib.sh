# shellcheck shell=bash
# What the tests of the caller-driven examples share (test_loop_epoll.sh,
# test_loop_uv.sh): the example of the build under test, the servers it
# reads from, and the file it reads.  Sourced under
# scripts/run-integration.sh (servers.env exported):
#
#   . "$(dirname "$0")/loop-lib.sh" NAME SIZE
#
#   ex               $XPRT_BUILD_DIR/examples/NAME (fails when not built)
#   fail MSG...      "test_NAME: FAIL: MSG" and exit 1
#   f                a file of SIZE random bytes, the same in the NFSv3
#                    export and diod's (removed at exit)
#   loop_servers     the 9P servers the harness runs: diod, ganesha (its
#                    9P beside NFSv3), or both
#   loop_run S ARG...
#                    the example as the unprivileged user, NFSv3 from
#                    ganesha and 9P from S (one of loop_servers), with
#                    ARG... before HOST EXPORT FILE
#   loop_usage       fails unless the example without arguments exits 2
# shellcheck disable=SC2153 # XPRT_* come from servers.env
loop_name=${1:?usage: . loop-lib.sh NAME SIZE}
loop_size=${2:?usage: . loop-lib.sh NAME SIZE}
ex=${XPRT_BUILD_DIR:?run me through scripts/run-integration.sh}/examples/$loop_name
[[ -x $ex ]] || { echo "test_$loop_name: $ex is not built (make examples)" >&2; exit 1; }
fail() { echo "test_$loop_name: FAIL: $*" >&2; exit 1; }
# shellcheck source=tests/integration/unpriv-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/unpriv-lib.sh"
loop_servers=()
loop_dirs=("$XPRT_NFS_EXPORT_DIR")
if [[ -n ${XPRT_DIOD_PORT:-} ]]; then
	loop_servers+=(diod)
	loop_dirs+=("$XPRT_DIOD_EXPORT_DIR")
fi
[[ -z ${XPRT_GANESHA_9P_PORT:-} ]] || loop_servers+=(ganesha)
((${#loop_servers[@]})) || fail "no 9P server in servers.env"
f=${loop_name//_/-}-$$
trap 'for d in "${loop_dirs[@]}"; do rm -f "$d/$f"; done' EXIT
head -c "$loop_size" /dev/urandom >"/tmp/$f"
for d in "${loop_dirs[@]}"; do cp "/tmp/$f" "$d/$f"; chmod a+r "$d/$f"; done
rm -f "/tmp/$f"

loop_run() {
	local p9
	case $1 in
	diod) p9=(-p "$XPRT_DIOD_PORT" -A "$XPRT_DIOD_ANAME") ;;
	*) p9=(-p "$XPRT_GANESHA_9P_PORT" -A "$XPRT_GANESHA_9P_ANAME") ;;
	esac
	shift
	as_user "$ex" -n "$XPRT_NFS_PORT" -m "$XPRT_MNT_PORT" "${p9[@]}" \
		"$@" "$XPRT_NFS_HOST" "$XPRT_NFS_EXPORT" "$f"
}
loop_usage() {
	local rc=0
	as_user "$ex" >/dev/null 2>&1 || rc=$?
	((rc == 2)) || fail "no arguments: rc $rc"
}
